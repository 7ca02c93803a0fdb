package s3local

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// receiver collects the raw S3 events posted to it, to pin down what
// MinIO sends (Receiver, the real endpoint, is tested in receiver_test.go).
type receiver struct {
	mu     sync.Mutex
	events []events.S3EventRecord
	auth   []string
	errs   []string
	got    chan struct{} // one send per request that carried records
	fail   int           // how many requests with records to answer 500
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil {
		rc.errs = append(rc.errs, err.Error())
		return
	}
	if rc.fail > 0 && strings.Contains(string(body), `"Records"`) {
		rc.fail--
		http.Error(w, "try later", http.StatusInternalServerError)
		return
	}
	var ev events.S3Event
	if err := json.Unmarshal(body, &ev); err != nil {
		rc.errs = append(rc.errs, "decode "+string(body)+": "+err.Error())
		return
	}
	rc.auth = append(rc.auth, r.Header.Get("Authorization"))
	rc.events = append(rc.events, ev.Records...)
	if len(ev.Records) > 0 {
		select {
		case rc.got <- struct{}{}:
		default:
		}
	}
}

// snapshot returns copies of what arrived so far.
func (rc *receiver) snapshot() ([]events.S3EventRecord, []string, []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]events.S3EventRecord(nil), rc.events...), append([]string(nil), rc.auth...), append([]string(nil), rc.errs...)
}

// TestNotificationUnderPrefix creates an object outside the notified
// prefix, then one under it with characters that S3 encodes in event keys,
// and expects exactly one event, for the second, decoded by aws-lambda-go.
func TestNotificationUnderPrefix(t *testing.T) {
	t.Parallel() // its own MinIO and receiver; waits out stragglers
	rc := &receiver{got: make(chan struct{}, 16)}
	hook := httptest.NewServer(rc) // listens on 127.0.0.1
	defer hook.Close()
	target := Webhook{ID: "clips", Endpoint: hook.URL + "/s3-events", AuthToken: "t0ken"}
	s := startServer(t, WithWebhooks(target))
	c := newBucket(t, s, Bucket{Name: "uploads", Notify: []Notification{{Target: target, Prefix: "clips/"}}})
	ctx := context.Background()

	cfg, err := c.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("uploads")})
	if err != nil {
		t.Fatalf("GetBucketNotificationConfiguration: %v", err)
	}
	if n := len(cfg.QueueConfigurations); n != 1 || aws.ToString(cfg.QueueConfigurations[0].QueueArn) != target.ARN() {
		t.Errorf("notification configuration has %d queues; want one for %s", n, target.ARN())
	}

	const key = "clips/s 1/room+2.webm"
	for _, k := range []string{"other/x.webm", key} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("uploads"), Key: aws.String(k), Body: strings.NewReader("video")}); err != nil {
			t.Fatalf("PutObject %s: %v", k, err)
		}
	}
	select {
	case <-rc.got:
	case <-time.After(15 * time.Second):
		_, _, errs := rc.snapshot()
		t.Fatalf("no event within 15 s; receiver errors: %q; server output:\n%s", errs, s.proc.Output())
	}
	// Anything for the first object would have been sent before the
	// second's event; a moment more catches stragglers.
	time.Sleep(time.Second)

	records, auth, errs := rc.snapshot()
	if len(errs) > 0 {
		t.Errorf("receiver errors: %q", errs)
	}
	if len(records) != 1 {
		keys := make([]string, len(records))
		for i, r := range records {
			keys[i] = r.S3.Object.URLDecodedKey
		}
		t.Fatalf("got %d events for keys %q; want one, for %q", len(records), keys, key)
	}
	r := records[0]
	checks := []struct{ name, got, want string }{
		{"URLDecodedKey", r.S3.Object.URLDecodedKey, key},
		{"bucket", r.S3.Bucket.Name, "uploads"},
		{"eventName", r.EventName, "s3:ObjectCreated:Put"},
		{"eventSource", r.EventSource, "minio:s3"},
		{"Authorization", auth[0], "Bearer t0ken"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q; want %q", c.name, c.got, c.want)
		}
	}
	if r.S3.Object.Key == key {
		t.Errorf("raw Key = %q; want it URL-encoded (MinIO encodes keys as S3 does)", r.S3.Object.Key)
	}
	if r.S3.Object.Size != int64(len("video")) {
		t.Errorf("Size = %d; want %d", r.S3.Object.Size, len("video"))
	}
}

// TestNotificationToUnknownTarget is refused: MinIO knows only the
// targets it was started with.
func TestNotificationToUnknownTarget(t *testing.T) {
	t.Parallel() // its own MinIO
	s := startServer(t)
	err := CreateBucket(context.Background(), s.Client(), Bucket{
		Name:   "uploads",
		Notify: []Notification{{Target: Webhook{ID: "missing", Endpoint: "http://127.0.0.1:9/"}, Prefix: "clips/"}},
	})
	if err == nil || !strings.Contains(err.Error(), "set notifications of bucket uploads") {
		t.Errorf("CreateBucket notifying an unknown target = %v; want a notification error", err)
	}
}

// TestNotificationIsNotRetried pins down a difference from Amazon S3's
// asynchronous Lambda invocation, which retries a failed event: MinIO,
// without a queue directory, drops an event its webhook answers with 500.
func TestNotificationIsNotRetried(t *testing.T) {
	t.Parallel() // its own MinIO and receiver; waits out MinIO's retry interval
	rc := &receiver{got: make(chan struct{}, 16), fail: 1}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	target := Webhook{ID: "clips", Endpoint: hook.URL}
	s := startServer(t, WithWebhooks(target))
	c := newBucket(t, s, Bucket{Name: "uploads", Notify: []Notification{{Target: target}}})
	ctx := context.Background()
	for i, k := range []string{"refused.webm", "taken.webm"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("uploads"), Key: aws.String(k), Body: strings.NewReader("video")}); err != nil {
			t.Fatalf("PutObject %s: %v", k, err)
		}
		if i == 0 {
			// Let the first event meet the failure before the second is sent.
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				rc.mu.Lock()
				failed := rc.fail == 0
				rc.mu.Unlock()
				if failed {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no event within 15 s; server output:\n%s", s.proc.Output())
				}
			}
		}
	}
	select {
	case <-rc.got:
	case <-time.After(15 * time.Second):
		t.Fatalf("no second event within 15 s; server output:\n%s", s.proc.Output())
	}
	time.Sleep(4 * time.Second) // longer than MinIO's 3 s retry interval
	records, _, _ := rc.snapshot()
	var keys []string
	for _, r := range records {
		keys = append(keys, r.S3.Object.URLDecodedKey)
	}
	if len(keys) != 1 || keys[0] != "taken.webm" {
		t.Errorf("events delivered for %q; want only [taken.webm]", keys)
	}
}
