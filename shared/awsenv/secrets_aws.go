//go:build awssecrets

package awsenv

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// secretsManager reads a secret's string value by ARN from AWS Secrets
// Manager. The client is built on first use, never at init.
var secretsManager = func(cfg aws.Config, arn string) func(context.Context) (string, error) {
	var once sync.Once
	var client *secretsmanager.Client
	return func(ctx context.Context) (string, error) {
		once.Do(func() {
			client = secretsmanager.NewFromConfig(cfg, func(o *secretsmanager.Options) {
				o.BaseEndpoint = Endpoint(os.Getenv, "SECRETS_MANAGER")
			})
		})
		out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
		if err != nil {
			return "", err
		}
		if out.SecretString == nil {
			return "", errors.New("secret has no string value")
		}
		return *out.SecretString, nil
	}
}
