package childproc

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// Shared is the one server of a test binary: started by the first Get and
// returned by every later one. The zero value is ready to use.
type Shared[S interface{ Stop() error }] struct {
	once sync.Once
	srv  S
	err  error
}

// Get returns the shared server, starting it with start under timeout on
// the first call, and stop, which stops it (call it once, after m.Run).
// When the start failed, every call returns its error and a stop that does
// nothing.
func (s *Shared[S]) Get(timeout time.Duration, start func(context.Context) (S, error)) (srv S, stop func(), err error) {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s.srv, s.err = start(ctx)
	})
	if s.err != nil {
		var zero S
		return zero, func() {}, s.err
	}
	srv = s.srv
	return srv, func() { _ = srv.Stop() }, nil
}

// RunTests runs a test binary's tests (m.Run) against the server of
// forTests, after setEnv points this process at it, and exits with their
// code; it prints forTests' error and exits 1 when there is no server.
func RunTests[S any](m interface{ Run() int }, forTests func() (S, func(), error), setEnv func(S)) {
	srv, stop, err := forTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	setEnv(srv)
	code := m.Run()
	stop()
	os.Exit(code)
}
