package awsenv

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/endpointcreds"
)

// The container credentials endpoint's variables, as the SDK's default
// chain reads them (ECS, EKS Pod Identity, Lambda container emulators).
const (
	containerFullURI     = "AWS_CONTAINER_CREDENTIALS_FULL_URI"
	containerRelativeURI = "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"
	containerToken       = "AWS_CONTAINER_AUTHORIZATION_TOKEN"
	containerTokenFile   = "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"
	ecsContainerEndpoint = "http://169.254.170.2"
)

// lambdaConfig is the AWS SDK configuration a function needs, from the
// environment Lambda gives it: AWS_REGION and credentials (see
// lambdaCredentials). It stands in for config.LoadDefaultConfig, whose
// shared files, SSO, STS and instance-metadata providers no function uses
// but every binary would carry (about 2 MiB, and 1.6–1.9× hello-world's
// init). Local tools keep LoadDefaultConfig.
func lambdaConfig(getenv func(string) string) (aws.Config, error) {
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		return aws.Config{}, errors.New("AWS_REGION must be set (Lambda sets it)")
	}
	creds, err := lambdaCredentials(getenv)
	if err != nil {
		return aws.Config{}, err
	}
	return aws.Config{Region: region, Credentials: creds}, nil
}

// lambdaCredentials are, in the SDK's default order: the execution role's
// keys Lambda sets (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN); else a container credentials endpoint
// (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI on 169.254.170.2, or
// AWS_CONTAINER_CREDENTIALS_FULL_URI, over http only to a loopback or
// ECS/EKS address) sent AWS_CONTAINER_AUTHORIZATION_TOKEN, or the content
// of AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE read again at each refresh,
// and cached until they expire.
func lambdaCredentials(getenv func(string) string) (aws.CredentialsProvider, error) {
	if id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		return credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN")), nil
	}
	endpoint := getenv(containerFullURI)
	if rel := getenv(containerRelativeURI); rel != "" {
		endpoint = ecsContainerEndpoint + rel
	} else if endpoint != "" {
		if err := checkContainerEndpoint(endpoint); err != nil {
			return nil, fmt.Errorf("%s: %w", containerFullURI, err)
		}
	}
	if endpoint == "" {
		return nil, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them) or " +
			containerFullURI + " or " + containerRelativeURI + " must be set")
	}
	token, tokenFile := getenv(containerToken), getenv(containerTokenFile)
	provider := endpointcreds.New(endpoint, func(o *endpointcreds.Options) {
		o.AuthorizationToken = token
		if tokenFile != "" {
			o.AuthorizationTokenProvider = endpointcreds.TokenProviderFunc(func() (string, error) {
				b, err := os.ReadFile(tokenFile)
				if err != nil {
					return "", fmt.Errorf("read %s: %w", containerTokenFile, err)
				}
				return string(b), nil
			})
		}
	})
	return aws.NewCredentialsCache(provider), nil
}

// checkContainerEndpoint refuses, as the SDK does, a full URI that would
// send the authorization token in the clear off the machine: http is for
// loopback and the ECS and EKS credential addresses only. Host names are
// not resolved here; only an IP or localhost passes over http.
func checkContainerEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("%q is not a URL with a host", endpoint)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if u.Hostname() == "localhost" {
			return nil
		}
		if ip := net.ParseIP(u.Hostname()); ip != nil && (ip.IsLoopback() ||
			ip.Equal(net.IPv4(169, 254, 170, 2)) || ip.Equal(net.IPv4(169, 254, 170, 23)) || ip.Equal(net.ParseIP("fd00:ec2::23"))) {
			return nil
		}
		return fmt.Errorf("http to %q: only loopback, ECS and EKS addresses", u.Hostname())
	}
	return fmt.Errorf("%q is not http(s)", endpoint)
}
