package apigw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/cursor"
	"github.com/moveleads/partnerapi/shared/dynamo"
)

// Environment variables every function reads at init.
const (
	// EnvTable names the DynamoDB table.
	EnvTable = "TABLE_NAME"
	// EnvCursorSecret holds the key that signs listLeads cursors (hex, at
	// least 32 bytes), for local stacks.
	EnvCursorSecret = "CURSOR_SECRET"
	// EnvCursorSecretARN names the Secrets Manager secret holding that key,
	// in AWS. It is read on the first listLeads request, not at init.
	EnvCursorSecretARN = "CURSOR_SECRET_ARN"
)

// NewFromEnv builds a Handler from the process environment: the table name,
// where the cursor secret is (CURSOR_SECRET_ARN, else CURSOR_SECRET), and
// the AWS SDK's standard configuration (region, credentials,
// AWS_ENDPOINT_URL_DYNAMODB). Call it once, at init; it makes no network
// call. It logs JSON lines to stdout.
func NewFromEnv(ctx context.Context) (*Handler, error) {
	tableName := os.Getenv(EnvTable)
	if tableName == "" {
		return nil, errors.New(EnvTable + " is not set")
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	var cur func(context.Context) (*cursor.Signer, error)
	if arn := os.Getenv(EnvCursorSecretARN); arn != "" {
		l := &lazySigner{load: secretsManagerSecret(cfg, arn)}
		cur = l.get
	} else {
		s, err := cursor.NewSigner(secretBytes(os.Getenv(EnvCursorSecret)))
		if err != nil {
			return nil, fmt.Errorf("%s or %s: %w", EnvCursorSecretARN, EnvCursorSecret, err)
		}
		cur = FixedSigner(s)
	}
	return New(Deps{
		Store:  dynamo.New(dynamodb.NewFromConfig(cfg), tableName),
		Cursor: cur,
		Log:    slog.New(slog.NewJSONHandler(os.Stdout, nil)),
	}), nil
}
