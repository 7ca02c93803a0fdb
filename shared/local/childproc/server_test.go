package childproc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveEnv makes the test binary act as a server on the port it names.
const serveEnv = "CHILDPROC_TEST_SERVE"

// TestHelperServer is not a test on its own: it is the server the other
// tests start, which answers 200 on 127.0.0.1:$CHILDPROC_TEST_SERVE or
// says "bind failed" and exits when the port is taken.
func TestHelperServer(t *testing.T) {
	port := os.Getenv(serveEnv)
	if port == "" {
		t.Skip("helper process for the Start tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Println("bind failed:", err)
		os.Exit(1)
	}
	_ = http.Serve(l, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
}

// testSpec returns a Spec running TestHelperServer, or cmdline when given,
// and counts the cleanups that ran.
func testSpec(cleanups *int, cmdline ...string) Spec {
	return Spec{
		Ports: 1,
		Command: func(ports []int) (*exec.Cmd, func() error, error) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.count=1")
			if len(cmdline) > 0 {
				cmd = exec.Command(cmdline[0], cmdline[1:]...)
			}
			cmd.Env = append(os.Environ(), serveEnv+"="+strconv.Itoa(ports[0]))
			return cmd, func() error { *cleanups++; return nil }, nil
		},
		Ready: func(ctx context.Context, client *http.Client, endpoint string) bool {
			resp, err := client.Get(endpoint)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		},
		BindFailed: func(output string) bool { return strings.Contains(output, "bind failed") },
	}
}

func startTest(t *testing.T, spec Spec) *Process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := Start(ctx, spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

func TestStartAndStop(t *testing.T) {
	cleanups := 0
	p := startTest(t, testSpec(&cleanups))
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(p.Endpoint, "http://"), time.Second); err == nil {
		c.Close()
		t.Errorf("dial %s after Stop succeeded; want connection refused", p.Endpoint)
	}
	if err := p.Stop(); err != nil || cleanups != 1 {
		t.Errorf("second Stop = %v with %d cleanups; want nil and 1", err, cleanups)
	}
}

func TestStartRetriesOnTakenPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	cleanups, calls := 0, 0
	spec := testSpec(&cleanups)
	spec.PickPorts = func(n int) ([]int, error) {
		if calls++; calls == 1 {
			return []int{taken}, nil
		}
		return FreePorts(n)
	}
	p := startTest(t, spec)
	if calls != 2 || p.Ports[0] == taken || cleanups != 1 {
		t.Errorf("ports picked %d times, port %d (taken %d), %d cleanups; want 2, another port, 1", calls, p.Ports[0], taken, cleanups)
	}
}

func TestStartFailsWhenProcessExits(t *testing.T) {
	cleanups := 0
	_, err := Start(context.Background(), testSpec(&cleanups, "sh", "-c", "echo no luck; exit 3"))
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "no luck") {
		t.Errorf("Start = %v; want an exit error quoting the output", err)
	}
	if errors.Is(err, ErrPortTaken) || cleanups != 1 {
		t.Errorf("Start = %v with %d cleanups; want no ErrPortTaken and 1 cleanup", err, cleanups)
	}
}

func TestStopReportsProcessThatDiedFirst(t *testing.T) {
	cleanups := 0
	p := startTest(t, testSpec(&cleanups))
	if err := KillGroup(p.cmd.Process); err != nil {
		t.Fatalf("kill: %v", err)
	}
	<-p.Done()
	if err := p.Stop(); err == nil || !strings.Contains(err.Error(), "exited by itself") || cleanups != 1 {
		t.Errorf("Stop = %v with %d cleanups; want an exited-by-itself error and 1 cleanup", err, cleanups)
	}
}
