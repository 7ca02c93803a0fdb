package webhookhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dialLog records every address a Client's dialers connect to.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (l *dialLog) add(a string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addrs = append(l.addrs, a)
}

func (l *dialLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.addrs...)
}

// newTestClient returns a Client built from o whose connections are
// recorded, and fails the test if one is ever made to anything but an IP
// literal: the dialer must connect to the address it checked, never
// resolve again.
func newTestClient(t *testing.T, o Options) (*Client, *dialLog) {
	t.Helper()
	c := New(o)
	t.Cleanup(c.CloseIdleConnections)
	log := &dialLog{}
	for _, d := range []*dialer{c.live.dialer, c.test.dialer} {
		connect := d.connect
		d.connect = func(ctx context.Context, network, address string) (net.Conn, error) {
			if _, err := netip.ParseAddrPort(address); err != nil {
				t.Errorf("connect(%q): not an IP literal and port", address)
			}
			log.add(address)
			return connect(ctx, network, address)
		}
	}
	return c, log
}

// countingListener counts the connections a server accepts.
type countingListener struct {
	net.Listener
	accepted atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// startServer starts an HTTP server for h on address (e.g. "127.0.0.1:0")
// and returns it with its accept counter.
func startServer(t *testing.T, address string, h http.Handler) (*httptest.Server, *countingListener) {
	t.Helper()
	ln, err := net.Listen("tcp", address)
	if err != nil {
		t.Fatalf("listen %s: %v", address, err)
	}
	cl := &countingListener{Listener: ln}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = cl
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, cl
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	io.WriteString(w, "ok")
})

// TestPostRefuses sends deliveries whose host is or resolves to a
// refused address, to ports where a server listens when the address is a
// local one, and checks each is refused with a *RefusedError naming the
// address, before any connection is even attempted.
func TestPostRefuses(t *testing.T) {
	_, v4 := startServer(t, "127.0.0.1:0", okHandler)
	p4 := strconv.Itoa(v4.Addr().(*net.TCPAddr).Port)
	p6, v6 := "9", (*countingListener)(nil)
	if ln, err := net.Listen("tcp", "[::1]:0"); err == nil {
		ln.Close()
		srv, cl := startServer(t, "[::1]:0", okHandler)
		p6, v6 = port(t, srv), cl
	}
	dns, resolver := startDNS(t, map[string][]string{
		"private.example.test":   {"10.0.0.1"},
		"loopback.example.test":  {"127.0.0.1"},
		"mixed.example.test":     {"127.0.0.1", "10.0.0.7"},
		"metadata6.example.test": {"fd00:ec2::254"},
		"mapped.example.test":    {"::ffff:169.254.169.254"},
	})

	tests := []struct {
		name          string
		url           string
		live          bool
		allowLoopback bool
		wantAddr      string // the refused address the error names
	}{
		{"loopback live", "https://127.0.0.1:" + p4 + "/", true, true, "127.0.0.1"},
		{"loopback test mode without AllowLoopback", "http://127.0.0.1:" + p4 + "/", false, false, "127.0.0.1"},
		{"IPv6 loopback", "http://[::1]:" + p6 + "/", false, false, "::1"},
		{"IPv6 loopback live", "https://[::1]:" + p6 + "/", true, true, "::1"},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:" + p4 + "/", false, false, "::ffff:127.0.0.1"},
		{"IPv4-mapped loopback live", "https://[::ffff:127.0.0.1]:" + p4 + "/", true, true, "::ffff:127.0.0.1"},
		{"unspecified, which reaches the local host", "http://0.0.0.0:" + p4 + "/", false, true, "0.0.0.0"},
		{"private", "http://10.0.0.1/", false, true, "10.0.0.1"},
		{"metadata", "http://169.254.169.254/latest/meta-data/", false, true, "169.254.169.254"},
		{"IPv6 metadata", "http://[fd00:ec2::254]/latest/meta-data/", false, true, "fd00:ec2::254"},
		{"name resolving to private", "http://private.example.test/", false, true, "10.0.0.1"},
		{"name resolving to loopback, live", "https://loopback.example.test:" + p4 + "/", true, true, "127.0.0.1"},
		{"name resolving to loopback, test mode", "http://loopback.example.test:" + p4 + "/", false, false, "127.0.0.1"},
		{"name with one refused address among allowed ones", "http://mixed.example.test:" + p4 + "/", false, true, "10.0.0.7"},
		{"name resolving to IPv6 metadata", "http://metadata6.example.test/", false, true, "fd00:ec2::254"},
		{"name resolving to mapped metadata", "http://mapped.example.test/", false, true, "169.254.169.254"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, dials := newTestClient(t, Options{AllowLoopback: tt.allowLoopback, Resolver: resolver})
			resp, err := c.Post(context.Background(), tt.url, tt.live, nil, []byte(`{}`))
			if !errors.Is(err, ErrRefusedAddress) {
				t.Fatalf("Post(%s) = %+v, %v; want ErrRefusedAddress", tt.url, resp, err)
			}
			t.Logf("Post(%s): %v", tt.url, err)
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Post(%s) error %v is not a *RefusedError", tt.url, err)
			}
			if got := canonical(re.Addr); got != canonical(netip.MustParseAddr(tt.wantAddr)) {
				t.Errorf("refused address %s; want %s", re.Addr, tt.wantAddr)
			}
			if !strings.Contains(err.Error(), re.Addr.String()) {
				t.Errorf("error %q does not name the address %s", err, re.Addr)
			}
			if d := dials.list(); len(d) != 0 {
				t.Errorf("connected to %v; want no connection", d)
			}
			if resp.Status != 0 || resp.Body != nil {
				t.Errorf("response %+v; want only a latency", resp)
			}
		})
	}
	if n := v4.accepted.Load(); n != 0 {
		t.Errorf("the server on 127.0.0.1 accepted %d connections; want 0", n)
	}
	if v6 != nil && v6.accepted.Load() != 0 {
		t.Errorf("the server on ::1 accepted %d connections; want 0", v6.accepted.Load())
	}
	if dns.queryCount() == 0 {
		t.Error("the DNS server was never asked: the name cases tested nothing")
	}
}

// TestControlRefuses checks the defence in depth on its own: the
// dialer's connect, which dials an address without checking it first,
// still refuses a refused address in its Control hook, before connect(2),
// so a listener there sees nothing.
func TestControlRefuses(t *testing.T) {
	_, ln := startServer(t, "127.0.0.1:0", okHandler)
	target := ln.Addr().String()
	ctx := context.Background()

	if conn, err := newDialer(net.DefaultResolver, false).connect(ctx, "tcp", target); !errors.Is(err, ErrRefusedAddress) {
		if conn != nil {
			conn.Close()
		}
		t.Fatalf("connect(%s) = %v; want ErrRefusedAddress", target, err)
	}
	if n := ln.accepted.Load(); n != 0 {
		t.Fatalf("listener accepted %d connections; want 0", n)
	}
	conn, err := newDialer(net.DefaultResolver, true).connect(ctx, "tcp", target)
	if err != nil {
		t.Fatalf("connect(%s) with AllowLoopback = %v; want a connection", target, err)
	}
	conn.Close()

	d := newDialer(net.DefaultResolver, true)
	for _, address := range []string{"10.0.0.1:443", "[fd00:ec2::254]:80", "[::ffff:169.254.169.254]:80", "0.0.0.0:80", "example.com:443"} {
		if err := d.control("tcp", address, nil); !errors.Is(err, ErrRefusedAddress) {
			t.Errorf("control(%q) = %v; want ErrRefusedAddress", address, err)
		}
	}
	for _, address := range []string{"127.0.0.1:80", "[::1]:443", "93.184.216.34:443"} {
		if err := d.control("tcp", address, nil); err != nil {
			t.Errorf("control(%q) = %v; want nil", address, err)
		}
	}
}

// TestPostDoesNotFollowRedirects: a redirect, whether to a refused
// address or to an allowed one, is returned as the answer and never
// followed.
func TestPostDoesNotFollowRedirects(t *testing.T) {
	var followed atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.0.0.1/", http.StatusFound)
	})
	mux.HandleFunc("/to-self", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/followed", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/followed", func(http.ResponseWriter, *http.Request) { followed.Add(1) })
	srv, _ := startServer(t, "127.0.0.1:0", mux)

	for _, tt := range []struct {
		path       string
		wantStatus int
	}{
		{"/to-private", http.StatusFound},
		{"/to-self", http.StatusTemporaryRedirect},
	} {
		t.Run(tt.path, func(t *testing.T) {
			c, dials := newTestClient(t, Options{AllowLoopback: true})
			resp, err := c.Post(context.Background(), srv.URL+tt.path, false, nil, []byte(`{}`))
			if err != nil {
				t.Fatalf("Post = %v; want the redirect as the answer", err)
			}
			if resp.Status != tt.wantStatus {
				t.Errorf("status %d; want %d", resp.Status, tt.wantStatus)
			}
			want := srv.Listener.Addr().String()
			for _, d := range dials.list() {
				if d != want {
					t.Errorf("connected to %s; want only %s", d, want)
				}
			}
		})
	}
	if n := followed.Load(); n != 0 {
		t.Errorf("the redirect target was requested %d times; want 0", n)
	}
}

// TestPostDelivers is the allowed path: a test-mode delivery to a server
// on loopback with AllowLoopback.
func TestPostDelivers(t *testing.T) {
	answer := bytes.Repeat([]byte("0123456789abcdef"), 300) // 4800 bytes
	type received struct {
		method, path string
		header       http.Header
		body         []byte
	}
	var (
		mu   sync.Mutex
		reqs []received
	)
	srv, _ := startServer(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, received{r.Method, r.URL.RequestURI(), r.Header.Clone(), body})
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1"})
		w.WriteHeader(http.StatusAccepted)
		w.Write(answer)
	}))

	c, _ := newTestClient(t, Options{AllowLoopback: true})
	headers := map[string]string{
		"Moveleads-Signature": "t=1,v1=abc",
		"User-Agent":          "partner-chosen",
	}
	event := []byte(`{"type":"lead.created"}`)
	for i := range 2 {
		resp, err := c.Post(context.Background(), srv.URL+"/hooks?token=t", false, headers, event)
		if err != nil {
			t.Fatalf("Post %d: %v", i, err)
		}
		if resp.Status != http.StatusAccepted {
			t.Errorf("Post %d: status %d; want %d", i, resp.Status, http.StatusAccepted)
		}
		if !bytes.Equal(resp.Body, answer[:MaxBody]) {
			t.Errorf("Post %d: body %d bytes; want the first %d of the answer", i, len(resp.Body), MaxBody)
		}
		if resp.Latency <= 0 {
			t.Errorf("Post %d: latency %v; want > 0", i, resp.Latency)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("server received %d requests; want 2", len(reqs))
	}
	for i, r := range reqs {
		checks := []struct{ what, got, want string }{
			{"method", r.method, http.MethodPost},
			{"path", r.path, "/hooks?token=t"},
			{"body", string(r.body), string(event)},
			{"Moveleads-Signature", r.header.Get("Moveleads-Signature"), "t=1,v1=abc"},
			{"User-Agent", r.header.Get("User-Agent"), UserAgent},
			{"Content-Type", r.header.Get("Content-Type"), "application/json"},
			{"Referer", r.header.Get("Referer"), ""},
			{"Cookie", r.header.Get("Cookie"), ""},
		}
		for _, ch := range checks {
			if ch.got != ch.want {
				t.Errorf("request %d: %s %q; want %q", i, ch.what, ch.got, ch.want)
			}
		}
	}
}

// TestPostKeepsConnectionsAlive: deliveries to one endpoint reuse a
// connection when the answer has been read to its end.
func TestPostKeepsConnectionsAlive(t *testing.T) {
	srv, ln := startServer(t, "127.0.0.1:0", okHandler)
	c, _ := newTestClient(t, Options{AllowLoopback: true})
	for i := range 3 {
		if _, err := c.Post(context.Background(), srv.URL, false, nil, []byte(`{}`)); err != nil {
			t.Fatalf("Post %d: %v", i, err)
		}
	}
	if n := ln.accepted.Load(); n != 1 {
		t.Errorf("server accepted %d connections for 3 deliveries; want 1", n)
	}
}

// TestPostLiveRequiresHTTPS: a live delivery to an http URL is refused
// before any resolution or connection, even when the address would be
// allowed.
func TestPostLiveRequiresHTTPS(t *testing.T) {
	srv, ln := startServer(t, "127.0.0.1:0", okHandler)
	dns, resolver := startDNS(t, map[string][]string{"hooks.example.test": {"127.0.0.1"}})
	c, dials := newTestClient(t, Options{AllowLoopback: true, Resolver: resolver})
	for _, u := range []string{srv.URL, "http://hooks.example.test:" + port(t, srv) + "/"} {
		_, err := c.Post(context.Background(), u, true, nil, []byte(`{}`))
		if !errors.Is(err, ErrInvalidURL) || !strings.Contains(err.Error(), "https") {
			t.Errorf("live Post(%s) = %v; want ErrInvalidURL saying https is required", u, err)
		}
	}
	if d := dials.list(); len(d) != 0 {
		t.Errorf("connected to %v; want no connection", d)
	}
	if n := ln.accepted.Load(); n != 0 {
		t.Errorf("server accepted %d connections; want 0", n)
	}
	if n := dns.queryCount(); n != 0 {
		t.Errorf("DNS asked %d questions; want 0", n)
	}
	// The same URL in test mode goes through, so the refusal above is the
	// live rule and not something else.
	if _, err := c.Post(context.Background(), srv.URL, false, nil, []byte(`{}`)); err != nil {
		t.Errorf("test-mode Post(%s) = %v; want nil", srv.URL, err)
	}
}

// TestPostResolvesOnEveryConnection: a name that resolves to an allowed
// address for one delivery and to a refused one for the next (DNS
// rebinding) is refused the second time.
func TestPostResolvesOnEveryConnection(t *testing.T) {
	srv, _ := startServer(t, "127.0.0.1:0", okHandler)
	dns, resolver := startDNS(t, map[string][]string{"rebind.example.test": {"127.0.0.1"}})
	c, dials := newTestClient(t, Options{AllowLoopback: true, Resolver: resolver})
	u := "http://rebind.example.test:" + port(t, srv) + "/"

	if _, err := c.Post(context.Background(), u, false, nil, []byte(`{}`)); err != nil {
		t.Fatalf("first Post = %v; want nil", err)
	}
	c.CloseIdleConnections()
	dns.set("rebind.example.test", "169.254.169.254")
	_, err := c.Post(context.Background(), u, false, nil, []byte(`{}`))
	if !errors.Is(err, ErrRefusedAddress) {
		t.Fatalf("Post after the name changed = %v; want ErrRefusedAddress", err)
	}
	want := []string{srv.Listener.Addr().String()}
	if d := dials.list(); fmt.Sprint(d) != fmt.Sprint(want) {
		t.Errorf("connected to %v; want %v", d, want)
	}
}

// silentListener accepts connections and never reads or writes.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

func TestPostTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for timeouts")
	}
	const timeout = 200 * time.Millisecond
	silent := silentListener(t)
	release := make(chan struct{})
	stall := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	noHeaders, _ := startServer(t, "127.0.0.1:0", http.HandlerFunc(stall))
	stalledBody, _ := startServer(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		stall(w, r)
	}))
	t.Cleanup(func() { close(release) }) // runs before the servers close

	tests := []struct {
		name     string
		url      string
		wantBody string // "" when the delivery must fail with a deadline
	}{
		{"server never answers", "http://" + silent + "/", ""},
		{"TLS handshake never completes", "https://" + silent + "/", ""},
		{"headers never come", noHeaders.URL, ""},
		{"body stalls after headers", stalledBody.URL, "partial"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestClient(t, Options{AllowLoopback: true, Timeout: timeout})
			start := time.Now()
			resp, err := c.Post(context.Background(), tt.url, false, nil, []byte(`{}`))
			elapsed := time.Since(start)
			if elapsed < timeout || elapsed > timeout+2*time.Second {
				t.Errorf("Post returned after %v; want just after the %v timeout", elapsed, timeout)
			}
			if tt.wantBody == "" {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Post = %+v, %v; want context.DeadlineExceeded", resp, err)
				}
				return
			}
			if err != nil || resp.Status != http.StatusOK || string(resp.Body) != tt.wantBody {
				t.Errorf("Post = %d %q, %v; want 200 %q, nil", resp.Status, resp.Body, err, tt.wantBody)
			}
		})
	}
}

// TestPostConnectionFailure: a name that does not resolve and a port
// where nothing listens are errors, and neither is a refusal.
func TestPostConnectionFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, resolver := startDNS(t, nil)
	c, _ := newTestClient(t, Options{AllowLoopback: true, Resolver: resolver})
	for _, u := range []string{"http://" + closed + "/", "http://missing.example.test/"} {
		_, err := c.Post(context.Background(), u, false, nil, []byte(`{}`))
		if err == nil || errors.Is(err, ErrRefusedAddress) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Post(%s) = %v; want a connection or lookup error", u, err)
		}
	}
}

func TestPostCallerContext(t *testing.T) {
	srv, ln := startServer(t, "127.0.0.1:0", okHandler)
	c, _ := newTestClient(t, Options{AllowLoopback: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Post(ctx, srv.URL, false, nil, []byte(`{}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("Post with a canceled context = %v; want context.Canceled", err)
	}
	if n := ln.accepted.Load(); n != 0 {
		t.Errorf("server accepted %d connections; want 0", n)
	}
}

// TestPostErrorHidesPath: error texts are logged, and a partner's URL
// path or query may hold a secret.
func TestPostErrorHidesPath(t *testing.T) {
	c, _ := newTestClient(t, Options{})
	_, err := c.Post(context.Background(), "http://10.0.0.1/secret-path?token=secret", false, nil, nil)
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "10.0.0.1") {
		t.Errorf("Post error %q; want one naming the host and not the path or query", err)
	}
}

func TestNewConfiguration(t *testing.T) {
	for _, tt := range []struct {
		timeout, want time.Duration
	}{
		{0, DefaultTimeout},
		{-time.Second, DefaultTimeout},
		{time.Second, time.Second},
	} {
		if got := New(Options{Timeout: tt.timeout}).timeout; got != tt.want {
			t.Errorf("New(Timeout: %v).timeout = %v; want %v", tt.timeout, got, tt.want)
		}
	}
	c := New(Options{AllowLoopback: true})
	if c.live.dialer.allowLoopback {
		t.Error("the live dialer allows loopback; it never may")
	}
	if !c.test.dialer.allowLoopback {
		t.Error("the test-mode dialer refuses loopback despite AllowLoopback")
	}
	for name, p := range map[string]pool{"live": c.live, "test": c.test} {
		tr := p.http.Transport.(*http.Transport)
		if tr.Proxy != nil {
			t.Errorf("%s: transport has a Proxy; want none", name)
		}
		if p.http.Jar != nil {
			t.Errorf("%s: client has a cookie jar; want none", name)
		}
		if p.dialer.resolver != net.DefaultResolver {
			t.Errorf("%s: resolver is not net.DefaultResolver", name)
		}
	}
	if c.live.http.Transport == c.test.http.Transport {
		t.Error("live and test-mode deliveries share a transport; their connections must not be shared")
	}
}
