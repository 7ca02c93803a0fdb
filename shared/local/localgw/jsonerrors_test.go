package localgw

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// netHTTPAnswers are the answers net/http 1.26 writes itself, byte for
// byte (TestMalformedRequestsGetTheErrorBody shows they are still the ones
// it writes).
var netHTTPAnswers = []struct {
	name       string
	raw        string
	wantStatus int
	wantReason string
}{
	{"400", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request", 400, ""},
	{"400 with a reason", "HTTP/1.1 400 Bad Request: missing required Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request: missing required Host header", 400, "missing required Host header"},
	{"431", "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large", 431, ""},
	{"501", "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nUnsupported transfer encoding", 501, ""},
	{"505", "HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n505 HTTP Version Not Supported: unsupported protocol version", 505, "unsupported protocol version"},
	{"417", "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: Sun, 22 Nov 2026 23:41:40 GMT\r\nContent-Length: 0\r\n\r\n", 417, ""},
}

func TestParseNetHTTPAnswer(t *testing.T) {
	for _, tt := range netHTTPAnswers {
		t.Run(tt.name, func(t *testing.T) {
			status, reason, ok := parseNetHTTPAnswer([]byte(tt.raw))
			if !ok || status != tt.wantStatus || reason != tt.wantReason {
				t.Errorf("parseNetHTTPAnswer = %d, %q, %v; want %d, %q, true", status, reason, ok, tt.wantStatus, tt.wantReason)
			}
		})
	}
	notOurs := []struct{ name, raw string }{
		{"handler answer", "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nDate: Sun, 22 Nov 2026 23:41:40 GMT\r\n\r\n400 Bad Request"},
		{"sniffed text with Date", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nDate: Sun, 22 Nov 2026 23:41:40 GMT\r\n\r\n400 Bad Request"},
		{"handler 417", "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nContent-Length: 0\r\nDate: Sun, 22 Nov 2026 23:41:40 GMT\r\n\r\n"},
		{"417 with a body", "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: Sun, 22 Nov 2026 23:41:40 GMT\r\nContent-Length: 0\r\n\r\nx"},
		{"417 with a bad date", "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: yesterday\r\nContent-Length: 0\r\n\r\n"},
		{"200", "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nok"},
		{"wrong status text", "HTTP/1.1 400 Bad Thing\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Thing"},
		{"two-line body", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400\r\nmore"},
		{"no body", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"},
		{"HTTP/1.0", "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"},
		{"body chunk", `{"error":{"code":"bad_request"}}`},
		{"head only", "HTTP/1.1 400 Bad Request\r\n"},
		{"empty", ""},
	}
	for _, tt := range notOurs {
		t.Run("not ours/"+tt.name, func(t *testing.T) {
			if status, reason, ok := parseNetHTTPAnswer([]byte(tt.raw)); ok {
				t.Errorf("parseNetHTTPAnswer = %d, %q, true; want not recognised", status, reason)
			}
		})
	}
}

// rewriteAnswer returns the JSON answer (with X-Request-Id requestID,
// dated now) replacing p when p is exactly one of net/http's own
// answers; ok is false, and p must be written as it is, otherwise.
func rewriteAnswer(p []byte, requestID string, now time.Time) (out []byte, ok bool) {
	status, reason, ok := parseNetHTTPAnswer(p)
	if !ok {
		return nil, false
	}
	return jsonAnswer(status, reason, requestID, now), true
}

func TestRewriteAnswer(t *testing.T) {
	now := time.Date(2026, 11, 22, 23, 41, 40, 0, time.UTC)
	for _, tt := range netHTTPAnswers {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := rewriteAnswer([]byte(tt.raw), "req-1", now)
			if !ok {
				t.Fatal("not rewritten")
			}
			res, body := parse(t, out)
			checkError(t, res, body, 400, errcode.BadRequest)
			if got := res.Header.Get("X-Request-Id"); got != "req-1" {
				t.Errorf("X-Request-Id %q; want req-1", got)
			}
			if got := res.Header.Get("Date"); got != "Sun, 22 Nov 2026 23:41:40 GMT" {
				t.Errorf("Date %q; want the time given", got)
			}
			if !res.Close {
				t.Error("no Connection: close")
			}
		})
	}
}

// Writes that are not net/http's own answers pass through unchanged, and
// the connection reports the length the caller wrote either way.
func TestJSONErrorConnWrite(t *testing.T) {
	tests := []struct {
		name, write string
		rewritten   bool
	}{
		{"net/http answer", netHTTPAnswers[0].raw, true},
		{"handler answer", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sink bytes.Buffer
			c := &jsonErrorConn{Conn: bufConn{&sink}}
			n, err := c.Write([]byte(tt.write))
			if err != nil || n != len(tt.write) {
				t.Errorf("Write = %d, %v; want %d, nil", n, err, len(tt.write))
			}
			if got := sink.String() != tt.write; got != tt.rewritten {
				t.Errorf("wrote %q; rewritten %v, want %v", sink.String(), got, tt.rewritten)
			}
		})
	}
}

// bufConn is a net.Conn that only writes, to a buffer.
type bufConn struct{ w io.Writer }

func (c bufConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// The rest of net.Conn is never called by these tests.
func (bufConn) Read([]byte) (int, error)         { return 0, io.EOF }
func (bufConn) Close() error                     { return nil }
func (bufConn) LocalAddr() net.Addr              { return nil }
func (bufConn) RemoteAddr() net.Addr             { return nil }
func (bufConn) SetDeadline(time.Time) error      { return nil }
func (bufConn) SetReadDeadline(time.Time) error  { return nil }
func (bufConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzRewriteAnswer: whatever is written to the connection, a rewrite is
// always one complete JSON error answer (400 bad_request, X-Request-Id,
// Connection: close) whose message quotes nothing but net/http's known
// reasons, and net/http's answers, with any status and reason, are
// always rewritten.
func FuzzRewriteAnswer(f *testing.F) {
	for _, a := range netHTTPAnswers {
		f.Add([]byte(a.raw))
	}
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 400 Bad Request: <script>\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nx"))
	f.Fuzz(func(t *testing.T, p []byte) {
		out, ok := rewriteAnswer(p, "req-1", time.Unix(0, 0))
		if !ok {
			if out != nil {
				t.Fatalf("not rewritten but returned %q", out)
			}
			return
		}
		br := bufio.NewReader(bytes.NewReader(out))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("rewrite of %q is not an HTTP response: %v", p, err)
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatalf("rewrite of %q: read body: %v", p, err)
		}
		if rest, _ := io.ReadAll(br); len(rest) > 0 {
			t.Fatalf("rewrite of %q has trailing bytes %q", p, rest)
		}
		if res.StatusCode != 400 || res.Header.Get("Content-Type") != "application/json" || res.Header.Get("X-Request-Id") != "req-1" || !res.Close {
			t.Fatalf("rewrite of %q: %d %v; want 400, JSON, X-Request-Id, Connection: close", p, res.StatusCode, res.Header)
		}
		code, msg := errorBodyOf(t, body)
		if code != errcode.BadRequest {
			t.Fatalf("rewrite of %q: code %q; want bad_request", p, code)
		}
		if !knownMessage(msg) {
			t.Fatalf("rewrite of %q: message %q is not one of the fixed messages", p, msg)
		}
	})
}

// knownMessage reports whether msg is one badRequestMessage can return.
func knownMessage(msg string) bool {
	for _, s := range []int{400, 417, 431, 501, 505} {
		if msg == badRequestMessage(s, "") {
			return true
		}
	}
	for r := range knownReasons {
		if msg == badRequestMessage(400, r) {
			return true
		}
	}
	return false
}

func FuzzNetHTTPAnswerIsRecognised(f *testing.F) {
	f.Add(400, "")
	f.Add(400, "invalid header value")
	f.Add(505, "unsupported protocol version")
	f.Add(431, "")
	f.Fuzz(func(t *testing.T, status int, reason string) {
		text := http.StatusText(status)
		if status < 400 || status > 599 || text == "" || strings.ContainsAny(reason, "\r\n") || len(reason) > 100 {
			return
		}
		line := strconv.Itoa(status) + " " + text
		if reason != "" {
			line += ": " + reason
		}
		raw := "HTTP/1.1 " + line + netHTTPErrorHeaders + line
		got, gotReason, ok := parseNetHTTPAnswer([]byte(raw))
		if !ok || got != status || gotReason != reason {
			t.Fatalf("parseNetHTTPAnswer(%q) = %d, %q, %v; want %d, %q, true", raw, got, gotReason, ok, status, reason)
		}
	})
}
