package stripelocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/childproc"
	"github.com/moveleads/partnerapi/shared/childproc/childproctest"
	"github.com/moveleads/partnerapi/shared/stripepay"
)

// startServer starts a server for one test and stops it at the end.
func startServer(t *testing.T) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts stripe-mock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	began := time.Now()
	s, err := Start(ctx)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("stripe-mock ready at %s after %v", s.URL, time.Since(began))
	t.Cleanup(func() { _ = s.Stop() })
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

// refused reports whether nothing accepts TCP connections at url.
func refused(url string) bool {
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second)
	if err != nil {
		return true
	}
	conn.Close()
	return false
}

func TestStartServesStripeAPIAndStopCloses(t *testing.T) {
	s := startServer(t)
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

	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !refused(s.URL) {
		t.Errorf("dial %s after Stop succeeded; want connection refused", s.URL)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop = %v; want nil", err)
	}
}

func TestStopReportsServerThatDiedFirst(t *testing.T) {
	s := startServer(t)
	p, err := os.FindProcess(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if err := childproc.KillGroup(p); err != nil {
		t.Fatalf("kill: %v", err)
	}
	<-s.proc.Done()
	if err := s.Stop(); err == nil {
		t.Error("Stop after the server died = nil; want an error")
	}
}

func TestStartHonoursCanceledContext(t *testing.T) {
	if testing.Short() {
		t.Skip("may install stripe-mock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	if _, err := Install(ctx); err != nil {
		t.Fatalf("Install: %v", err)
	}
	canceled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	s, err := Start(canceled)
	if err == nil {
		_ = s.Stop()
		t.Fatal("Start(canceled ctx) = nil error; want context.Canceled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Start(canceled ctx) = %v; want context.Canceled", err)
	}
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
	first, stop, err := ForTests()
	if err != nil {
		t.Fatalf("ForTests: %v", err)
	}
	second, _, err := ForTests()
	if err != nil || second != first {
		t.Errorf("second ForTests() = %p, %v; want the first server %p, nil", second, err, first)
	}
	if got := get(t, first.URL+probePath, SecretKey); got != http.StatusOK {
		t.Errorf("GET %s = %d; want 200", probePath, got)
	}
	stop()
	if !refused(first.URL) {
		t.Errorf("dial %s after stop succeeded; want connection refused", first.URL)
	}
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

// TestStartRetriesWhenPortIsTaken gives the first attempt an HTTP port
// that another listener holds: stripe-mock cannot bind it, and the
// listener must not pass for the server.
func TestStartRetriesWhenPortIsTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts stripe-mock")
	}
	takenPort, pick, calls := childproctest.TakenPortFirst(t)
	pickPorts = pick
	t.Cleanup(func() { pickPorts = childproc.FreePorts })

	s := startServer(t)
	if *calls != 2 {
		t.Errorf("Start picked ports %d times; want 2", *calls)
	}
	if taken := fmt.Sprintf("http://127.0.0.1:%d", takenPort); s.URL == taken {
		t.Errorf("URL = %q, the taken port", s.URL)
	}
	if got := get(t, s.URL+probePath, SecretKey); got != http.StatusOK {
		t.Errorf("GET %s = %d; want 200", probePath, got)
	}
}
