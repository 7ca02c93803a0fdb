package streamlocal_test

import (
	"context"
	"log/slog"
	"os"
	"os/signal"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/local/streamlocal"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// skipper processes nothing; a stream-triggered function's processor goes
// here.
type skipper struct{}

func (skipper) Process(context.Context, streamevent.Record) error { return nil }

// The local stack runs a stream-triggered function's handler on the
// table's stream until it is stopped, as Lambda's event source mapping
// would in AWS (batch size from the function's manifest entry).
func ExamplePoll() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg, err := config.LoadDefaultConfig(ctx) // AWS_ENDPOINT_URL_DYNAMODB names DynamoDB Local
	if err != nil {
		panic(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	h := streamevent.New(skipper{}, log)
	if err := streamlocal.Poll(ctx, db, streamlocal.StreamsClient(db), table.DefaultName, streamlocal.TrimHorizon, 100, h, log); err != nil {
		log.Error("stream poll stopped", "error", err.Error())
	}
}
