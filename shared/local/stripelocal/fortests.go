package stripelocal

import (
	"fmt"
	"os"
	"strings"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// forTestsTimeout bounds the first ForTests call: a cold install builds
// stripe-mock before the server starts.
const forTestsTimeout = installTimeout + startTimeout

// shared is the one server of a test binary.
var shared childproc.Shared[*Server]

// ForTests returns a stripe-mock for a test binary: a developer's running
// one at $STRIPE_API_URL (stripepay.EnvAPIURL) when that is set (stop then
// does nothing), else a server started on the first call and shared by
// every later one. stop ends that server; call it once, after m.Run. On
// failure srv is nil and stop does nothing.
func ForTests() (srv *Server, stop func(), err error) {
	if url := os.Getenv(stripepay.EnvAPIURL); url != "" {
		return &Server{URL: url}, func() {}, nil
	}
	srv, stop, err = shared.Get(forTestsTimeout, Start)
	if err != nil {
		return nil, stop, fmt.Errorf("stripe-mock for tests: %w", err)
	}
	return srv, stop, nil
}

// RunTests runs a test binary's tests (m.Run) against the server of
// ForTests, with the process environment pointing at it (see [SetEnv]),
// and exits with their code. Call it from TestMain.
func RunTests(m interface{ Run() int }) {
	childproc.RunTests(m, ForTests, SetEnv)
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
