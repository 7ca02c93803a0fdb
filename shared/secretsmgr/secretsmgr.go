// Package secretsmgr reads a secret's string value from AWS Secrets
// Manager for the Lambda functions: one operation, GetSecretValue, over
// Secrets Manager's JSON 1.1 protocol, spoken by shared/awsjson (signed by
// the SDK's SigV4 signer with the configuration's credentials and sent by
// its HTTP client).
//
// The SDK's Secrets Manager client does the same but adds 262,144 B to a
// function binary (its endpoint rules, every operation's serializers and
// middleware), and the functions that read secrets are the largest, near
// the 8 MiB budget (docs/BENCHMARKS.md; the awsjson package documentation
// says what is and is not supported). Tools (opctl) use the SDK's client;
// the tests check this package's requests against the same stand-in the
// SDK's client is run against, signatures included.
//
// Endpoint: https://secretsmanager.REGION.amazonaws.com, or the endpoint
// given to New (AWS_ENDPOINT_URL_SECRETS_MANAGER, as the SDK reads it).
// Not supported, because nothing here uses them: FIPS and dual-stack
// endpoints, other partitions than aws, binary secrets (SecretBinary),
// version ids and stages (the current version is read).
//
// # Errors
//
// A transport failure (or no answer within 10 s), a 5xx or 429 answer or a
// throttling answer is retried, three attempts in all with jittered
// backoff, while the context lasts. Any other answer is an
// [*awsjson.ResponseError] with Secrets Manager's error code
// (ResourceNotFoundException, AccessDeniedException, …) and message, for
// logs: the secret's value is never part of an error.
package secretsmgr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/moveleads/partnerapi/shared/awsjson"
)

// Retries, as the SDK's standard retryer: up to maxAttempts in all, after
// a jittered exponential backoff from baseBackoff.
const (
	maxAttempts = 3
	baseBackoff = 50 * time.Millisecond
	// maxBody bounds how much of an answer is read: a secret's value is at
	// most 65,536 bytes, which JSON escaping can at most sextuple.
	maxBody = 512 << 10
)

// Client reads secrets. It holds no state per request and is safe for
// concurrent use.
type Client struct {
	api *awsjson.Client
}

// New returns a Client for cfg's region and credentials. endpoint, when
// not "", is the service's URL (http(s)://HOST[:PORT][/PATH]), as
// AWS_ENDPOINT_URL_SECRETS_MANAGER gives it. It sends no request.
func New(cfg aws.Config, endpoint string) (*Client, error) {
	api, err := awsjson.New(cfg, awsjson.Options{
		Service:     "Secrets Manager",
		SigningName: "secretsmanager",
		Endpoint:    endpoint,
		Retry:       awsjson.Retry{MaxAttempts: maxAttempts, BaseDelay: baseBackoff},
		MaxAnswer:   maxBody,
	})
	if err != nil {
		return nil, fmt.Errorf("secretsmgr: %w", err)
	}
	return &Client{api}, nil
}

// SecretString returns the current SecretString of the secret id (its ARN
// or name). A secret that holds only SecretBinary is an error.
func (c *Client) SecretString(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", errors.New("secretsmgr: no secret id")
	}
	body, err := json.Marshal(struct {
		SecretID string `json:"SecretId"`
	}{id})
	if err != nil {
		return "", err
	}
	out, err := c.api.Call(ctx, "secretsmanager.GetSecretValue", body)
	if err != nil {
		return "", fmt.Errorf("GetSecretValue %s: %w", id, err)
	}
	var v struct {
		SecretString *string
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return "", fmt.Errorf("GetSecretValue %s: the answer is not JSON: %w", id, err)
	}
	if v.SecretString == nil {
		return "", fmt.Errorf("GetSecretValue %s: the secret has no string value", id)
	}
	return *v.SecretString, nil
}
