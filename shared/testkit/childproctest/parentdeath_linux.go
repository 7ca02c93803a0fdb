package childproctest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// HelperParent is the body of a test that acts as the parent in
// DiesWithKilledParent: it skips unless $env is "1", else calls start,
// prints the server's pid, endpoint and extra fields (no spaces) on one
// line and sleeps until it is killed. start should fail t when the server
// does not start.
func HelperParent(t *testing.T, env string, start func(t *testing.T) (pid int, endpoint string, extra []string)) {
	t.Helper()
	if os.Getenv(env) != "1" {
		t.Skip("helper process for a parent-death test")
	}
	pid, endpoint, extra := start(t)
	fmt.Println(strings.Join(append([]string{"SERVER", strconv.Itoa(pid), endpoint}, extra...), " "))
	time.Sleep(2 * time.Minute) // killed long before this
}

// DiesWithKilledParent runs the test binary again with only helperTest
// (which calls HelperParent) and $env=1, waits up to 2 minutes for the
// server it reports, passes the report's extra fields to reported (which
// may register cleanups for what the killed parent leaves behind), SIGKILLs
// the parent, and fails t unless the server's process and its endpoint are
// gone within 15 s; what names the server in messages.
func DiesWithKilledParent(t *testing.T, what, helperTest, env string, reported func(extra []string)) {
	t.Helper()
	parent := exec.Command(os.Args[0], "-test.run=^"+helperTest+"$", "-test.count=1")
	parent.Env = append(os.Environ(), env+"=1")
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = parent.Process.Kill()
		_ = parent.Wait()
	}()

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var pid int
	var endpoint string
	deadline := time.After(2 * time.Minute)
	for pid == 0 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("helper parent exited without reporting a server")
			}
			if f := strings.Fields(line); len(f) >= 3 && f[0] == "SERVER" {
				pid, _ = strconv.Atoi(f[1])
				endpoint = f[2]
				if reported != nil {
					reported(f[3:])
				}
			}
		case <-deadline:
			t.Fatal("helper parent reported no server within 2 minutes")
		}
	}
	go func() {
		for range lines { // drain so the helper never blocks on stdout
		}
	}()

	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill helper parent: %v", err)
	}
	_ = parent.Wait()

	host := strings.TrimPrefix(endpoint, "http://")
	for start := time.Now(); alive(pid) || listening(host); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("%s (pid %d, %s) still running 15 s after its parent was killed", what, pid, host)
		}
	}
}

// alive reports whether pid runs and is not a zombie waiting to be reaped.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
