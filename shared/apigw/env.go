package apigw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/cursor"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/settings"
)

// SecretLoader returns the loader of the secret named arn. Functions whose
// route lists secrets pass SecretsManager to NewFromEnv; the others pass
// nil and so link no Secrets Manager client.
type SecretLoader func(cfg aws.Config, arn string) func(context.Context) ([]byte, error)

// NewFromEnv builds a Handler from the process environment: the table name,
// where the cursor secret is (CURSOR_SECRET_ARN, read with secrets, else
// CURSOR_SECRET; needed only by functions that page, which fail per request
// without it) and the AWS settings Lambda provides (see lambdaConfig). Call
// it once, at init; it makes no network call. It logs JSON lines to stdout.
func NewFromEnv(ctx context.Context, secrets SecretLoader) (*Handler, error) {
	tableName := os.Getenv(settings.Table)
	if tableName == "" {
		return nil, errors.New(settings.Table + " is not set")
	}
	cfg, err := lambdaConfig()
	if err != nil {
		return nil, err
	}
	var cur func(context.Context) (*cursor.Signer, error)
	switch arn, hexKey := os.Getenv(settings.CursorSecretARN), os.Getenv(settings.CursorSecret); {
	case arn != "" && secrets != nil:
		l := &lazySigner{load: secrets(cfg, arn)}
		cur = l.get
	case hexKey != "":
		s, err := cursor.NewSigner(secretBytes(hexKey))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", settings.CursorSecret, err)
		}
		cur = FixedSigner(s)
	default:
		// Only functions whose route lists route.SecretCursor get the
		// secret; the others never sign a cursor and must still start.
		cur = func(context.Context) (*cursor.Signer, error) {
			return nil, fmt.Errorf("this function has no cursor secret (%s with a secret loader, or %s)",
				settings.CursorSecretARN, settings.CursorSecret)
		}
	}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = endpoint("DYNAMODB") })
	return New(Deps{
		Store:  dynamo.New(db, tableName),
		Cursor: cur,
		Log:    slog.New(slog.NewJSONHandler(os.Stdout, nil)),
	}), nil
}

// lambdaConfig is the AWS SDK configuration a function needs, from the
// environment Lambda gives it: AWS_REGION and the execution role's
// credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
// It stands in for config.LoadDefaultConfig, whose shared files, SSO, STS
// and instance-metadata providers no function uses but every binary would
// carry (with the Secrets Manager client, 1.2 MiB of v1-lead-get's arm64
// binary: 10.19 MiB before, 8.98 after, by `make build`). Local tools keep
// LoadDefaultConfig.
func lambdaConfig() (aws.Config, error) {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if region == "" || id == "" || secret == "" {
		return aws.Config{}, errors.New("AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (Lambda sets them)")
	}
	return aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN")),
	}, nil
}

// endpoint honours the SDK's standard endpoint variables for service (its
// environment name, e.g. DYNAMODB): AWS_ENDPOINT_URL_<service>, else
// AWS_ENDPOINT_URL. Nil means the service's regional endpoint.
func endpoint(service string) *string {
	if v := os.Getenv("AWS_ENDPOINT_URL_" + service); v != "" {
		return &v
	}
	if v := os.Getenv("AWS_ENDPOINT_URL"); v != "" {
		return &v
	}
	return nil
}
