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
	// EnvCursorSecret holds the key (at least 32 bytes) that signs listLeads
	// cursors.
	EnvCursorSecret = "CURSOR_SECRET"
)

// NewFromEnv builds a Handler from the process environment: the table name,
// the cursor secret, and the AWS SDK's standard configuration (region,
// credentials, AWS_ENDPOINT_URL_DYNAMODB). Call it once, at init. It logs
// JSON lines to stdout.
func NewFromEnv(ctx context.Context) (*Handler, error) {
	tableName := os.Getenv(EnvTable)
	if tableName == "" {
		return nil, errors.New(EnvTable + " is not set")
	}
	signer, err := cursor.NewSigner([]byte(os.Getenv(EnvCursorSecret)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvCursorSecret, err)
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	return New(Deps{
		Store:  dynamo.New(dynamodb.NewFromConfig(cfg), tableName),
		Cursor: signer,
		Log:    slog.New(slog.NewJSONHandler(os.Stdout, nil)),
	}), nil
}
