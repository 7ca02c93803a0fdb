package s3local

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/childproc"
)

// helperEnv makes the test binary act as a parent that starts a server and
// then waits to be killed.
const helperEnv = "S3LOCAL_TEST_PARENT"

// TestHelperParent is not a test on its own: TestServerDiesWithKilledParent
// runs it in a child test binary.
func TestHelperParent(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process for TestServerDiesWithKilledParent")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	s, err := Start(ctx)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer s.Stop()
	fmt.Printf("SERVER %d %s %s\n", s.cmd.Process.Pid, s.Endpoint, s.dir)
	time.Sleep(2 * time.Minute) // killed long before this
}

func TestServerDiesWithKilledParent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestHelperParent$", "-test.count=1")
	parent.Env = append(os.Environ(), helperEnv+"=1")
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
			if f := strings.Fields(line); len(f) == 4 && f[0] == "SERVER" {
				pid, _ = strconv.Atoi(f[1])
				endpoint = f[2]
				// The killed parent cannot remove the server's data.
				dir := f[3]
				t.Cleanup(func() { os.RemoveAll(dir) })
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
			t.Fatalf("MinIO (pid %d, %s) still running 15 s after its parent was killed", pid, host)
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

func listening(host string) bool {
	conn, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

func TestOwnsListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = other.Process.Kill()
		_ = other.Wait()
	}()

	if !childproc.OwnsListener(os.Getpid(), port) {
		t.Errorf("childproc.OwnsListener(self, %d) = false while listening; want true", port)
	}
	if childproc.OwnsListener(other.Process.Pid, port) {
		t.Errorf("childproc.OwnsListener(other process, %d) = true; want false", port)
	}
	l.Close()
	if childproc.OwnsListener(os.Getpid(), port) {
		t.Errorf("childproc.OwnsListener(self, %d) = true after Close; want false", port)
	}
}
