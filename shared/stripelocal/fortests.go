package stripelocal

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/moveleads/partnerapi/shared/stripepay"
)

// forTestsTimeout bounds the first ForTests call: a cold install builds
// stripe-mock before the server starts.
const forTestsTimeout = installTimeout + startTimeout

// shared is the one server of a test binary.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// ForTests returns a stripe-mock for a test binary: a developer's running
// one at $STRIPE_API_URL (stripepay.EnvAPIURL) when that is set (stop then
// does nothing), else a server started on the first call and shared by
// every later one. stop ends that server; call it once, after m.Run. On
// failure srv is nil and stop does nothing.
func ForTests() (srv *Server, stop func(), err error) {
	if url := os.Getenv(stripepay.EnvAPIURL); url != "" {
		return &Server{URL: url}, func() {}, nil
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
		defer cancel()
		shared.srv, shared.err = Start(ctx)
	})
	if shared.err != nil {
		return nil, func() {}, fmt.Errorf("stripe-mock for tests: %w", shared.err)
	}
	srv = shared.srv
	return srv, func() { _ = srv.Stop() }, nil
}

// RunTests runs a test binary's tests (m.Run) against the server of
// ForTests, with the process environment pointing at it (see [SetEnv]),
// and exits with their code. Call it from TestMain.
func RunTests(m interface{ Run() int }) {
	srv, stop, err := ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	SetEnv(srv)
	code := m.Run()
	stop()
	os.Exit(code)
}

// Env returns the environment variables, as KEY=value, that point a
// function's Stripe client at srv: STRIPE_API_URL (stripepay.EnvAPIURL).
// The secret key is not among them: in AWS it comes from Secrets Manager,
// and locally [SecretKey] is the one to use.
func Env(srv *Server) []string {
	return []string{stripepay.EnvAPIURL + "=" + srv.URL}
}

// SetEnv sets the variables of [Env] in this process, typically from
// TestMain before any client is built.
func SetEnv(srv *Server) {
	for _, kv := range Env(srv) {
		k, v, _ := strings.Cut(kv, "=")
		// Setenv fails only for a malformed key, and these are constants.
		_ = os.Setenv(k, v)
	}
}
