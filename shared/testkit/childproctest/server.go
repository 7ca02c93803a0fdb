package childproctest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// Stopper is a server that the local-server packages start.
type Stopper interface{ Stop() error }

// StartServer runs start under timeout, fails t when it fails, and stops
// the server when t ends. It returns the server and how long the start
// took.
func StartServer[S Stopper](t *testing.T, timeout time.Duration, start func(context.Context) (S, error)) (S, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	began := time.Now()
	s, err := start(ctx)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	took := time.Since(began)
	t.Cleanup(func() { _ = s.Stop() })
	return s, took
}

// Refused reports whether nothing accepts TCP connections at endpoint
// (http://HOST:PORT or HOST:PORT).
func Refused(endpoint string) bool {
	return !listening(strings.TrimPrefix(endpoint, "http://"))
}

// StopReportsDeath kills the process group of a running server (pid),
// waits until done is closed, and fails t unless stop then returns an
// error.
func StopReportsDeath(t *testing.T, pid int, done <-chan struct{}, stop func() error) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := childproc.KillGroup(p); err != nil {
		t.Fatalf("kill: %v", err)
	}
	<-done
	if err := stop(); err == nil {
		t.Error("Stop after the server died = nil; want an error")
	}
}

// StartHonoursCanceledContext installs the server with install under
// timeout, then fails t unless start with an already canceled context
// fails with context.Canceled.
func StartHonoursCanceledContext[S Stopper](t *testing.T, timeout time.Duration, install func(context.Context) error, start func(context.Context) (S, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := install(ctx); err != nil {
		t.Fatalf("Install: %v", err)
	}
	canceled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	s, err := start(canceled)
	if err == nil {
		_ = s.Stop()
		t.Fatal("Start(canceled ctx) = nil error; want context.Canceled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Start(canceled ctx) = %v; want context.Canceled", err)
	}
}

// StopCloses stops a running server with stop and fails t unless that
// succeeds, nothing then accepts connections at endpoint, checks (when not
// nil) passes, and a second stop returns nil.
func StopCloses(t *testing.T, stop func() error, endpoint string, checks func()) {
	t.Helper()
	if err := stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !Refused(endpoint) {
		t.Errorf("dial %s after Stop succeeded; want connection refused", endpoint)
	}
	if checks != nil {
		checks()
	}
	if err := stop(); err != nil {
		t.Errorf("second Stop = %v; want nil", err)
	}
}

// SharesOneServer checks a package's ForTests, with no running server
// configured: a second call returns the first call's server, answers
// (which fails t when the server does not answer) passes for it, and the
// first call's stop closes endpoint(server).
func SharesOneServer[S comparable](t *testing.T, forTests func() (S, func(), error), endpoint func(S) string, answers func(*testing.T, S)) {
	t.Helper()
	first, stop, err := forTests()
	if err != nil {
		t.Fatalf("ForTests: %v", err)
	}
	second, _, err := forTests()
	if err != nil || second != first {
		t.Errorf("second ForTests() = %v, %v; want the first server %v, nil", second, err, first)
	}
	answers(t, first)
	stop()
	if e := endpoint(first); !Refused(e) {
		t.Errorf("dial %s after stop succeeded; want connection refused", e)
	}
}

// RetriesPastTakenPort makes *pickPorts put a port that a listener holds
// first (see TakenPortFirst) until t ends, starts a server with start,
// which returns its endpoint (http://127.0.0.1:PORT), and fails t unless
// the start picked ports twice and the endpoint is not the taken port. It
// returns the endpoint, for the caller to check that the server answers.
func RetriesPastTakenPort(t *testing.T, pickPorts *func(int) ([]int, error), start func() string) string {
	t.Helper()
	takenPort, pick, calls := TakenPortFirst(t)
	saved := *pickPorts
	*pickPorts = pick
	t.Cleanup(func() { *pickPorts = saved })

	endpoint := start()
	if *calls != 2 {
		t.Errorf("Start picked ports %d times; want 2", *calls)
	}
	if taken := fmt.Sprintf("http://127.0.0.1:%d", takenPort); endpoint == taken {
		t.Errorf("endpoint = %q, the taken port", endpoint)
	}
	return endpoint
}

// listening reports whether something accepts TCP connections at host.
func listening(host string) bool {
	conn, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
