package s3local

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
	// startAttempts is how often Start picks new ports when another
	// process took a chosen one before MinIO bound it.
	startAttempts = 3
	// pollInterval is the pause between readiness probes.
	pollInterval = 50 * time.Millisecond
	// logLimit is how much of the child's output is kept for error messages.
	logLimit = 64 << 10
	// healthPath answers 200 once MinIO serves requests.
	healthPath = "/minio/health/live"

	// rootUser and rootPassword are the fixed root credentials of every
	// server Start runs. They guard nothing (the server listens on loopback
	// and holds throwaway data) but MinIO checks signatures, so clients
	// need them; MinIO refuses a password under 8 characters.
	rootUser     = "s3local"
	rootPassword = "s3local-secret"
	// Region is the region of every server Start runs (MinIO's default),
	// the one clients sign requests for.
	Region = "us-east-1"
)

// errPortTaken marks a start that failed because a port was taken.
var errPortTaken = errors.New("port already in use")

// pickPorts chooses the API and console ports of each start attempt;
// tests replace it.
var pickPorts = freePorts

// Server is a MinIO server: one that Start runs, with its data in a
// temporary directory removed by Stop, or a developer's running one that
// ForTests found (Stop then does nothing).
type Server struct {
	// Endpoint is the S3 API's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are the credentials the server accepts.
	AccessKey string
	SecretKey string

	cmd      *exec.Cmd // nil for a server this package did not start
	dir      string    // temporary directory of data and certificates
	logs     *tail.Buffer
	done     chan struct{} // closed when the process has exited
	waitErr  error         // set before done is closed
	stopOnce sync.Once
	stopErr  error
}

// Start installs MinIO if needed (see [Install]) and runs `minio server`
// with its API and console on free ports of 127.0.0.1 (and no other
// address), the console's web UI and update checks off, the fixed root
// credentials of [Server.AccessKey] and [Server.SecretKey], its data in a
// new temporary directory, and the settings of opts, which MinIO reads
// only at start: notification targets ([WithWebhooks]) and CORS origins
// ([WithCORSOrigins]; none by default). Variables MINIO_* of this process
// are not passed on.
//
// Start returns once the server answers its health check. It fails for an
// invalid option, when the install fails, when ctx ends, after about a
// minute, or when the process exits first; the error then carries the
// process's output and no process or directory is left behind. The server
// runs in its own process group; on Linux it is killed if the calling
// process dies, so it never outlives a killed test binary (its temporary
// directory then remains).
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("start minio: %w", err)
	}
	bin, err := Install(ctx)
	if err != nil {
		return nil, fmt.Errorf("start minio: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		s, err := start(ctx, bin, o)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			return nil, fmt.Errorf("start minio: %w", err)
		}
	}
}

// start runs one attempt on one pair of free ports.
func start(ctx context.Context, bin string, o options) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	port, consolePort, err := pickPorts()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "s3local-")
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	cmd := exec.Command(bin, "server", filepath.Join(dir, "data"),
		"--address", "127.0.0.1:"+strconv.Itoa(port),
		"--console-address", "127.0.0.1:"+strconv.Itoa(consolePort),
		// MinIO would otherwise create ~/.minio/certs.
		"--certs-dir", filepath.Join(dir, "certs"),
		"--quiet",
	)
	cmd.Dir = dir
	cmd.Env = serverEnv(os.Environ(), o)
	logs := tail.New(logLimit)
	cmd.Stdout = logs
	cmd.Stderr = logs
	childproc.SetGroup(cmd)
	childproc.SetParentDeathSignal(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	s := &Server{
		Endpoint:  "http://127.0.0.1:" + strconv.Itoa(port),
		AccessKey: rootUser,
		SecretKey: rootPassword,
		cmd:       cmd,
		dir:       dir,
		logs:      logs,
		done:      make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(ctx, port, consolePort); err != nil {
		_ = s.kill()
		return nil, fmt.Errorf("%w; output:\n%s", err, logs.String())
	}
	return s, nil
}

// serverEnv returns environ without MINIO_* variables (a developer's own
// settings must not change the server), plus this package's settings and
// those of o.
func serverEnv(environ []string, o options) []string {
	env := make([]string, 0, len(environ)+8)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "MINIO_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"MINIO_ROOT_USER="+rootUser,
		"MINIO_ROOT_PASSWORD="+rootPassword,
		"MINIO_BROWSER=off",
		"MINIO_UPDATE=off",
		// S3 calls wait until the boot has registered the notification
		// targets; otherwise, for a moment after the health check passes,
		// a notification configuration naming one is refused
		// (InvalidArgument: ARN does not exist).
		"MINIO_SYNC_BOOT=on",
	)
	return append(env, o.env()...)
}

// freePorts asks the kernel for two distinct free loopback ports. Another
// process may take one before MinIO binds it; start detects that and tries
// again.
func freePorts() (api, console int, err error) {
	var ports [2]int
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, 0, fmt.Errorf("find a free port: %w", err)
		}
		// Held open until both are chosen, so the two differ.
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports[0], ports[1], nil
}

// waitReady polls until this server's own process listens on port (the
// API's; consolePort only names the other port in errors) and
// answers its health check with 200, the process exits, or ctx ends.
// Checking the owner of the listener keeps a stranger on a reused port
// from passing for the server.
func (s *Server) waitReady(ctx context.Context, port, consolePort int) error {
	transport := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 2 * time.Second}
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		if childproc.OwnsListener(s.cmd.Process.Pid, port) && healthy(ctx, client, s.Endpoint) {
			return nil
		}
		select {
		case <-s.done:
			if bindFailed(s.logs.String()) {
				return fmt.Errorf("%w: %d or %d", errPortTaken, port, consolePort)
			}
			return fmt.Errorf("exited before it was ready: %v", s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("not ready on port %d: %w", port, ctx.Err())
		case <-ticker.C:
		}
	}
}

// bindFailed reports whether MinIO's output says that a port was taken.
func bindFailed(output string) bool {
	return strings.Contains(output, "address already in use") || strings.Contains(output, "port is already in use")
}

// healthy reports whether endpoint's liveness check answers 200.
func healthy(ctx context.Context, client *http.Client, endpoint string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+healthPath, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop kills the server's process group, waits for the process to exit and
// removes its data. It returns nil when the server was running until then
// (or was not started by this package), and an error with the server's
// output when it had already exited by itself or its data could not be
// removed. Calling Stop again returns the same result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		if s.cmd == nil {
			return
		}
		select {
		case <-s.done:
			s.stopErr = fmt.Errorf("stop minio at %s: exited by itself before Stop: %v; output:\n%s", s.Endpoint, s.waitErr, s.logs.String())
			_ = os.RemoveAll(s.dir)
			return
		default:
		}
		if err := s.kill(); err != nil {
			s.stopErr = fmt.Errorf("stop minio at %s: %w", s.Endpoint, err)
		}
	})
	return s.stopErr
}

// kill sends SIGKILL to the process group, waits for the process and
// removes the data directory. The data is throwaway, so there is nothing
// worth a graceful shutdown.
func (s *Server) kill() error {
	err := childproc.KillGroup(s.cmd.Process)
	<-s.done
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	if rmErr := os.RemoveAll(s.dir); rmErr != nil {
		err = errors.Join(err, fmt.Errorf("remove data: %w", rmErr))
	}
	return err
}
