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
	"github.com/moveleads/partnerapi/shared/settings"
)

// NewFromEnv builds a Handler from the process environment: the table name,
// where the cursor secret is (CURSOR_SECRET_ARN, else CURSOR_SECRET; needed
// only by functions that page, which fail per request without it), and
// the AWS SDK's standard configuration (region, credentials,
// AWS_ENDPOINT_URL_DYNAMODB). Call it once, at init; it makes no network
// call. It logs JSON lines to stdout.
func NewFromEnv(ctx context.Context) (*Handler, error) {
	tableName := os.Getenv(settings.Table)
	if tableName == "" {
		return nil, errors.New(settings.Table + " is not set")
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	var cur func(context.Context) (*cursor.Signer, error)
	switch arn, hexKey := os.Getenv(settings.CursorSecretARN), os.Getenv(settings.CursorSecret); {
	case arn != "":
		l := &lazySigner{load: secretsManagerSecret(cfg, arn)}
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
			return nil, fmt.Errorf("neither %s nor %s is set", settings.CursorSecretARN, settings.CursorSecret)
		}
	}
	return New(Deps{
		Store:  dynamo.New(dynamodb.NewFromConfig(cfg), tableName),
		Cursor: cur,
		Log:    slog.New(slog.NewJSONHandler(os.Stdout, nil)),
	}), nil
}
