package sqsqueue

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// sqsServer speaks SQS's AWS JSON 1.0 protocol for SendMessageBatch, as
// the service does: the action in X-Amz-Target, a SigV4-signed POST, the
// result's Successful entries with the body's MD5 (which the SDK checks)
// and the entries it refuses in Failed.
type sqsServer struct {
	*httptest.Server
	mu       sync.Mutex
	received []entry
	refuse   map[string]bool // bodies answered as Failed
}

type entry struct {
	Id           string
	MessageBody  string
	DelaySeconds int32
}

func newSQSServer(t *testing.T) *sqsServer {
	s := &sqsServer{refuse: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fail := func(status int, typ, msg string) {
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.sqs#" + typ, "message": msg})
		}
		if r.Method != http.MethodPost || r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessageBatch" ||
			r.Header.Get("Content-Type") != "application/x-amz-json-1.0" ||
			!strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKID/") {
			fail(400, "InvalidAction", "unexpected request "+r.Header.Get("X-Amz-Target"))
			return
		}
		var in struct {
			QueueUrl string
			Entries  []entry
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.QueueUrl != "https://sqs.us-east-1.amazonaws.com/123456789012/webhook-attempts" {
			fail(400, "InvalidAddress", "bad queue")
			return
		}
		if len(in.Entries) == 0 || len(in.Entries) > 10 {
			fail(400, "TooManyEntriesInBatchRequest", "entries")
			return
		}
		type ok struct{ Id, MessageId, MD5OfMessageBody string }
		type failed struct {
			Id, Code, Message string
			SenderFault       bool
		}
		out := struct {
			Successful []ok
			Failed     []failed
		}{Successful: []ok{}, Failed: []failed{}}
		s.mu.Lock()
		for i, e := range in.Entries {
			if s.refuse[e.MessageBody] {
				out.Failed = append(out.Failed, failed{Id: e.Id, Code: "InternalError", Message: "try again"})
				continue
			}
			s.received = append(s.received, e)
			sum := md5.Sum([]byte(e.MessageBody))
			out.Successful = append(out.Successful, ok{Id: e.Id, MessageId: "m-" + strconv.Itoa(i), MD5OfMessageBody: hex.EncodeToString(sum[:])})
		}
		s.mu.Unlock()
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}

func testQueue(s *sqsServer) *Queue {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")}
	return New(cfg, aws.String(s.URL), "https://sqs.us-east-1.amazonaws.com/123456789012/webhook-attempts")
}

// TestSendBatchesAndDelays: 23 bodies go out in batches of at most ten,
// each once, with the delay rounded up to whole seconds.
func TestSendBatchesAndDelays(t *testing.T) {
	s := newSQSServer(t)
	var bodies []string
	for i := range 23 {
		bodies = append(bodies, `{"n":`+strconv.Itoa(i)+`}`)
	}
	if err := testQueue(s).Send(context.Background(), bodies, 4500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if len(s.received) != 23 {
		t.Fatalf("%d messages received; want 23", len(s.received))
	}
	for i, e := range s.received {
		if e.MessageBody != bodies[i] || e.DelaySeconds != 5 {
			t.Errorf("message %d: %q delay %d; want %q delay 5", i, e.MessageBody, e.DelaySeconds, bodies[i])
		}
	}
	if err := testQueue(s).Send(context.Background(), []string{"x"}, time.Hour); err != nil || s.received[23].DelaySeconds != 900 {
		t.Errorf("an hour's delay: %v, %d s; want SQS's 900 s", err, s.received[23].DelaySeconds)
	}
}

// TestSendReportsPartialFailures: the entries SQS lists in Failed are an
// error naming them; the others were sent.
func TestSendReportsPartialFailures(t *testing.T) {
	s := newSQSServer(t)
	s.refuse["b"] = true
	err := testQueue(s).Send(context.Background(), []string{"a", "b", "c"}, 0)
	if err == nil || !strings.Contains(err.Error(), "message 1 not sent") || !strings.Contains(err.Error(), "InternalError") {
		t.Errorf("Send = %v; want an error naming entry 1 and its code", err)
	}
	if len(s.received) != 2 || s.received[0].MessageBody != "a" || s.received[1].MessageBody != "c" {
		t.Errorf("received %+v; want a and c", s.received)
	}
}

// TestSendReportsAFailedCall: a refused call (here, an unknown queue) is
// an error.
func TestSendReportsAFailedCall(t *testing.T) {
	s := newSQSServer(t)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")}
	q := New(cfg, aws.String(s.URL), "https://sqs.us-east-1.amazonaws.com/123456789012/other")
	if err := q.Send(context.Background(), []string{"a"}, 0); err == nil || !strings.Contains(err.Error(), "InvalidAddress") {
		t.Errorf("Send to an unknown queue = %v; want InvalidAddress", err)
	}
}
