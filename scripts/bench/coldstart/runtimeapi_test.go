package coldstart

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

const testARN = "arn:aws:lambda:us-east-1:000000000000:function:fake"

func startAPI(t *testing.T) *runtimeAPI {
	t.Helper()
	a, err := newRuntimeAPI(testARN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// do sends one request to a and returns status, headers and body.
func do(t *testing.T, ctx context.Context, a *runtimeAPI, method, path, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+a.Addr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// takeCall returns the next recorded call, failing after a second.
func takeCall(t *testing.T, a *runtimeAPI) call {
	t.Helper()
	select {
	case c := <-a.Calls:
		return c
	case <-time.After(time.Second):
		t.Fatal("no call recorded")
		return call{}
	}
}

func invocationPath(id, what string) string {
	return "/2018-06-01/runtime/invocation/" + id + "/" + what
}

func TestRuntimeAPINextHandsOutTheInvocation(t *testing.T) {
	a := startAPI(t)
	id := a.Invoke([]byte(`{"hello":"event"}`))
	before := time.Now()
	status, h, body := do(t, context.Background(), a, "GET", pathNext, "")
	if status != 200 {
		t.Fatalf("next: status %d; want 200", status)
	}
	if body != `{"hello":"event"}` {
		t.Errorf("next: body %q; want the event", body)
	}
	if got := h.Get("Lambda-Runtime-Aws-Request-Id"); got != id {
		t.Errorf("request id %q; want %q", got, id)
	}
	if got := h.Get("Lambda-Runtime-Invoked-Function-Arn"); got != testARN {
		t.Errorf("function ARN %q; want %q", got, testARN)
	}
	if got := h.Get("Lambda-Runtime-Trace-Id"); !strings.HasPrefix(got, "Root=1-") {
		t.Errorf("trace id %q; want Root=1-…", got)
	}
	ms, err := strconv.ParseInt(h.Get("Lambda-Runtime-Deadline-Ms"), 10, 64)
	if err != nil {
		t.Fatalf("deadline: %v", err)
	}
	if d := time.UnixMilli(ms).Sub(before); d < 29*time.Second || d > 31*time.Second {
		t.Errorf("deadline in %s; want about 30s", d)
	}
	if c := takeCall(t, a); c.Kind != callNext || c.At.Before(before) {
		t.Errorf("recorded %v at %v; want next after %v", c.Kind, c.At, before)
	}
}

func TestRuntimeAPINextBlocksWhileNothingIsQueued(t *testing.T) {
	a := startAPI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+a.Addr+pathNext, nil)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("next with nothing queued answered %d; want it to block", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("next: %v; want the client's deadline", err)
	}

	// Close ends a waiting next.
	done := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + a.Addr + pathNext)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	_ = a.Close()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a next waiting when Close was called did not end")
	}
}

func TestRuntimeAPIResponse(t *testing.T) {
	a := startAPI(t)
	id := a.Invoke([]byte(`{}`))
	do(t, context.Background(), a, "GET", pathNext, "")
	takeCall(t, a)

	status, _, body := do(t, context.Background(), a, "POST", invocationPath(id, "response"), `{"statusCode":200}`)
	if status != http.StatusAccepted || body != `{"status":"OK"}` {
		t.Errorf("response: %d %s; want 202 {\"status\":\"OK\"}", status, body)
	}
	c := takeCall(t, a)
	if c.Kind != callResponse || c.RequestID != id || string(c.Body) != `{"statusCode":200}` {
		t.Errorf("recorded %v %q %q; want response %q with the body", c.Kind, c.RequestID, c.Body, id)
	}

	// An answered invocation cannot be answered again, nor one never handed out.
	for _, path := range []string{invocationPath(id, "response"), invocationPath(id, "error"), invocationPath("no-such-id", "response")} {
		if status, _, body := do(t, context.Background(), a, "POST", path, `{}`); status != http.StatusBadRequest || !strings.Contains(body, "InvalidRequestID") {
			t.Errorf("POST %s: %d %s; want 400 InvalidRequestID", path, status, body)
		}
	}
	select {
	case c := <-a.Calls:
		t.Errorf("a refused call was recorded: %v", c.Kind)
	default:
	}
}

func TestRuntimeAPIError(t *testing.T) {
	a := startAPI(t)
	id := a.Invoke([]byte(`{}`))
	do(t, context.Background(), a, "GET", pathNext, "")
	takeCall(t, a)

	status, _, _ := do(t, context.Background(), a, "POST", invocationPath(id, "error"),
		`{"errorMessage":"boom","errorType":"errorString"}`, "Lambda-Runtime-Function-Error-Type", "errorString")
	if status != http.StatusAccepted {
		t.Errorf("error: status %d; want 202", status)
	}
	c := takeCall(t, a)
	if c.Kind != callError || c.RequestID != id || c.ErrorType != "errorString" || !strings.Contains(string(c.Body), "boom") {
		t.Errorf("recorded %v %q %q %q; want error of %q, type errorString, with the body", c.Kind, c.RequestID, c.ErrorType, c.Body, id)
	}
}

// aws-lambda-go streams a response and, when reading it fails midway,
// names the failure in trailers; that invocation failed.
func TestRuntimeAPIResponseWithErrorTrailerIsAnError(t *testing.T) {
	a := startAPI(t)
	id := a.Invoke([]byte(`{}`))
	do(t, context.Background(), a, "GET", pathNext, "")
	takeCall(t, a)

	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+a.Addr+invocationPath(id, "response"), pr)
	req.Trailer = http.Header{"Lambda-Runtime-Function-Error-Type": nil}
	go func() {
		_, _ = io.WriteString(pw, "partial")
		req.Trailer.Set("Lambda-Runtime-Function-Error-Type", "ReadError")
		_ = pw.Close()
	}()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := takeCall(t, a); c.Kind != callError || c.ErrorType != "ReadError" {
		t.Errorf("recorded %v type %q; want error of type ReadError", c.Kind, c.ErrorType)
	}
}

func TestRuntimeAPIInitError(t *testing.T) {
	a := startAPI(t)
	status, _, body := do(t, context.Background(), a, "POST", pathInitError,
		`{"errorMessage":"TABLE_NAME is not set","errorType":"InitError"}`, "Lambda-Runtime-Function-Error-Type", "Runtime.InitError")
	if status != http.StatusAccepted || body != `{"status":"OK"}` {
		t.Errorf("init/error: %d %s; want 202 {\"status\":\"OK\"}", status, body)
	}
	c := takeCall(t, a)
	if c.Kind != callInitError || c.ErrorType != "Runtime.InitError" || !strings.Contains(string(c.Body), "TABLE_NAME is not set") {
		t.Errorf("recorded %v %q %q; want init/error with type and body", c.Kind, c.ErrorType, c.Body)
	}
}

func TestRuntimeAPIRefusesOtherRequests(t *testing.T) {
	a := startAPI(t)
	tests := []struct {
		method, path string
		want         int
	}{
		{"POST", pathNext, http.StatusMethodNotAllowed},
		{"GET", invocationPath("x", "response"), http.StatusMethodNotAllowed},
		{"GET", pathInitError, http.StatusMethodNotAllowed},
		{"GET", "/2020-01-01/extension/register", http.StatusNotFound},
		{"GET", "/2018-06-01/runtime/invocation/x/other", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			if status, _, _ := do(t, context.Background(), a, tt.method, tt.path, ""); status != tt.want {
				t.Errorf("status %d; want %d", status, tt.want)
			}
		})
	}
	select {
	case c := <-a.Calls:
		t.Errorf("a refused request was recorded: %v", c.Kind)
	default:
	}
}
