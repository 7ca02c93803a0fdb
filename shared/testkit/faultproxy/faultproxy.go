// Package faultproxy is a reverse proxy on loopback for tests: it stands
// in front of a real local server (MinIO, stripe-mock, a recorded
// service) and, for the requests a test chooses, fails instead of
// forwarding: an error status, a connection reset, or no answer at all.
// Clients under test reach the real server through it with their real
// retry policy (set to zero backoff in tests), so fault handling is
// tested on the wire without a fake of the service.
//
// The proxy keeps the Host header the client sent, so signatures that
// cover Host (SigV4) still verify at the server behind it.
package faultproxy

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
)

// Fault is what the proxy does with one request instead of forwarding it.
type Fault struct {
	// Status, when not 0, is the status answered, with Header and Body
	// (no body to a HEAD).
	Status int
	Header http.Header
	Body   string
	// Reset closes the connection with a TCP reset, answering nothing.
	Reset bool
	// Stall answers nothing until the client gives up (its timeout or
	// context) or the proxy closes.
	Stall bool
}

// Decide returns the fault for the n-th request the proxy receives
// (counting from 1), or nil to forward it. It may be called concurrently.
type Decide func(n int, r *http.Request) *Fault

// FirstN fails the first n requests with f and forwards the rest.
func FirstN(n int, f Fault) Decide {
	return func(i int, _ *http.Request) *Fault {
		if i <= n {
			return &f
		}
		return nil
	}
}

// Proxy is an http.Handler that forwards to a target server or fails as
// its Decide says.
type Proxy struct {
	decide   Decide
	forward  *httputil.ReverseProxy
	requests atomic.Int64
	closed   chan struct{}
}

// New returns a Proxy to target (scheme and host; its path is ignored).
func New(target *url.URL, decide Decide) *Proxy {
	return &Proxy{
		decide: decide,
		forward: &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = target.Scheme, target.Host
			r.Out.Host = r.In.Host
		}},
		closed: make(chan struct{}),
	}
}

// Requests returns how many requests the proxy has received, failed ones
// included.
func (p *Proxy) Requests() int { return int(p.requests.Load()) }

// ServeHTTP fails r as Decide says, or forwards it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(p.requests.Add(1))
	f := p.decide(n, r)
	switch {
	case f == nil:
		p.forward.ServeHTTP(w, r)
	case f.Reset:
		reset(w)
	case f.Stall:
		select {
		case <-r.Context().Done():
		case <-p.closed:
		}
	default:
		for k, v := range f.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(f.Status)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, f.Body)
		}
	}
}

// reset closes the request's connection with a TCP RST.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// Start serves a Proxy to target (a URL such as AWS_ENDPOINT_URL_S3's) on
// a free loopback port until the test ends, and returns it with its URL.
func Start(t testing.TB, target string, decide Decide) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		t.Fatalf("faultproxy: target %q is not a URL with a host", target)
	}
	p := New(u, decide)
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		close(p.closed)
		srv.Close()
	})
	return p, srv.URL
}
