package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
)

// TestMain runs the package's tests against DynamoDB Local: the
// developer's running one when AWS_ENDPOINT_URL_DYNAMODB is set, else one
// started for this test binary.
func TestMain(m *testing.M) { dynamolocal.RunTests(m) }

var tableSeq atomic.Int64

// newStore returns a Store over a fresh table, dropped when the test ends.
// optFns adjust the DynamoDB client (e.g. fault-injecting middleware).
func newStore(t testing.TB, optFns ...func(*dynamodb.Options)) *Store {
	t.Helper()
	db := newClient(t, optFns...)
	name := fmt.Sprintf("test-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	if err := CreateTables(context.Background(), db, name); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() { _ = DeleteTables(context.Background(), db, name) })
	return New(db, name)
}

// newClient returns a DynamoDB client for DynamoDB Local.
func newClient(t testing.TB, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatalf("load AWS config: %v", err)
	}
	cfg.Retryer = zeroBackoffRetryer
	return dynamodb.NewFromConfig(cfg, optFns...)
}

// zeroBackoffRetryer is the SDK's standard retryer, same attempts and
// retry rules, without its pauses: the fault tests inject throttling and
// conflicts after the retry middleware, and each retry slept up to
// seconds.
func zeroBackoffRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
	})
}

// other returns a second Store over s's table with a client of its own
// (another instance, say), untouched by s's test middleware.
func other(t testing.TB, s *Store) *Store {
	t.Helper()
	return New(newClient(t), s.table)
}

// newPartner stores a partner with the default USD rate card and returns
// its id.
func newPartner(t testing.TB, s *Store) string {
	t.Helper()
	id := "ptn_" + randomHex(8)
	err := s.CreatePartner(context.Background(), partner.Partner{
		ID: id, Name: "Acme Movers", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: time.Now(),
	})
	if err != nil {
		t.Fatalf("create partner: %v", err)
	}
	return id
}

// newKey stores a key with every scope for partnerID in mode and returns
// the key and its id.
func newKey(t testing.TB, s *Store, partnerID string, mode auth.Mode) (key, keyID string) {
	t.Helper()
	key, keyID, err := auth.NewKey(mode)
	if err != nil {
		t.Fatal(err)
	}
	err = s.CreateKey(context.Background(), auth.Key{
		KeyID: keyID, Digest: auth.Digest(key), PartnerID: partnerID, Mode: mode,
		Scopes: auth.AllScopes, CreatedAt: time.Now(),
	})
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	return key, keyID
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// wantCode fails unless err is an *errcode.Error with code.
func wantCode(t testing.TB, err error, code errcode.Code) *errcode.Error {
	t.Helper()
	e := errcode.As(err)
	if e == nil {
		t.Fatalf("err = %v; want *errcode.Error %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("error code = %s; want %s (%v)", e.Code, code, err)
	}
	return e
}

// putItem writes item (an item struct) as it is, unconditionally.
func putItem(ctx context.Context, s *Store, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av})
	return err
}
