package s3local

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// testToken is the auth token of the receivers under test; no log line
// may show it.
const testToken = "c2VjcmV0LXRva2VuLW5ldmVyLWxvZ2dlZA"

// minioEvent is a notification body as MinIO posts it (captured from this
// MinIO for a PUT of "clips/ptn_1/test/s 1/room+2.webm" into "uploads").
func minioEvent(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/minio-event.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lockedBuffer is a log destination safe for concurrent writes and reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// recorder is a handler that keeps the events it gets and answers err.
type recorder struct {
	mu     sync.Mutex
	events []events.S3Event
	err    error
	panic  bool
	got    chan struct{}
}

func (rc *recorder) handle(_ context.Context, ev events.S3Event) error {
	rc.mu.Lock()
	rc.events = append(rc.events, ev)
	err, panics := rc.err, rc.panic
	rc.mu.Unlock()
	if rc.got != nil {
		select {
		case rc.got <- struct{}{}:
		default:
		}
	}
	if panics {
		panic("boom")
	}
	return err
}

func (rc *recorder) snapshot() []events.S3Event {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]events.S3Event(nil), rc.events...)
}

func TestReceiver(t *testing.T) {
	event := minioEvent(t)
	bearer := "Bearer " + testToken
	big := append(bytes.Repeat([]byte(" "), MaxEventBytes), event...)
	tests := []struct {
		name       string
		method     string
		auth       string
		body       []byte
		chunked    bool // send without Content-Length
		handlerErr error
		panics     bool
		want       int
		wantCalled bool
		wantLog    string // a fragment of the log
	}{
		{name: "MinIO's event", method: "POST", auth: bearer, body: event, want: 204, wantCalled: true},
		{name: "handler fails", method: "POST", auth: bearer, body: event, handlerErr: errors.New("table unreachable"), want: 500, wantCalled: true,
			wantLog: "table unreachable"},
		{name: "handler panics", method: "POST", auth: bearer, body: event, panics: true, want: 500, wantCalled: true, wantLog: "handler panicked: boom"},
		{name: "GET", method: "GET", auth: bearer, want: 405},
		{name: "PUT", method: "PUT", auth: bearer, body: event, want: 405},
		{name: "no Authorization", method: "POST", body: event, want: 401, wantLog: "wrong or missing Authorization"},
		{name: "wrong token", method: "POST", auth: "Bearer " + testToken + "x", body: event, want: 401},
		{name: "token without Bearer", method: "POST", auth: testToken, body: event, want: 401},
		{name: "lower-case scheme", method: "POST", auth: "bearer " + testToken, body: event, want: 401},
		{name: "token with trailing space", method: "POST", auth: bearer + " ", body: event, want: 401},
		{name: "too large", method: "POST", auth: bearer, body: big, want: 413},
		{name: "too large, chunked", method: "POST", auth: bearer, body: big, chunked: true, want: 413},
		{name: "not JSON", method: "POST", auth: bearer, body: []byte("Records"), want: 400},
		{name: "not an object", method: "POST", auth: bearer, body: []byte(`[1]`), want: 400},
		{name: "no records", method: "POST", auth: bearer, body: []byte(`{}`), want: 400},
		{name: "empty records", method: "POST", auth: bearer, body: []byte(`{"Records":[]}`), want: 400},
		{name: "trailing data", method: "POST", auth: bearer, body: append(append([]byte(nil), event...), '{'), want: 400},
		{name: "bad key escape", method: "POST", auth: bearer, body: []byte(`{"Records":[{"s3":{"object":{"key":"clips%zz"}}}]}`), want: 400},
		{name: "empty body", method: "POST", auth: bearer, want: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs lockedBuffer
			rc := &recorder{err: tt.handlerErr, panic: tt.panics}
			h := Receiver(testToken, rc.handle, slog.New(slog.NewJSONHandler(&logs, nil)))
			req := httptest.NewRequest(tt.method, "/_local/s3-events", bytes.NewReader(tt.body))
			if tt.chunked {
				req.ContentLength = -1
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tt.want {
				t.Errorf("status %d (%s); want %d", w.Code, strings.TrimSpace(w.Body.String()), tt.want)
			}
			if called := len(rc.snapshot()) > 0; called != tt.wantCalled {
				t.Errorf("handler called: %v; want %v", called, tt.wantCalled)
			}
			switch tt.want {
			case 405:
				if got := w.Header().Get("Allow"); got != "POST" {
					t.Errorf("Allow = %q; want POST", got)
				}
			case 401:
				if got := w.Header().Get("WWW-Authenticate"); got != "Bearer" {
					t.Errorf("WWW-Authenticate = %q; want Bearer", got)
				}
			}
			if tt.wantLog != "" && !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q lacks %q", logs.String(), tt.wantLog)
			}
			if tt.want == 500 && (!strings.Contains(logs.String(), "uploads/clips/ptn_1/test/s 1/room+2.webm") ||
				!strings.Contains(logs.String(), `"event":{"Records":[{`)) {
				t.Errorf("log of a failure %q does not name the object and carry the event", logs.String())
			}
			if strings.Contains(logs.String(), testToken) {
				t.Errorf("the log shows the token: %s", logs.String())
			}
		})
	}
}

// TestReceiverDecodesAsLambda checks what the handler gets from MinIO's
// body: the record with its URL-decoded key, MinIO's event name, and the
// object's size, through aws-lambda-go's decoding.
func TestReceiverDecodesAsLambda(t *testing.T) {
	rc := &recorder{}
	req := httptest.NewRequest("POST", "/", bytes.NewReader(minioEvent(t)))
	req.Header.Set("Authorization", "Bearer "+testToken)
	w := httptest.NewRecorder()
	Receiver(testToken, rc.handle, nil).ServeHTTP(w, req)
	if w.Code != 204 {
		t.Fatalf("status %d; want 204", w.Code)
	}
	evs := rc.snapshot()
	if len(evs) != 1 || len(evs[0].Records) != 1 {
		t.Fatalf("handler got %+v; want one event of one record", evs)
	}
	r := evs[0].Records[0]
	for _, c := range []struct{ name, got, want string }{
		{"bucket", r.S3.Bucket.Name, "uploads"},
		{"URLDecodedKey", r.S3.Object.URLDecodedKey, "clips/ptn_1/test/s 1/room+2.webm"},
		{"eventName", r.EventName, "s3:ObjectCreated:Put"},
		{"eTag", r.S3.Object.ETag, "421b47ffd946ca083b65cd668c6b17e6"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q; want %q", c.name, c.got, c.want)
		}
	}
	if r.S3.Object.Size != 5 {
		t.Errorf("size %d; want 5", r.S3.Object.Size)
	}
}

// TestReceiverTwoWordToken: MinIO sends a two-word token ("Scheme
// credentials") as it is, without "Bearer".
func TestReceiverTwoWordToken(t *testing.T) {
	rc := &recorder{}
	h := Receiver("Token "+testToken, rc.handle, nil)
	for auth, want := range map[string]int{"Token " + testToken: 204, "Bearer Token " + testToken: 401, "Bearer " + testToken: 401} {
		req := httptest.NewRequest("POST", "/", bytes.NewReader(minioEvent(t)))
		req.Header.Set("Authorization", auth)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("Authorization %q: %d; want %d", auth, w.Code, want)
		}
	}
}

func TestReceiverRefusesUnusableTokens(t *testing.T) {
	for _, token := range []string{"", "  ", "a b c"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Receiver(%q) did not panic; MinIO would send no Authorization header", token)
				}
			}()
			Receiver(token, func(context.Context, events.S3Event) error { return nil }, nil)
		}()
	}
}

// TestReceiverFromMinIO connects a real MinIO's bucket notification to a
// Receiver: an object created under the notified prefix reaches the
// handler with its bucket, key and size; one outside it does not; a
// failing handler answers MinIO 500, which MinIO logs.
func TestReceiverFromMinIO(t *testing.T) {
	t.Parallel() // its own MinIO and receiver; waits out stragglers
	rc := &recorder{got: make(chan struct{}, 16)}
	var logs lockedBuffer
	hook := httptest.NewServer(Receiver(testToken, rc.handle, slog.New(slog.NewJSONHandler(&logs, nil))))
	defer hook.Close()
	target := Webhook{ID: "clips", Endpoint: hook.URL + "/_local/s3-events", AuthToken: testToken}
	s := startServer(t, WithWebhooks(target))
	c := newBucket(t, s, Bucket{Name: "clips-bucket", Notify: []Notification{{Target: target, Prefix: "clips/"}}})
	ctx := context.Background()

	const key = "clips/ptn_1/test/survey 1/clip+1"
	body := "not really a video, 37 bytes long..."
	for _, k := range []string{"other/x", key} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("clips-bucket"), Key: aws.String(k), Body: strings.NewReader(body)}); err != nil {
			t.Fatalf("PutObject %s: %v", k, err)
		}
	}
	select {
	case <-rc.got:
	case <-time.After(15 * time.Second):
		t.Fatalf("no event within 15 s; log %s; server output:\n%s", logs.String(), s.proc.Output())
	}
	time.Sleep(time.Second) // an event for other/x would have come first
	evs := rc.snapshot()
	if len(evs) != 1 || len(evs[0].Records) != 1 {
		t.Fatalf("handler got %d events (%+v); want one of one record", len(evs), evs)
	}
	r := evs[0].Records[0]
	if r.S3.Bucket.Name != "clips-bucket" || r.S3.Object.URLDecodedKey != key || r.S3.Object.Size != int64(len(body)) {
		t.Errorf("record names %s/%s of %d bytes; want clips-bucket/%s of %d", r.S3.Bucket.Name, r.S3.Object.URLDecodedKey, r.S3.Object.Size, key, len(body))
	}
	if strings.Contains(logs.String(), "refused") {
		t.Errorf("the receiver refused a request of MinIO: %s", logs.String())
	}

	rc.mu.Lock()
	rc.err = errors.New("processor failed")
	rc.mu.Unlock()
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("clips-bucket"), Key: aws.String("clips/failing"), Body: strings.NewReader(body)}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(logs.String(), "processor failed"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the failure was not logged within 15 s: %s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "clips-bucket/clips/failing") {
		t.Errorf("the failure's log line does not name the object: %s", logs.String())
	}
	if strings.Contains(logs.String(), testToken) {
		t.Errorf("the log shows the token: %s", logs.String())
	}
}

// FuzzReceiver sends arbitrary bodies and Authorization headers: the
// receiver never panics, answers one of its statuses, runs the handler
// only for an authorized S3 event with records, and answers 204 exactly
// when it ran.
func FuzzReceiver(f *testing.F) {
	event := minioEvent(f)
	bearer := "Bearer " + testToken
	f.Add(event, bearer)
	f.Add(event, "")
	f.Add(event, "Bearer x")
	f.Add([]byte(`{"Records":[{"s3":{"bucket":{"name":"b"},"object":{"key":"clips%2Fa","size":1}}}]}`), bearer)
	f.Add([]byte(`{"Records":[{"eventTime":"not a time"}]}`), bearer)
	f.Add([]byte(`{"Records":null}`), bearer)
	f.Add([]byte(`{"Records":[{"s3":{"object":{"key":"%"}}}]}`), bearer)
	f.Add([]byte(`null`), bearer)
	f.Add([]byte{0xff, 0xfe}, bearer)
	f.Fuzz(func(t *testing.T, body []byte, auth string) {
		rc := &recorder{}
		h := Receiver(testToken, rc.handle, nil)
		req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		req.Header["Authorization"] = []string{auth}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		evs := rc.snapshot()
		switch w.Code {
		case 204:
			if auth != bearer {
				t.Fatalf("204 for Authorization %q", auth)
			}
			if len(evs) != 1 || len(evs[0].Records) == 0 {
				t.Fatalf("204 but the handler got %d events", len(evs))
			}
		case 400, 401, 413:
			if len(evs) != 0 {
				t.Fatalf("%d but the handler ran", w.Code)
			}
		default:
			t.Fatalf("status %d; want 204, 400, 401 or 413 (the handler does not fail)", w.Code)
		}
		if w.Code == 401 && auth == bearer {
			t.Fatal("401 for the right token")
		}
		_, _ = io.Copy(io.Discard, w.Body)
	})
}
