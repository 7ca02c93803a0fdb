package localgw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// maxHeaderBytes mirrors API Gateway HTTP API's quota on the request line
// and headers together (10 KB). net/http allows 4 KB of slack on top.
const maxHeaderBytes = 10 << 10

// Timeouts bound how long a client may hold a connection without sending.
// A zero field takes its value from DefaultTimeouts.
type Timeouts struct {
	// Header bounds the request line and headers (http.Server's
	// ReadHeaderTimeout). A client that misses it is disconnected without
	// an answer, as net/http does: there is no request to answer yet.
	Header time.Duration
	// Body bounds the body, from the end of the headers to its last byte.
	// A body that misses it is answered 408 request_timeout and the
	// connection closed.
	Body time.Duration
	// Idle bounds the wait for the next request on a kept-alive
	// connection (http.Server's IdleTimeout).
	Idle time.Duration
}

// DefaultTimeouts are the time limits Serve applies unless told otherwise.
var DefaultTimeouts = Timeouts{Header: 10 * time.Second, Body: 30 * time.Second, Idle: 60 * time.Second}

func (t Timeouts) withDefaults() Timeouts {
	if t.Header <= 0 {
		t.Header = DefaultTimeouts.Header
	}
	if t.Body <= 0 {
		t.Body = DefaultTimeouts.Body
	}
	if t.Idle <= 0 {
		t.Idle = DefaultTimeouts.Idle
	}
	return t
}

// Option configures Serve.
type Option func(*serveConfig)

type serveConfig struct {
	timeouts Timeouts
}

// WithTimeouts sets Serve's time limits (zero fields keep their defaults).
func WithTimeouts(t Timeouts) Option {
	return func(c *serveConfig) { c.timeouts = t }
}

// Serve serves h on ln until ctx ends, then shuts down gracefully (waiting
// up to 5 s for requests in flight). It returns the error that stopped the
// server, or Shutdown's.
//
// Connections get the time limits of opts (DefaultTimeouts otherwise), a
// 10 KB limit on the request line and headers, and the API's JSON error
// body in place of the plain-text answers net/http writes itself for
// requests it cannot parse (see jsonErrorListener). OPTIONS * reaches h
// like any other request.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts ...Option) error {
	cfg := serveConfig{timeouts: DefaultTimeouts}
	for _, o := range opts {
		o(&cfg)
	}
	t := cfg.timeouts.withDefaults()
	srv := &http.Server{
		Handler:                      bodyDeadline{h: h, d: t.Body},
		ReadHeaderTimeout:            t.Header,
		IdleTimeout:                  t.Idle,
		MaxHeaderBytes:               maxHeaderBytes,
		DisableGeneralOptionsHandler: true,
		// net/http logs a client's malformed TLS handshake and the like;
		// the answers themselves are what matter here.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(jsonErrorListener{ln}) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return fmt.Errorf("shut down: %w", err)
		}
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	}
}

// bodyDeadline gives a request's body d to arrive: it sets the
// connection's read deadline before h runs. A body read that misses it
// fails with os.ErrDeadlineExceeded, which the Gateway answers 408. Once
// the body has been read to its end, net/http lifts the deadline itself
// (connReader.startBackgroundRead), so a handler may run longer than d.
type bodyDeadline struct {
	h http.Handler
	d time.Duration
}

func (b bodyDeadline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		// ErrNotSupported only for a ResponseWriter that is not
		// net/http's own; its body then has no time limit.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(b.d))
	}
	b.h.ServeHTTP(w, r)
}
