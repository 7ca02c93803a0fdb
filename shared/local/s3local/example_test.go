package s3local_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
)

// A test package that talks to S3 alone calls RunTests from TestMain. One
// that talks to DynamoDB too sets both up, DynamoDB's variables first:
// MinIO checks the credentials that DynamoDB Local ignores.
func ExampleForTests() {
	var m *testing.M // TestMain's argument

	table, stopTable, err := dynamolocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bucket, stopBucket, err := s3local.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dynamolocal.SetEnv(table)
	s3local.SetEnv(bucket)
	code := m.Run()
	stopBucket()
	stopTable()
	os.Exit(code)
}

// A server whose bucket notifies a local handler of every clip uploaded
// under clips/, and lets the capture page's origin upload from a browser.
func ExampleStart() {
	ctx := context.Background()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body decodes into events.S3Event.
	}))
	defer hook.Close()
	target := s3local.Webhook{ID: "clips", Endpoint: hook.URL + "/s3-events"}

	srv, err := s3local.Start(ctx,
		s3local.WithWebhooks(target),
		s3local.WithCORSOrigins("http://127.0.0.1:3000"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer srv.Stop()
	err = s3local.CreateBucket(ctx, srv.Client(), s3local.Bucket{
		Name:   "surveys",
		Notify: []s3local.Notification{{Target: target, Prefix: "clips/"}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}
