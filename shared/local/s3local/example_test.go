package s3local_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/local/s3local"
)

// A test package that talks to S3 alone calls s3local.RunTests(m) from
// TestMain, which does this around m.Run and exits with its code. One
// that talks to DynamoDB too sets both up, DynamoDB's variables first:
// MinIO checks the credentials that DynamoDB Local ignores.
func ExampleForTests() {
	srv, stop, err := s3local.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer stop()
	for _, kv := range s3local.Env(srv) { // what SetEnv sets, kept to this example
		k, _, _ := strings.Cut(kv, "=")
		if prev, ok := os.LookupEnv(k); ok {
			defer os.Setenv(k, prev)
		} else {
			defer os.Unsetenv(k)
		}
	}
	s3local.SetEnv(srv)
	fmt.Println(os.Getenv("AWS_ENDPOINT_URL_S3") == srv.Endpoint)
	// Output: true
}

// A server whose bucket notifies a local handler of every clip uploaded
// under clips/, and lets the capture page's origin upload from a browser.
func ExampleStart() {
	ctx := context.Background()
	keys := make(chan string, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev events.S3Event
		if json.NewDecoder(r.Body).Decode(&ev) == nil {
			for _, rec := range ev.Records {
				keys <- rec.S3.Object.URLDecodedKey
			}
		}
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
		return
	}
	for _, key := range []string{"notes/n1.txt", "clips/c1.webm"} {
		if _, err := srv.Client().PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String("surveys"), Key: aws.String(key), Body: strings.NewReader("x"),
		}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
	}
	select {
	case key := <-keys:
		fmt.Println(key)
	case <-time.After(time.Minute):
		fmt.Println("no notification")
	}
	// Output: clips/c1.webm
}
