package stripelocal

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// startServer starts a server for one test and stops it at the end.
func startServer(t *testing.T) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts stripe-mock")
	}
	s, took := childproctest.StartServer(t, forTestsTimeout, Start)
	t.Logf("stripe-mock ready at %s after %v", s.URL, took)
	return s
}

// get sends a GET of path with the given key ("" for none) and returns the
// status code.
func get(t *testing.T, url, key string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestStartServesStripeAPIAndStopCloses gives the first attempt an HTTP
// port that another listener holds: stripe-mock cannot bind it, and the
// listener must not pass for the server. The server of the retry is then
// the one checked and stopped (each start costs seconds; a start without a
// taken port is every other test's).
func TestStartServesStripeAPIAndStopCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts stripe-mock")
	}
	var s *Server
	childproctest.RetriesPastTakenPort(t, &pickPorts, func() string { s = startServer(t); return s.URL })
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q; want http://127.0.0.1:PORT", s.URL)
	}
	if got := get(t, s.URL+probePath, SecretKey); got != http.StatusOK {
		t.Errorf("GET %s with the test key = %d; want 200", probePath, got)
	}
	if got := get(t, s.URL+probePath, ""); got != http.StatusUnauthorized {
		t.Errorf("GET %s without a key = %d; want 401", probePath, got)
	}
	if got := get(t, s.URL+probePath, "sk_live_nope"); got != http.StatusUnauthorized {
		t.Errorf("GET %s with a live key = %d; want 401", probePath, got)
	}

	childproctest.StopCloses(t, s.Stop, s.URL, nil)
}

func TestStopReportsServerThatDiedFirst(t *testing.T) {
	s := startServer(t)
	childproctest.StopReportsDeath(t, s.proc.Pid(), s.proc.Done(), s.Stop)
}

func TestStartHonoursCanceledContext(t *testing.T) {
	if testing.Short() {
		t.Skip("may install stripe-mock")
	}
	childproctest.StartHonoursCanceledContext(t, forTestsTimeout, installOnly, Start)
}

func TestForTestsPrefersRunningServer(t *testing.T) {
	const url = "http://127.0.0.1:1"
	t.Setenv(stripepay.EnvAPIURL, url)
	srv, stop, err := ForTests()
	if err != nil {
		t.Fatalf("ForTests: %v", err)
	}
	defer stop()
	if srv.URL != url {
		t.Errorf("ForTests().URL = %q; want %q", srv.URL, url)
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("Stop of a running server = %v; want nil", err)
	}
}

func TestForTestsSharesOneServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts stripe-mock")
	}
	t.Setenv(stripepay.EnvAPIURL, "")
	childproctest.SharesOneServer(t, ForTests, func(s *Server) string { return s.URL }, func(t *testing.T, s *Server) {
		if got := get(t, s.URL+probePath, SecretKey); got != http.StatusOK {
			t.Errorf("GET %s = %d; want 200", probePath, got)
		}
	})
}

func TestEnvAndSetEnv(t *testing.T) {
	t.Setenv(stripepay.EnvAPIURL, "")
	srv := &Server{URL: "http://127.0.0.1:4242"}
	if got, want := Env(srv), []string{"STRIPE_API_URL=http://127.0.0.1:4242"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("Env() = %q; want %q", got, want)
	}
	SetEnv(srv)
	if got := os.Getenv("STRIPE_API_URL"); got != srv.URL {
		t.Errorf("STRIPE_API_URL = %q after SetEnv; want %q", got, srv.URL)
	}
}

// installOnly installs the server (for StartHonoursCanceledContext).
func installOnly(ctx context.Context) error {
	_, err := Install(ctx)
	return err
}
