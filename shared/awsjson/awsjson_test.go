package awsjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/moveleads/partnerapi/shared/awsjson/awsjsontest"
)

// The stand-in: an httptest server that checks each request as an AWS
// JSON 1.1 service does (POST to its path, Content-Type, X-Amz-Target, a
// SigV4 signature the SDK's signer computes again with the secret key it
// knows) and answers as the test says. A request that fails the checks is
// answered as AWS answers it, so the checks can fail a test.

const (
	testRegion  = "us-east-1"
	testKey     = "AKIDEXAMPLE"
	testSecret  = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	testSigning = "example"
	testTarget  = "ExampleService_20240101.GetThing"
	testBody    = `{"ThingId":"t-1"}`
	requestID   = "c5d1f2a6-0e7b-4d8e-9f10-EXAMPLE11111"
)

type standIn struct {
	t   *testing.T
	srv *httptest.Server
	// path is where the service is (default "/").
	path string
	// answer writes the answer to the n-th request (from 1), once it
	// passed the checks.
	answer func(n int, w http.ResponseWriter, r *http.Request)

	mu       sync.Mutex
	requests int
	bodies   [][]byte
}

func newStandIn(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *standIn {
	t.Helper()
	s := &standIn{t: t, path: "/", answer: answer}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// count returns how many requests reached the stand-in.
func (s *standIn) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("read request body: %v", err)
		return
	}
	s.mu.Lock()
	s.requests++
	s.bodies = append(s.bodies, body)
	n := s.requests
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodPost || r.URL.Path != s.path || r.URL.RawQuery != "":
		s.t.Errorf("%s %s; want POST %s", r.Method, r.URL.RequestURI(), s.path)
		writeError(w, 404, "UnknownOperationException", "")
		return
	case r.Header.Get("Content-Type") != "application/x-amz-json-1.1":
		s.t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
		writeError(w, 400, "SerializationException", "")
		return
	case r.Header.Get("X-Amz-Target") != testTarget:
		s.t.Errorf("X-Amz-Target %q; want %q", r.Header.Get("X-Amz-Target"), testTarget)
		writeError(w, 400, "UnknownOperationException", "")
		return
	}
	creds := aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}
	if err := awsjsontest.VerifySignature(r, body, creds, testSigning, testRegion); err != nil {
		writeError(w, 403, "InvalidSignatureException", err.Error())
		return
	}
	s.answer(n, w, r)
}

// writeError answers in the protocol's error shape: the code in the
// X-Amzn-ErrorType header and in the body's __type.
func writeError(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(map[string]string{"__type": code, "message": message})
	writeAnswer(w, status, code, string(body))
}

// writeAnswer answers with status, an X-Amzn-ErrorType header when
// errorType is not "", and body.
func writeAnswer(w http.ResponseWriter, status int, errorType, body string) {
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	if errorType != "" {
		w.Header().Set("X-Amzn-ErrorType", errorType)
	}
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// hangUp drops the connection without an answer.
func hangUp(t *testing.T, w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// ok answers 200 with {"Thing":"found"}.
func ok(_ int, w http.ResponseWriter, _ *http.Request) {
	writeAnswer(w, 200, "", `{"Thing":"found"}`)
}

// waits records the waits between attempts instead of sleeping them.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.d)
}

func testConfig(s *standIn, secret string) aws.Config {
	return aws.Config{
		Region:      testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(testKey, secret, ""),
		HTTPClient:  s.srv.Client(),
	}
}

// newClient returns a Client of the test service at s, with the test
// credentials and, unless o sets its own, a Sleep recorded in w.
func newClient(t *testing.T, s *standIn, o Options, w *waits) *Client {
	t.Helper()
	if o.SigningName == "" {
		o.SigningName = testSigning
	}
	if o.Service == "" {
		o.Service = "Example"
	}
	if o.Endpoint == "" {
		o.Endpoint = s.srv.URL
	}
	if o.Clock.Sleep == nil && w != nil {
		o.Clock.Sleep = w.sleep
	}
	c, err := New(testConfig(s, testSecret), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func TestCallSendsASignedRequest(t *testing.T) {
	s := newStandIn(t, ok)
	s.path = "/proxy/example/"
	c := newClient(t, s, Options{Endpoint: s.srv.URL + "/proxy/example"}, nil)
	got, err := c.Call(context.Background(), testTarget, []byte(testBody))
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if string(got) != `{"Thing":"found"}` {
		t.Errorf("answer %q; want the stand-in's body", got)
	}
	if s.count() != 1 || string(s.bodies[0]) != testBody {
		t.Errorf("%d requests, first body %q; want 1, %q", s.count(), s.bodies, testBody)
	}
}

// A wrong secret key or signing name gives a signature the stand-in
// refuses, as AWS does: the stand-in's check can fail. The refusal is
// final.
func TestBadSignatureIsRefused(t *testing.T) {
	for name, o := range map[string]struct {
		secret, signing string
	}{
		"wrong secret key":   {"not-the-secret", testSigning},
		"wrong signing name": {testSecret, "rekognition"},
	} {
		t.Run(name, func(t *testing.T) {
			s := newStandIn(t, ok)
			c, err := New(testConfig(s, o.secret), Options{SigningName: o.signing, Service: "Example", Endpoint: s.srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Call(context.Background(), testTarget, []byte(testBody))
			var re *ResponseError
			if !errors.As(err, &re) || re.Status != 403 || re.Code != "InvalidSignatureException" {
				t.Errorf("error %v; want a 403 InvalidSignatureException", err)
			}
			if s.count() != 1 {
				t.Errorf("%d requests; want 1", s.count())
			}
		})
	}
}

// Each error answer as the service may shape it, read into a
// ResponseError.
func TestErrorAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, header, body string
		status             int
		code, message      string
	}{
		{"header and __type", "AccessDeniedException", `{"__type":"AccessDeniedException","message":"not allowed"}`, 400, "AccessDeniedException", "not allowed"},
		{"the header wins over __type", "AccessDeniedException", `{"__type":"InternalServerError"}`, 400, "AccessDeniedException", ""},
		{"__type wins over code", "", `{"__type":"ResourceNotFoundException","code":"Other"}`, 400, "ResourceNotFoundException", ""},
		{"namespaced __type, no header", "", `{"__type":"com.amazonaws.secretsmanager#ResourceNotFoundException","message":"can't find"}`, 400, "ResourceNotFoundException", "can't find"},
		{"header with a namespace and a suffix", "aws.example#ValidationException:http://internal.amazon.com/coral/", `{}`, 400, "ValidationException", ""},
		{"Code and Message, Rekognition's case", "", `{"Code":"InvalidParameterException","Message":"Request has Invalid Parameters"}`, 400, "InvalidParameterException", "Request has Invalid Parameters"},
		{"no body", "", ``, 403, "Forbidden", ""},
		{"a proxy's page", "", `<html>Bad Request</html>`, 400, "BadRequest", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				writeAnswer(w, tc.status, tc.header, tc.body)
			})
			_, err := newClient(t, s, Options{}, new(waits)).Call(context.Background(), testTarget, []byte(testBody))
			var re *ResponseError
			if !errors.As(err, &re) {
				t.Fatalf("error %v; want a ResponseError", err)
			}
			want := ResponseError{Service: "Example", Status: tc.status, Code: tc.code, Message: tc.message, RequestID: requestID}
			if *re != want {
				t.Errorf("error %+v; want %+v", *re, want)
			}
			if s.count() != 1 {
				t.Errorf("%d requests; want 1 (a %d is final)", s.count(), tc.status)
			}
		})
	}
}

func TestResponseErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    ResponseError
		want string
	}{
		{ResponseError{Service: "Rekognition", Status: 400, Code: "ThrottlingException", Message: "Rate exceeded", RequestID: "r-1"}, "Rekognition answered 400 ThrottlingException: Rate exceeded (request id r-1)"},
		{ResponseError{Service: "Secrets Manager", Status: 503, Code: "ServiceUnavailable"}, "Secrets Manager answered 503 ServiceUnavailable"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q; want %q", got, tc.want)
		}
	}
	// Service defaults to the signing name.
	s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writeError(w, 400, "ValidationException", "bad") })
	c, err := New(testConfig(s, testSecret), Options{SigningName: testSigning, Endpoint: s.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Call(context.Background(), testTarget, []byte(testBody))
	if want := "example answered 400 ValidationException: bad (request id " + requestID + ")"; err == nil || err.Error() != want {
		t.Errorf("error %v; want %q", err, want)
	}
}

func TestReadError(t *testing.T) {
	for _, tc := range []struct {
		name, header, body string
		code, message      string
	}{
		{"header and body", "ThrottlingException", `{"__type":"ThrottlingException","Code":"ThrottlingException","Message":"Rate exceeded"}`, "ThrottlingException", "Rate exceeded"},
		{"the header wins", "AccessDeniedException", `{"__type":"InternalServerError"}`, "AccessDeniedException", ""},
		{"__type with a namespace", "", `{"__type":"com.amazonaws.rekognition#InvalidImageFormatException","message":"Request has invalid image format"}`, "InvalidImageFormatException", "Request has invalid image format"},
		{"code only", "", `{"code":"ImageTooLargeException"}`, "ImageTooLargeException", ""},
		{"header with a suffix", "ThrottlingException:http://internal.amazon.com/coral/com.amazonaws.rekognition/", ``, "ThrottlingException", ""},
		{"a message that is no string", "", `{"__type":"InternalServerError","message":{"text":"x"}}`, "InternalServerError", ""},
		{"a __type that is no string", "", `{"__type":7,"code":"ThrottlingException","Message":"m"}`, "ThrottlingException", "m"},
		{"no JSON", "", `<html>503</html>`, "ServiceUnavailable", ""},
		{"cut short", "", `{"__type":"ThrottlingException","message":"Rate exc`, "ServiceUnavailable", ""},
		{"only a namespace", "com.amazonaws.x#", ``, "ServiceUnavailable", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))}
			if tc.header != "" {
				resp.Header.Set("X-Amzn-ErrorType", tc.header)
			}
			resp.Header.Set("X-Amzn-RequestId", "r-1")
			e := readError("Test", resp)
			if e.Code != tc.code || e.Message != tc.message || e.RequestID != "r-1" || e.Status != 503 || e.Service != "Test" {
				t.Errorf("readError = %+v; want %q, %q, r-1", *e, tc.code, tc.message)
			}
		})
	}
}

// An error answer is read up to maxErrorBody: a longer one is cut, and
// what the body says is lost, not the header's code.
func TestErrorBodyIsBounded(t *testing.T) {
	long := `{"message":"` + strings.Repeat("x", maxErrorBody) + `"}`
	s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		writeAnswer(w, 400, "ValidationException", long)
	})
	_, err := newClient(t, s, Options{}, nil).Call(context.Background(), testTarget, []byte(testBody))
	var re *ResponseError
	if !errors.As(err, &re) || re.Code != "ValidationException" || re.Message != "" {
		t.Errorf("error %v; want ValidationException without the cut message", err)
	}
}

func TestAnswerSizeIsBounded(t *testing.T) {
	const limit = 64
	for _, size := range []int{limit, limit + 1} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			body := `{"x":"` + strings.Repeat("a", size-8) + `"}`
			if len(body) != size {
				t.Fatalf("body of %d bytes; want %d", len(body), size)
			}
			s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writeAnswer(w, 200, "", body) })
			w := new(waits)
			got, err := newClient(t, s, Options{MaxAnswer: limit}, w).Call(context.Background(), testTarget, []byte(testBody))
			if size <= limit {
				if err != nil || string(got) != body {
					t.Errorf("Call = %q, %v; want the %d-byte body", got, err, size)
				}
				return
			}
			if !errors.Is(err, ErrAnswerTooLarge) || got != nil {
				t.Errorf("Call = %q, %v; want ErrAnswerTooLarge", got, err)
			}
			if s.count() != 1 || len(w.list()) != 0 {
				t.Errorf("%d requests, %d waits; want 1, 0 (not retried)", s.count(), len(w.list()))
			}
		})
	}
}

// Failures a later attempt may not meet are retried, then the answer is
// returned.
func TestRetried(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(w http.ResponseWriter)
	}{
		{"500 InternalServerError", func(w http.ResponseWriter) { writeError(w, 500, "InternalServerError", "") }},
		{"503 without a body", func(w http.ResponseWriter) { writeAnswer(w, 503, "", "") }},
		{"502 from a proxy", func(w http.ResponseWriter) { writeAnswer(w, 502, "", "<html>Bad Gateway</html>") }},
		{"429 without a code", func(w http.ResponseWriter) { writeAnswer(w, 429, "", "") }},
		{"400 ThrottlingException", func(w http.ResponseWriter) { writeError(w, 400, "ThrottlingException", "Rate exceeded") }},
		{"400 namespaced ProvisionedThroughputExceededException", func(w http.ResponseWriter) {
			writeAnswer(w, 400, "", `{"__type":"com.amazonaws.rekognition#ProvisionedThroughputExceededException"}`)
		}},
		{"400 LimitExceededException", func(w http.ResponseWriter) { writeError(w, 400, "LimitExceededException", "") }},
		{"400 TooManyRequestsException", func(w http.ResponseWriter) { writeError(w, 400, "TooManyRequestsException", "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n <= 2 {
					tc.fail(w)
					return
				}
				ok(n, w, r)
			})
			w := new(waits)
			got, err := newClient(t, s, Options{}, w).Call(context.Background(), testTarget, []byte(testBody))
			if err != nil || string(got) != `{"Thing":"found"}` {
				t.Errorf("Call = %q, %v; want the third answer", got, err)
			}
			if s.count() != 3 || len(w.list()) != 2 {
				t.Errorf("%d requests, %d waits; want 3, 2", s.count(), len(w.list()))
			}
		})
	}
	t.Run("connection dropped", func(t *testing.T) {
		s := newStandIn(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				hangUp(t, w)
				return
			}
			ok(n, w, r)
		})
		got, err := newClient(t, s, Options{}, new(waits)).Call(context.Background(), testTarget, []byte(testBody))
		if err != nil || got == nil || s.count() != 2 {
			t.Errorf("Call = %q, %v after %d requests; want the answer after 2", got, err, s.count())
		}
	})
	t.Run("attempt timed out", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		s := newStandIn(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				select {
				case <-hold:
				case <-r.Context().Done():
				}
				return
			}
			ok(n, w, r)
		})
		c := newClient(t, s, Options{Retry: Retry{AttemptTimeout: 100 * time.Millisecond}}, new(waits))
		// Without the attempt's timeout, the call ends with ctx's instead.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		got, err := c.Call(ctx, testTarget, []byte(testBody))
		if err != nil || got == nil || s.count() != 2 {
			t.Errorf("Call = %q, %v after %d requests; want the answer after 2", got, err, s.count())
		}
	})
}

// Every other answer is final: one request, no wait.
func TestNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		code    string
		noRetry []string
	}{
		{"400 ValidationException", 400, "ValidationException", nil},
		{"400 ResourceNotFoundException", 400, "ResourceNotFoundException", nil},
		{"403 without a code", 403, "", nil},
		// NoRetry wins over the status and over the throttling codes.
		{"a final code answered 500", 500, "ImageTooLargeException", []string{"ImageTooLargeException", "AccessDeniedException"}},
		{"a final code answered 503", 503, "AccessDeniedException", []string{"ImageTooLargeException", "AccessDeniedException"}},
		{"a throttling code made final", 400, "ThrottlingException", []string{"ThrottlingException"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writeError(w, tc.status, tc.code, "") })
			o := Options{}
			if tc.noRetry != nil {
				o.NoRetry = func(code string) bool { return slices.Contains(tc.noRetry, code) }
			}
			w := new(waits)
			_, err := newClient(t, s, o, w).Call(context.Background(), testTarget, []byte(testBody))
			var re *ResponseError
			if !errors.As(err, &re) || re.Status != tc.status {
				t.Errorf("error %v; want a %d ResponseError", err, tc.status)
			}
			if s.count() != 1 || len(w.list()) != 0 {
				t.Errorf("%d requests, %d waits; want 1, 0", s.count(), len(w.list()))
			}
		})
	}
	// NoRetry is asked about the code only: others are still retried.
	t.Run("a code NoRetry does not name", func(t *testing.T) {
		s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writeError(w, 500, "InternalServerError", "") })
		var asked []string
		o := Options{Retry: Retry{MaxAttempts: 3}, NoRetry: func(code string) bool { asked = append(asked, code); return code == "AccessDeniedException" }}
		_, err := newClient(t, s, o, new(waits)).Call(context.Background(), testTarget, []byte(testBody))
		if err == nil || s.count() != 3 || !slices.Equal(asked, []string{"InternalServerError", "InternalServerError", "InternalServerError"}) {
			t.Errorf("error %v after %d requests, NoRetry asked %q; want 3 requests, asked about each", err, s.count(), asked)
		}
	})
	t.Run("credentials fail", func(t *testing.T) {
		s := newStandIn(t, ok)
		calls := 0
		cfg := testConfig(s, testSecret)
		cfg.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			calls++
			return aws.Credentials{}, errors.New("no role")
		})
		c, err := New(cfg, Options{SigningName: testSigning, Endpoint: s.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Call(context.Background(), testTarget, []byte(testBody))
		if err == nil || !strings.Contains(err.Error(), "retrieve credentials: no role") || calls != 1 || s.count() != 0 {
			t.Errorf("error %v after %d retrievals, %d requests; want the credentials' error after 1, 0", err, calls, s.count())
		}
	})
}

func TestRetriesEnd(t *testing.T) {
	t.Run("after MaxAttempts", func(t *testing.T) {
		s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			writeError(w, 500, "ThrottlingException", "Rate exceeded")
		})
		w := new(waits)
		_, err := newClient(t, s, Options{Retry: Retry{MaxAttempts: 4}}, w).Call(context.Background(), testTarget, []byte(testBody))
		var re *ResponseError
		if !errors.As(err, &re) || re.Code != "ThrottlingException" || re.Status != 500 || re.RequestID != requestID {
			t.Fatalf("error %v; want the last ThrottlingException", err)
		}
		if s.count() != 4 || len(w.list()) != 3 {
			t.Errorf("%d requests, %d waits; want 4, 3", s.count(), len(w.list()))
		}
		if !strings.Contains(err.Error(), "gave up after 4 attempts") {
			t.Errorf("error %q; want the attempts", err)
		}
	})
	t.Run("connection dropped every time", func(t *testing.T) {
		s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) { hangUp(t, w) })
		_, err := newClient(t, s, Options{Retry: Retry{MaxAttempts: 2}}, new(waits)).Call(context.Background(), testTarget, []byte(testBody))
		var te *transportError
		if !errors.As(err, &te) || s.count() != 2 || !strings.Contains(err.Error(), "gave up after 2 attempts") {
			t.Errorf("error %v after %d requests; want a transport error after 2", err, s.count())
		}
	})
	t.Run("out of MaxElapsed", func(t *testing.T) {
		s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writeError(w, 500, "InternalServerError", "") })
		clock := time.Now()
		var slept []time.Duration
		o := Options{
			Retry: Retry{MaxAttempts: 10, BaseDelay: 400 * time.Millisecond, MaxDelay: time.Hour, MaxElapsed: time.Second},
			Clock: Clock{
				Now: func() time.Time { return clock },
				Sleep: func(_ context.Context, w time.Duration) error {
					clock = clock.Add(w)
					slept = append(slept, w)
					return nil
				},
				Jitter: func(n int64) int64 { return n - 1 },
			},
		}
		_, err := newClient(t, s, o, nil).Call(context.Background(), testTarget, []byte(testBody))
		// Waits of 400 ms, then 800 ms would end at 1.2 s: two attempts.
		if s.count() != 2 || err == nil || !strings.Contains(err.Error(), "out of the 1s budget") {
			t.Errorf("%d requests, error %v; want 2 and the budget's error", s.count(), err)
		}
		if !slices.Equal(slept, []time.Duration{400 * time.Millisecond}) {
			t.Errorf("slept %v; want [400ms]", slept)
		}
	})
}

// The waits grow exponentially from BaseDelay, capped by MaxDelay.
func TestBackoffWaits(t *testing.T) {
	s := newStandIn(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n <= 3 {
			writeError(w, 400, "ThrottlingException", "")
			return
		}
		ok(n, w, r)
	})
	w := new(waits)
	o := Options{
		Retry: Retry{BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond},
		Clock: Clock{Jitter: func(n int64) int64 { return n - 1 }}, // the top of each range
	}
	if _, err := newClient(t, s, o, w).Call(context.Background(), testTarget, []byte(testBody)); err != nil {
		t.Fatalf("Call: %v", err)
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	if got := w.list(); !slices.Equal(got, want) || s.count() != 4 {
		t.Errorf("waits %v after %d requests; want %v after 4", got, s.count(), want)
	}
}

func TestBackoffIsJitteredWithinItsCap(t *testing.T) {
	c := &Client{o: Options{Retry: Retry{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}.withDefaults()}}
	var draws []int64
	c.o.Clock.Jitter = func(n int64) int64 { draws = append(draws, n); return 0 }
	for attempt := 1; attempt <= 40; attempt++ {
		c.backoff(attempt)
	}
	if len(draws) != 40 {
		t.Fatalf("%d draws; want 40", len(draws))
	}
	for i, n := range draws {
		want := min(int64(100*time.Millisecond)<<i, int64(time.Second)) + 1
		if i >= 32 {
			want = int64(time.Second) + 1
		}
		if n != want {
			t.Fatalf("attempt %d drew from [0, %d); want [0, %d)", i+1, n, want)
		}
	}
	c.o.Clock.Jitter = func(n int64) int64 { return n / 2 }
	if got := c.backoff(2); got != 100*time.Millisecond {
		t.Errorf("backoff(2) with a middle draw = %v; want 100ms", got)
	}
}

func TestContextCancellation(t *testing.T) {
	t.Run("during a request", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		arrived := make(chan struct{}, 1)
		s := newStandIn(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
			arrived <- struct{}{}
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		start := time.Now()
		_, err := newClient(t, s, Options{}, new(waits)).Call(ctx, testTarget, []byte(testBody))
		if !errors.Is(err, context.Canceled) || s.count() != 1 {
			t.Errorf("error %v after %d requests; want context.Canceled after 1", err, s.count())
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("Call took %v after cancellation", time.Since(start))
		}
	})
	t.Run("during a backoff", func(t *testing.T) {
		s := newStandIn(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writeError(w, 400, "ThrottlingException", "") })
		o := Options{
			Retry: Retry{BaseDelay: time.Hour, MaxDelay: time.Hour, MaxElapsed: 2 * time.Hour},
			Clock: Clock{Jitter: func(n int64) int64 { return n - 1 }},
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := newClient(t, s, o, nil).Call(ctx, testTarget, []byte(testBody)) // the real sleep
		var re *ResponseError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &re) || s.count() != 1 {
			t.Errorf("error %v after %d requests; want the deadline and the throttling, after 1", err, s.count())
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("Call took %v past its deadline", time.Since(start))
		}
	})
	t.Run("done before", func(t *testing.T) {
		s := newStandIn(t, ok)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		w := new(waits)
		_, err := newClient(t, s, Options{}, w).Call(ctx, testTarget, []byte(testBody))
		if !errors.Is(err, context.Canceled) || s.count() != 0 || len(w.list()) != 0 {
			t.Errorf("error %v after %d requests, %d waits; want context.Canceled, none", err, s.count(), len(w.list()))
		}
	})
}

// Concurrent calls share one Client.
func TestConcurrentCalls(t *testing.T) {
	s := newStandIn(t, func(n int, w http.ResponseWriter, r *http.Request) {
		body, _ := json.Marshal(map[string]int{"N": n})
		writeAnswer(w, 200, "", string(body))
	})
	c := newClient(t, s, Options{}, nil)
	var wg sync.WaitGroup
	answers := make([][]byte, 16)
	for i := range answers {
		wg.Go(func() {
			var err error
			if answers[i], err = c.Call(context.Background(), testTarget, []byte(testBody)); err != nil {
				t.Errorf("Call %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, a := range answers {
		seen[string(a)] = true
	}
	if len(seen) != 16 || s.count() != 16 {
		t.Errorf("%d distinct answers to %d requests; want 16 to 16", len(seen), s.count())
	}
}

func TestNew(t *testing.T) {
	creds := credentials.NewStaticCredentialsProvider("k", "s", "")
	for _, tc := range []struct {
		name    string
		cfg     aws.Config
		o       Options
		wantURL string
	}{
		{"the regional endpoint", aws.Config{Region: "eu-west-1", Credentials: creds}, Options{SigningName: "rekognition"}, "https://rekognition.eu-west-1.amazonaws.com/"},
		{"an endpoint prefix", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "execute-api", EndpointPrefix: "apigateway"}, "https://apigateway.us-east-1.amazonaws.com/"},
		{"a local endpoint", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "x", Endpoint: "http://127.0.0.1:4566"}, "http://127.0.0.1:4566/"},
		{"an endpoint with a path", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "x", Endpoint: "https://proxy.example/rekognition/"}, "https://proxy.example/rekognition/"},
		{"no region", aws.Config{Credentials: creds}, Options{SigningName: "x"}, ""},
		{"no credentials", aws.Config{Region: "us-east-1"}, Options{SigningName: "x"}, ""},
		{"no signing name", aws.Config{Region: "us-east-1", Credentials: creds}, Options{}, ""},
		{"an endpoint that is no URL", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "x", Endpoint: "rekognition.local"}, ""},
		{"host:port without a scheme", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "x", Endpoint: "localhost:4566"}, ""},
		{"an ftp endpoint", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "x", Endpoint: "ftp://host/"}, ""},
		{"no host", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "x", Endpoint: "http://"}, ""},
		{"a query", aws.Config{Region: "us-east-1", Credentials: creds}, Options{SigningName: "x", Endpoint: "http://host/?a=b"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.cfg, tc.o)
			if tc.wantURL == "" {
				if err == nil {
					t.Errorf("New succeeded with URL %q; want an error", c.URL())
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if c.URL() != tc.wantURL {
				t.Errorf("URL %q; want %q", c.URL(), tc.wantURL)
			}
		})
	}
}

// The Client sends with the configuration's HTTP client.
func TestUsesTheConfigurationsHTTPClient(t *testing.T) {
	s := newStandIn(t, ok)
	var used int
	cfg := testConfig(s, testSecret)
	cfg.HTTPClient = doFunc(func(r *http.Request) (*http.Response, error) {
		used++
		return s.srv.Client().Do(r)
	})
	c, err := New(cfg, Options{SigningName: testSigning, Endpoint: s.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(context.Background(), testTarget, bytes.Clone([]byte(testBody))); err != nil || used != 1 {
		t.Errorf("Call: %v, HTTP client used %d times; want nil, 1", err, used)
	}
}

type doFunc func(*http.Request) (*http.Response, error)

func (f doFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }
