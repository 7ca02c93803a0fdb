package rekognition

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// The fake Rekognition: an httptest server that checks each request as
// Amazon Rekognition would see it and answers with recorded DetectLabels
// bodies (testdata/) or errors in Rekognition's awsJson1_1 error shape.
// It is a test double of the wire protocol only: what DetectLabels finds
// in an image comes from the fixtures, never from the image. The
// Detector's requests are the SDK's own client's, so its serializer,
// deserializer, error parsing and retryer are what the tests exercise.

const (
	contentType = "application/x-amz-json-1.1"
	target      = "RekognitionService.DetectLabels"
	testRegion  = "us-east-1"
	testKey     = "AKIDEXAMPLE"
	testSecret  = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
)

// reply is one answer of the fake.
type reply struct {
	status int
	body   []byte
	// errorType, when set, is sent as the X-Amzn-ErrorType header.
	errorType string
	// hold, when set, keeps the request open until it is closed or the
	// client goes away.
	hold chan struct{}
	// hangup drops the connection without an answer.
	hangup bool
}

// received is one request as the fake decoded it.
type received struct {
	image         []byte
	maxLabels     int
	minConfidence float64
	features      []string
}

type fakeRekognition struct {
	t   *testing.T
	srv *httptest.Server
	// answer chooses the reply to the n-th request (from 1).
	answer func(n int, in received) reply

	mu          sync.Mutex
	requests    []received
	inFlight    int
	maxInFlight int
	// gate, when set, holds each request until gateSize of them are in
	// flight together (or one second passed), so a concurrency bound is
	// reached before any request ends.
	gate     chan struct{}
	gateSize int
	// delay is added to every answer, so that requests overlap.
	delay time.Duration
}

// newFake starts a fake Rekognition that answers with answer.
func newFake(t *testing.T, answer func(n int, in received) reply) *fakeRekognition {
	t.Helper()
	f := &fakeRekognition{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// count returns how many requests reached the fake.
func (f *fakeRekognition) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// request returns the i-th request (from 0) the fake decoded.
func (f *fakeRekognition) request(i int) received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

// peak returns the most requests that were in flight at once.
func (f *fakeRekognition) peak() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxInFlight
}

func (f *fakeRekognition) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read request body: %v", err)
		return
	}
	if rep, ok := f.check(r, body); !ok {
		f.write(w, rep)
		return
	}
	in, err := decodeInput(body)
	if err != nil {
		f.t.Errorf("request body: %v\n%s", err, clip500(body))
		f.write(w, awsError(http.StatusBadRequest, "SerializationException", err.Error()))
		return
	}

	f.mu.Lock()
	f.requests = append(f.requests, in)
	n := len(f.requests)
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	gate := f.gate
	if gate != nil && f.inFlight == f.gateSize {
		close(gate)
		f.gate = nil
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if gate != nil {
		select {
		case <-gate:
		case <-time.After(time.Second):
		}
	}

	time.Sleep(f.delay)
	rep := f.answer(n, in)
	if rep.hold != nil {
		select {
		case <-rep.hold:
		case <-r.Context().Done():
			return
		}
		if rep.status == 0 { // released at the test's end: nobody waits
			return
		}
	}
	f.write(w, rep)
}

func (f *fakeRekognition) write(w http.ResponseWriter, rep reply) {
	if rep.hangup {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			f.t.Errorf("hijack: %v", err)
			return
		}
		conn.Close()
		return
	}
	w.Header().Set("X-Amzn-RequestId", "c5d1f2a6-0e7b-4d8e-9f10-EXAMPLE11111")
	w.Header().Set("Content-Type", contentType)
	if rep.errorType != "" {
		w.Header().Set("X-Amzn-ErrorType", rep.errorType)
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(rep.body)))
	w.WriteHeader(rep.status)
	w.Write(rep.body)
}

// check verifies the request line, headers and the signature's credential
// scope (the test key, region and the service "rekognition") as
// Rekognition does; a failure is answered as Rekognition answers it. The
// signature itself is the SDK's signer's.
func (f *fakeRekognition) check(r *http.Request, body []byte) (reply, bool) {
	switch {
	case r.Method != http.MethodPost:
		f.t.Errorf("method %s; want POST", r.Method)
		return awsError(http.StatusBadRequest, "UnknownOperationException", ""), false
	case r.URL.Path != "/" || r.URL.RawQuery != "":
		f.t.Errorf("path %q; want /", r.URL.RequestURI())
		return awsError(http.StatusBadRequest, "UnknownOperationException", ""), false
	case r.Header.Get("X-Amz-Target") != target:
		f.t.Errorf("X-Amz-Target %q; want %q", r.Header.Get("X-Amz-Target"), target)
		return awsError(http.StatusBadRequest, "UnknownOperationException", ""), false
	case r.Header.Get("Content-Type") != contentType:
		f.t.Errorf("Content-Type %q; want %q", r.Header.Get("Content-Type"), contentType)
		return awsError(http.StatusBadRequest, "SerializationException", "Start of structure or map found where not expected."), false
	}
	if err := checkScope(r.Header.Get("Authorization"), "rekognition"); err != nil {
		f.t.Errorf("signature: %v", err)
		return awsError(http.StatusBadRequest, "InvalidSignatureException", err.Error()), false
	}
	return reply{}, true
}

// checkScope checks that auth is a SigV4 Authorization header whose
// credential scope names the test key, region and service, and which
// signs the headers Rekognition needs signed.
func checkScope(auth, service string) error {
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return fmt.Errorf("Authorization %q is not SigV4", auth)
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		fields[k] = v
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[0] != testKey || scope[2] != testRegion || scope[3] != service || scope[4] != "aws4_request" {
		return fmt.Errorf("credential scope %q; want %s/DATE/%s/%s/aws4_request", fields["Credential"], testKey, testRegion, service)
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	for _, h := range []string{"content-type", "host", "x-amz-date", "x-amz-target"} {
		if !slices.Contains(signed, h) {
			return fmt.Errorf("SignedHeaders %q lacks %s", fields["SignedHeaders"], h)
		}
	}
	if fields["Signature"] == "" {
		return errors.New("no signature")
	}
	return nil
}

// decodeInput decodes a DetectLabels request body strictly: exactly the
// members Rekognition's model names, with their exact case, the image as
// standard base64 bytes and no S3 object.
func decodeInput(body []byte) (received, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return received{}, err
	}
	for k := range top {
		if !slices.Contains([]string{"Image", "Features", "MaxLabels", "MinConfidence"}, k) {
			return received{}, fmt.Errorf("unexpected member %q", k)
		}
	}
	var image map[string]json.RawMessage
	if err := json.Unmarshal(top["Image"], &image); err != nil || len(image) != 1 || image["Bytes"] == nil {
		return received{}, fmt.Errorf("Image %s: want exactly {\"Bytes\": base64}", top["Image"])
	}
	var b64 string
	if err := json.Unmarshal(image["Bytes"], &b64); err != nil {
		return received{}, fmt.Errorf("Image.Bytes: %v", err)
	}
	var in received
	var err error
	if in.image, err = base64.StdEncoding.Strict().DecodeString(b64); err != nil {
		return received{}, fmt.Errorf("Image.Bytes is not standard base64: %v", err)
	}
	if err := json.Unmarshal(top["Features"], &in.features); err != nil {
		return received{}, fmt.Errorf("Features: %v", err)
	}
	if err := json.Unmarshal(top["MaxLabels"], &in.maxLabels); err != nil {
		return received{}, fmt.Errorf("MaxLabels: %v", err)
	}
	if err := json.Unmarshal(top["MinConfidence"], &in.minConfidence); err != nil {
		return received{}, fmt.Errorf("MinConfidence: %v", err)
	}
	return in, nil
}

// awsError is an error answer in Rekognition's shape: the code in the
// X-Amzn-ErrorType header and in the body's __type, with Code and
// Message as Rekognition writes them.
func awsError(status int, code, message string) reply {
	body, _ := json.Marshal(map[string]string{"__type": code, "Code": code, "Message": message})
	return reply{status: status, errorType: code, body: body}
}

// fixture returns a 200 answer with testdata/name.
func fixture(t *testing.T, name string) reply {
	t.Helper()
	body, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return reply{status: http.StatusOK, body: body}
}

// zeroBackoff is the retryer's backoff in tests: no wait, and each
// failed attempt it was asked about recorded.
type zeroBackoff struct {
	mu       sync.Mutex
	attempts []int
	errs     []error // the error of each attempt in attempts
}

func (b *zeroBackoff) BackoffDelay(attempt int, err error) (time.Duration, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.attempts = append(b.attempts, attempt)
	b.errs = append(b.errs, err)
	return 0, nil
}

// errors returns the error of each attempt the retryer backed off after.
func (b *zeroBackoff) errors() []error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.errs)
}

// waits returns the attempts after which the retryer backed off.
func (b *zeroBackoff) waits() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.attempts)
}

// newDetector returns a Detector with the test credentials at f, a zero
// backoff and a long attempt timeout (when o sets none).
func newDetector(t *testing.T, f *fakeRekognition, o Options) *Detector {
	t.Helper()
	cfg := aws.Config{
		Region:      testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
		HTTPClient:  f.srv.Client(),
	}
	o.Endpoint = f.srv.URL
	if o.Backoff == nil {
		o.Backoff = new(zeroBackoff)
	}
	if o.AttemptTimeout == 0 {
		// A 5 MB frame under -race on a loaded machine can take longer
		// than the default's 10 s; the timeout tests set their own.
		o.AttemptTimeout = 5 * time.Minute
	}
	d, err := New(cfg, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return d
}

// jpegOf returns bytes that stand for a frame: the fake never decodes
// them, Rekognition would.
func jpegOf(name string) []byte {
	return append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, name...)
}

func clip500(b []byte) []byte {
	if len(b) > 500 {
		return b[:500]
	}
	return b
}
