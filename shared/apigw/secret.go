package apigw

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/moveleads/partnerapi/shared/cursor"
	"github.com/moveleads/partnerapi/shared/errcode"
)

// lazySigner builds the cursor signer on first use, so that functions which
// never page (and every cold start) pay nothing for the secret. A failed
// load is not remembered: the next request tries again.
type lazySigner struct {
	mu     sync.Mutex
	signer *cursor.Signer
	load   func(context.Context) ([]byte, error)
}

// get returns the signer, loading the secret once.
func (l *lazySigner) get(ctx context.Context) (*cursor.Signer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.signer != nil {
		return l.signer, nil
	}
	secret, err := l.load(ctx)
	if err != nil {
		return nil, errcode.Upstream("load cursor secret", err)
	}
	s, err := cursor.NewSigner(secret)
	if err != nil {
		return nil, fmt.Errorf("cursor secret: %w", err)
	}
	l.signer = s
	return s, nil
}

// FixedSigner returns a signer source for a known signer (tests, local).
func FixedSigner(s *cursor.Signer) func(context.Context) (*cursor.Signer, error) {
	return func(context.Context) (*cursor.Signer, error) { return s, nil }
}

// SecretsManager is the SecretLoader for AWS Secrets Manager: it reads the
// secret's string value by ARN, the hex encoding of the key (the CDK stack
// generates 64 hex characters). The client is built on first use.
func SecretsManager(cfg aws.Config, arn string) func(context.Context) ([]byte, error) {
	var once sync.Once
	var client *secretsmanager.Client
	return func(ctx context.Context) ([]byte, error) {
		once.Do(func() {
			client = secretsmanager.NewFromConfig(cfg, func(o *secretsmanager.Options) { o.BaseEndpoint = endpoint("SECRETS_MANAGER") })
		})
		out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
		if err != nil {
			return nil, err
		}
		if out.SecretString == nil {
			return nil, errors.New("secret has no string value")
		}
		return secretBytes(*out.SecretString), nil
	}
}

// secretBytes decodes a hex secret, or takes a non-hex one as raw bytes.
func secretBytes(s string) []byte {
	if b, err := hex.DecodeString(s); err == nil {
		return b
	}
	return []byte(s)
}
