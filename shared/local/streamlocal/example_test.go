package streamlocal_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/local/streamlocal"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// printer prints each record's change and key, then stops the poll; a
// stream-triggered function's processor goes here.
type printer struct{ stop context.CancelFunc }

func (p printer) Process(_ context.Context, r streamevent.Record) error {
	fmt.Println(r.EventName, r.Keys["pk"].(*types.AttributeValueMemberS).Value)
	p.stop()
	return nil
}

// The local stack runs a stream-triggered function's handler on the
// table's stream until it is stopped, as Lambda's event source mapping
// would in AWS (batch size from the function's manifest entry).
func ExamplePoll() {
	// The bound only keeps a broken stream from hanging the example.
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	cfg, err := config.LoadDefaultConfig(ctx) // AWS_ENDPOINT_URL_DYNAMODB names DynamoDB Local
	if err != nil {
		panic(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	name := fmt.Sprintf("example-poll-%d", time.Now().UnixNano())
	if err := dynamo.CreateTablesWithStream(ctx, db, name); err != nil {
		panic(err)
	}
	defer dynamo.DeleteTables(context.Background(), db, name)
	events := table.EventsName(name)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &events, Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "ITEM#1"}, "sk": &types.AttributeValueMemberS{Value: "A"},
	}})
	if err != nil {
		panic(err)
	}
	log := slog.New(slog.DiscardHandler)
	h := streamevent.New(printer{stop: stop}, log)
	if err := streamlocal.Poll(ctx, db, streamlocal.StreamsClient(db), events, streamlocal.TrimHorizon, 100, h, log); err != nil {
		fmt.Println("stream poll stopped:", err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		fmt.Println("no record within a minute")
	}
	// Output: INSERT ITEM#1
}
