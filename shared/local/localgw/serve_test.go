package localgw

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// testTimeouts keep the slow-client tests short.
var testTimeouts = Timeouts{Header: 200 * time.Millisecond, Body: 200 * time.Millisecond, Idle: 200 * time.Millisecond}

// closeBound is how long after its timeout a connection may take to close:
// generous, for a loaded 2-core machine under -race.
const closeBound = 2 * time.Second

// startServe serves g with Serve on a loopback port until the test ends,
// and returns the address.
func startServe(t *testing.T, g http.Handler, opts ...Option) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, g, opts...) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve returned %v; want nil after the context ends", err)
		}
	})
	return ln.Addr().String()
}

// exchange sends raw on a new connection and reads until the server closes
// it or bound passes. It returns what arrived, how long until the close,
// and whether the server closed the connection within bound.
func exchange(t *testing.T, addr, raw string, bound time.Duration) (got []byte, took time.Duration, closed bool) {
	t.Helper()
	// The server's clocks start at accept, after this one.
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatalf("write request: %v", err)
	}
	_ = c.SetReadDeadline(start.Add(bound))
	got, err = io.ReadAll(c)
	took = time.Since(start)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return got, took, false
	}
	return got, took, true
}

// parse reads one HTTP response from raw, failing if it is not exactly one.
func parse(t *testing.T, raw []byte) (*http.Response, []byte) {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(raw))
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("answer %q is not an HTTP response: %v", raw, err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body of %q: %v", raw, err)
	}
	if rest, _ := io.ReadAll(br); len(rest) > 0 {
		t.Errorf("trailing bytes after the answer: %q", rest)
	}
	return res, body
}

func TestSlowBody(t *testing.T) {
	tests := []struct{ name, path string }{
		{"partner route, no API key", "/v1-leads"},
		{"unmatched path", "/nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, f := newGateway(t)
			addr := startServe(t, g, WithTimeouts(testTimeouts))
			raw := "POST " + tt.path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + `{"name":"ab"`
			got, took, closed := exchange(t, addr, raw, testTimeouts.Body+closeBound)
			if !closed {
				t.Fatalf("connection still open after %v; want it closed after the 408", took)
			}
			if took < testTimeouts.Body {
				t.Errorf("answered after %v; want no earlier than the body timeout %v", took, testTimeouts.Body)
			}
			res, body := parse(t, got)
			checkError(t, res, body, 408, errcode.RequestTimeout)
			if !res.Close {
				t.Error("408 answer without Connection: close")
			}
			f.none(t)
		})
	}
}

func TestSlowHeadersAreDisconnected(t *testing.T) {
	g, f := newGateway(t)
	addr := startServe(t, g, WithTimeouts(testTimeouts))
	got, took, closed := exchange(t, addr, "GET /v1/leads HTTP/1.1\r\nHost: x\r\n", testTimeouts.Header+closeBound)
	if !closed {
		t.Fatalf("connection still open after %v; want it closed after the header timeout", took)
	}
	if took < testTimeouts.Header {
		t.Errorf("closed after %v; want no earlier than the header timeout %v", took, testTimeouts.Header)
	}
	if len(got) != 0 {
		t.Errorf("answer %q; want none: there is no request yet", got)
	}
	f.none(t)
}

func TestIdleConnectionIsClosed(t *testing.T) {
	g, _ := newGateway(t)
	addr := startServe(t, g, WithTimeouts(testTimeouts))
	got, took, closed := exchange(t, addr, "GET /v1/leads HTTP/1.1\r\nHost: x\r\n\r\n", testTimeouts.Idle+closeBound)
	if !closed {
		t.Fatalf("idle connection still open after %v", took)
	}
	if took < testTimeouts.Idle {
		t.Errorf("closed after %v; want no earlier than the idle timeout %v", took, testTimeouts.Idle)
	}
	if res, _ := parse(t, got); res.StatusCode != 200 {
		t.Errorf("status %d; want the fake's 200", res.StatusCode)
	}
}

// The body timeout bounds the body only: a handler that runs longer than
// it after the body arrived still answers, with its context alive.
func TestHandlerMayOutlastTheBodyTimeout(t *testing.T) {
	g, f := newGateway(t)
	f.set(manifest.CreateLead, func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		select {
		case <-time.After(3 * testTimeouts.Body):
			return events.APIGatewayV2HTTPResponse{StatusCode: 201, Body: ev.Body}, nil
		case <-ctx.Done():
			return events.APIGatewayV2HTTPResponse{StatusCode: 499, Body: "context ended: " + ctx.Err().Error()}, nil
		}
	})
	addr := startServe(t, g, WithTimeouts(testTimeouts))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, "POST /v1/leads HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	_ = c.SetReadDeadline(time.Now().Add(3*testTimeouts.Body + closeBound))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 || string(body) != "{}" {
		t.Errorf("answer %d %q; want the handler's 201 {}", res.StatusCode, body)
	}
}

func TestDefaultTimeouts(t *testing.T) {
	want := Timeouts{Header: 10 * time.Second, Body: 30 * time.Second, Idle: 60 * time.Second}
	if DefaultTimeouts != want {
		t.Errorf("DefaultTimeouts %+v; want %+v", DefaultTimeouts, want)
	}
	if got := (Timeouts{Body: time.Second}).withDefaults(); got != (Timeouts{Header: want.Header, Body: time.Second, Idle: want.Idle}) {
		t.Errorf("zero fields after withDefaults: %+v; want the defaults but Body 1s", got)
	}
}

// net/http answers these itself, before any handler; Serve must answer
// them with the API's error body.
func TestMalformedRequestsGetTheErrorBody(t *testing.T) {
	big := strings.Repeat("a", maxHeaderBytes+8<<10)
	tests := []struct {
		name, raw   string
		wantMessage string // a part of error.message
	}{
		{"NUL in a header value", "GET /v1/leads HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", "malformed"},
		{"control character in a header value", "GET /v1/leads HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", "malformed"},
		{"NUL in a header name", "GET /v1/leads HTTP/1.1\r\nHost: x\r\nX\x00A: b\r\n\r\n", "malformed"},
		{"bad percent-escape in the path", "GET /v1-leads%zz HTTP/1.1\r\nHost: x\r\n\r\n", "malformed"},
		{"duplicate Content-Length", "POST /v1/leads HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "malformed"},
		{"headers too large", "GET /v1/leads HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n", "too large"},
		{"no Host", "GET /v1/leads HTTP/1.1\r\n\r\n", "missing required Host header"},
		{"unknown Transfer-Encoding", "POST /v1/leads HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", "Transfer-Encoding"},
		{"HTTP/2.0 request line", "GET /v1/leads HTTP/2.0\r\nHost: x\r\n\r\n", "HTTP version"},
		{"unsupported Expect", "GET /v1/leads HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n", "Expect"},
		{"garbage", "NOT HTTP\r\n\r\n", "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, f := newGateway(t)
			addr := startServe(t, g, WithTimeouts(testTimeouts))
			got, took, closed := exchange(t, addr, tt.raw, closeBound)
			if !closed {
				t.Errorf("connection still open after %v; want it closed", took)
			}
			res, body := parse(t, got)
			checkError(t, res, body, 400, errcode.BadRequest)
			if _, msg := errorBodyOf(t, body); !strings.Contains(msg, tt.wantMessage) {
				t.Errorf("error.message %q; want it to mention %q", msg, tt.wantMessage)
			}
			if !res.Close {
				t.Error("answer without Connection: close")
			}
			f.none(t)
		})
	}
}

// The rewrite touches only net/http's own answers: a handler's answer that
// looks like one passes through unchanged.
func TestHandlerAnswersPassUnchanged(t *testing.T) {
	g, f := newGateway(t)
	f.set(manifest.ListLeads, func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{
			StatusCode: 400,
			Headers:    map[string]string{"Content-Type": "text/plain; charset=utf-8", "Connection": "close"},
			Body:       "400 Bad Request",
		}, nil
	})
	f.set(manifest.GetLead, func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{StatusCode: 417, Headers: map[string]string{"Connection": "close"}}, nil
	})
	addr := startServe(t, g, WithTimeouts(testTimeouts))
	tests := []struct {
		name, raw  string
		wantStatus int
		wantType   string
		wantBody   string
	}{
		{"text/plain 400", "GET /v1/leads HTTP/1.1\r\nHost: x\r\n\r\n", 400, "text/plain; charset=utf-8", "400 Bad Request"},
		{"empty 417", "GET /v1/leads/ld_1 HTTP/1.1\r\nHost: x\r\n\r\n", 417, "", ""},
		{"ordinary answer", "POST /v1/leads HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", 200, "application/json", `{"operation":"createLead"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _ := exchange(t, addr, tt.raw, closeBound)
			res, body := parse(t, got)
			if res.StatusCode != tt.wantStatus || res.Header.Get("Content-Type") != tt.wantType || string(body) != tt.wantBody {
				t.Errorf("answer %d %q %q; want %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), body, tt.wantStatus, tt.wantType, tt.wantBody)
			}
		})
	}
}

func TestOptionsStarReachesDefault(t *testing.T) {
	g, f := newGateway(t)
	addr := startServe(t, g, WithTimeouts(testTimeouts))
	got, _, _ := exchange(t, addr, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", closeBound)
	if res, _ := parse(t, got); res.StatusCode != 200 {
		t.Errorf("status %d; want the fake's 200", res.StatusCode)
	}
	op, ev := f.only(t)
	if op != manifest.RouteNotFound || ev.RawPath != "*" {
		t.Errorf("invoked %s with rawPath %q; want %s with *", op, ev.RawPath, manifest.RouteNotFound)
	}
}

func TestServeReturnsWhenTheContextEnds(t *testing.T) {
	g, _ := newGateway(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, g) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v; want nil", err)
		}
	case <-time.After(closeBound):
		t.Fatal("Serve still running after its context ended")
	}
}
