package localgw

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// net/http answers some requests itself, before any handler runs, by
// writing a fixed plain-text response straight to the connection: a
// header with a NUL or control character, a path with a bad percent-escape,
// conflicting Content-Length headers, a missing Host (400); headers over
// MaxHeaderBytes (431); an unknown Transfer-Encoding (501); an HTTP
// version other than 1.x (505); an Expect other than 100-continue (417).
// The API promises its JSON error body on every answer, so the connection
// rewrites those writes.
//
// Why rewrite rather than pre-parse: a pre-parser would have to agree with
// net/http's request parser on every input, or net/http would still answer
// in text whatever the pre-parser let through. The rewrite keys on the few
// byte-exact answers net/http writes (server.go, conn.serve and
// response.sendExpectationFailed) instead; if a Go release changes them,
// the raw-TCP tests fail.
//
// Which status: every answer's status is errcode.Status of its code, so a
// code always means one status. errcode has no code for 417, 431, 501 or
// 505, and a malformed request is the client's fault (never 5xx), so all
// of them answer 400 bad_request, with a message that says what was wrong.

// jsonErrorListener wraps every accepted connection in a jsonErrorConn.
type jsonErrorListener struct{ net.Listener }

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c}, nil
}

// jsonErrorConn replaces net/http's own plain-text answers with the API's
// JSON error body. Every other write passes through unchanged.
type jsonErrorConn struct{ net.Conn }

// Write writes p, or its JSON replacement when p is one of net/http's own
// answers. It reports len(p) written on success, since the caller wrote p.
func (c *jsonErrorConn) Write(p []byte) (int, error) {
	status, reason, ok := parseNetHTTPAnswer(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(jsonAnswer(status, reason, uuid.NewString(), time.Now())); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite half-closes the connection when the underlying one can:
// net/http calls it before hanging up on a request it refused, so the
// client reads the whole answer before the connection goes.
func (c *jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// netHTTPErrorHeaders are the headers of net/http's plain-text answers.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// expectationFailedHead starts net/http's 417 answer. A handler's response
// never matches it: Write puts Content-Length among the sorted headers,
// before Date.
const expectationFailedHead = "HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: "

// maxNetHTTPAnswer bounds what is taken for one of net/http's answers; the
// longest is under 200 bytes.
const maxNetHTTPAnswer = 512

// jsonAnswer is the API's answer (with X-Request-Id requestID, dated now)
// to a request net/http refused with status and reason.
func jsonAnswer(status int, reason, requestID string, now time.Time) []byte {
	e := errcode.New(errcode.BadRequest, "%s", badRequestMessage(status, reason))
	body := errorBody(e)
	code := errcode.Status(e.Code)
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	b.WriteString("Connection: close\r\n")
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	b.WriteString("Content-Type: application/json\r\n")
	b.WriteString("Date: " + now.UTC().Format(http.TimeFormat) + "\r\n")
	b.WriteString("X-Request-Id: " + requestID + "\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}

// parseNetHTTPAnswer reports whether p is exactly one of the answers
// net/http writes itself, and its status and the reason net/http gave
// after the status text ("" when none). p must be the whole answer, as
// net/http writes each in one call:
//
//	HTTP/1.1 <status> <text>[: <reason>]\r\n<netHTTPErrorHeaders><body>
//	HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: <date>\r\nContent-Length: 0\r\n\r\n
//
// where <text> is http.StatusText(status), status is 4xx or 5xx and <body>
// is one short line.
func parseNetHTTPAnswer(p []byte) (status int, reason string, ok bool) {
	if len(p) > maxNetHTTPAnswer || !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return 0, "", false
	}
	if rest, found := bytes.CutPrefix(p, []byte(expectationFailedHead)); found {
		date, tail, found := bytes.Cut(rest, []byte("\r\n"))
		if !found || string(tail) != "Content-Length: 0\r\n\r\n" {
			return 0, "", false
		}
		if _, err := time.Parse(http.TimeFormat, string(date)); err != nil {
			return 0, "", false
		}
		return http.StatusExpectationFailed, "", true
	}
	line, rest, found := bytes.Cut(p, []byte("\r\n"))
	if !found {
		return 0, "", false
	}
	body, found := bytes.CutPrefix(rest, []byte(netHTTPErrorHeaders[len("\r\n"):]))
	if !found || len(body) == 0 || bytes.ContainsAny(body, "\r\n") {
		return 0, "", false
	}
	line = line[len("HTTP/1.1 "):]
	if len(line) < 4 || line[3] != ' ' {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(line[:3]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	text := http.StatusText(status)
	after, found := bytes.CutPrefix(line[4:], []byte(text))
	if !found || text == "" {
		return 0, "", false
	}
	if len(after) > 0 {
		r, found := bytes.CutPrefix(after, []byte(": "))
		if !found {
			return 0, "", false
		}
		reason = string(r)
	}
	return status, reason, true
}

// badRequestMessage says, for a client, what net/http refused the request
// for (status and reason as parseNetHTTPAnswer returns them).
func badRequestMessage(status int, reason string) string {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return "The request line and headers are too large (the limit is 10 KB)."
	case http.StatusNotImplemented:
		return "The request's Transfer-Encoding is not supported; send the body with Content-Length or chunked."
	case http.StatusHTTPVersionNotSupported:
		return "The request's HTTP version is not supported; use HTTP/1.1."
	case http.StatusExpectationFailed:
		return "The request's Expect header is not supported; only 100-continue is."
	}
	if knownReasons[reason] {
		return "The HTTP request is malformed: " + reason + "."
	}
	return "The HTTP request is malformed (its request line, a header, or the framing of its body); it never reached the API."
}

// knownReasons are the reasons net/http gives with a 400; a message quotes
// one only when it is in this list, so nothing else from the wire is
// echoed back.
var knownReasons = map[string]bool{
	"missing required Host header": true,
	"malformed Host header":        true,
	"invalid header name":          true,
	"invalid header value":         true,
}
