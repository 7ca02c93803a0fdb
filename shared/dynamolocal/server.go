package dynamolocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moveleads/partnerapi/shared/tail"

	"github.com/moveleads/partnerapi/shared/childproc"
)

const (
	// startTimeout bounds one Start after the install, whatever ctx allows.
	startTimeout = 60 * time.Second
	// startAttempts is how often Start picks a new port when another
	// process took the chosen one before the JVM bound it.
	startAttempts = 3
	// pollInterval is the pause between readiness probes.
	pollInterval = 50 * time.Millisecond
	// logLimit is how much of the child's output is kept for error messages.
	logLimit = 64 << 10
)

// errPortTaken marks a start that failed because the port was taken.
var errPortTaken = errors.New("port already in use")

// pickPort chooses the port of each start attempt; tests replace it.
var pickPort = freePort

// Server is a running DynamoDB Local process, in memory: its tables vanish
// when it stops.
type Server struct {
	// Endpoint is the server's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// Loopback reports whether the server listens on 127.0.0.1 only. It is
	// false only when no Java compiler was found to build the launcher
	// that binds it there (see the package documentation); the server
	// then listens on every interface and Warning says so.
	Loopback bool
	// Warning is empty when Loopback is true, else one line for the
	// operator saying that the server is reachable from other machines
	// and how to fix that.
	Warning string

	cmd      *exec.Cmd
	logs     *tail.Buffer
	done     chan struct{} // closed when the process has exited
	waitErr  error         // set before done is closed
	stopOnce sync.Once
	stopErr  error
}

// Start installs DynamoDB Local if needed (see [Install]) and starts it in
// memory on a free port of 127.0.0.1, in its own process group, listening
// on loopback only (through the launcher class this package compiles on
// first use; without a Java compiler it falls back to DynamoDB Local's own
// main class, which listens on every interface, and says so in
// [Server.Warning]). It returns once the server answers HTTP, or fails when
// ctx ends, after about a minute, when the launcher does not compile, or
// when the process exits first; the error then carries the process's
// output and no process is left behind. On Linux the process is killed if
// the calling process dies, so it never outlives a killed test binary.
func Start(ctx context.Context) (*Server, error) {
	dir, err := Install(ctx)
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: java not found on PATH (install it with: apt-get install -y openjdk-17-jre-headless): %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	main := mainClass{classPath: filepath.Join(dir, jarName), name: defaultMainClass}
	switch classes, err := launcher(ctx, java, dir); {
	case err == nil:
		main = mainClass{classPath: classPath(classes, filepath.Join(dir, jarName)), name: launcherClass, loopback: true}
	case errors.Is(err, errNoJavac):
		main.warning = "DynamoDB Local listens on every interface, not only 127.0.0.1: " + err.Error()
	default:
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}
	for attempt := 1; ; attempt++ {
		s, err := start(ctx, java, dir, main)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			return nil, fmt.Errorf("start dynamodb local: %w", err)
		}
	}
}

// defaultMainClass is DynamoDB Local's own main class (the jar's
// Main-Class), which listens on every interface.
const defaultMainClass = "software.amazon.dynamodb.services.local.main.ServerRunner"

// mainClass is what start runs: the loopback launcher, or DynamoDB Local's
// own main class when the launcher cannot be compiled.
type mainClass struct {
	classPath string // the jar first or after the launcher's directory; its manifest adds the libraries
	name      string
	loopback  bool
	warning   string // set when !loopback
}

// start runs one attempt on one free port.
func start(ctx context.Context, java, dir string, main mainClass) (*Server, error) {
	port, err := pickPort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(java,
		"-Xmx512m",
		"-Djava.library.path="+filepath.Join(dir, libDirName),
		"-cp", main.classPath, main.name,
		"-inMemory",
		// One database whatever the caller's access key and region, so that
		// every local client (tests, make dev, SAM containers) sees the same.
		"-sharedDb",
		// Telemetry would try to reach AWS, which is off this machine.
		"-disableTelemetry",
		"-port", strconv.Itoa(port),
	)
	// In memory it writes no files; a neutral directory keeps it that way.
	cmd.Dir = os.TempDir()
	logs := tail.New(logLimit)
	cmd.Stdout = logs
	cmd.Stderr = logs
	childproc.SetGroup(cmd)
	childproc.SetParentDeathSignal(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", java, err)
	}
	s := &Server{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		Loopback: main.loopback,
		Warning:  main.warning,
		cmd:      cmd,
		logs:     logs,
		done:     make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(ctx, port); err != nil {
		_ = s.kill()
		return nil, fmt.Errorf("%w; output:\n%s", err, logs.String())
	}
	return s, nil
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before the JVM binds it; start detects that and tries again.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls until this server's own process listens on port and
// answers an HTTP request, the process exits, or ctx ends. Checking the
// owner of the listener keeps a stranger on a reused port from passing for
// the server.
func (s *Server) waitReady(ctx context.Context, port int) error {
	transport := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 2 * time.Second}
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		if childproc.OwnsListener(s.cmd.Process.Pid, port) && answers(ctx, client, s.Endpoint) {
			return nil
		}
		// The JVM may linger after its main thread failed to bind.
		if bindFailed(s.logs.String()) {
			return fmt.Errorf("%w: %d", errPortTaken, port)
		}
		select {
		case <-s.done:
			if bindFailed(s.logs.String()) {
				return fmt.Errorf("%w: %d", errPortTaken, port)
			}
			return fmt.Errorf("exited before it was ready: %v", s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("not ready on port %d: %w", port, ctx.Err())
		case <-ticker.C:
		}
	}
}

// bindFailed reports whether DynamoDB Local's output says that its port was
// taken.
func bindFailed(output string) bool {
	return strings.Contains(output, "java.net.BindException") || strings.Contains(output, "Failed to bind to")
}

// answers reports whether endpoint answers a POST with any HTTP response;
// DynamoDB answers one without a target or signature with a 400 JSON error.
func answers(ctx context.Context, client *http.Client, endpoint string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/", strings.NewReader("{}"))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// Stop kills the server's process group and waits for the process to exit.
// It returns nil when the server was running until then, and an error with
// the server's output when it had already exited by itself. Calling Stop
// again returns the same result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
			s.stopErr = fmt.Errorf("stop dynamodb local at %s: exited by itself before Stop: %v; output:\n%s", s.Endpoint, s.waitErr, s.logs.String())
			return
		default:
		}
		if err := s.kill(); err != nil {
			s.stopErr = fmt.Errorf("stop dynamodb local at %s: %w", s.Endpoint, err)
		}
	})
	return s.stopErr
}

// kill sends SIGKILL to the process group and waits for the process. The
// server keeps nothing worth a graceful shutdown: its data is in memory.
func (s *Server) kill() error {
	err := childproc.KillGroup(s.cmd.Process)
	<-s.done
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
