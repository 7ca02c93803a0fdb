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
	"sync"
	"time"
)

const (
	// startAttempts is how often Start picks new ports when another
	// process took a chosen one before the server bound it.
	startAttempts = 3
	// pollInterval is the pause between readiness probes.
	pollInterval = 50 * time.Millisecond
	// logLimit is how much of the child's output is kept for error messages.
	logLimit = 64 << 10
)

// ErrPortTaken marks a start attempt that failed because a chosen port was
// taken; Start then tries again on new ports.
var ErrPortTaken = errors.New("port already in use")

// Spec describes a local server that Start runs on loopback ports.
type Spec struct {
	// Ports is how many distinct free ports each attempt needs (at least
	// one). The first is the one the server's HTTP endpoint listens on.
	Ports int
	// PickPorts chooses the ports of each attempt; nil means FreePorts.
	// Tests replace it to hand out a taken port.
	PickPorts func(n int) ([]int, error)
	// Command builds the command of one attempt for the chosen ports, and
	// a cleanup (may be nil) that runs once the process is gone, whether the
	// attempt failed or the server was stopped. When Command fails it must
	// leave nothing to clean up.
	Command func(ports []int) (cmd *exec.Cmd, cleanup func() error, err error)
	// Ready reports whether the server at endpoint (http://127.0.0.1:PORT)
	// serves requests; client neither keeps connections nor uses a proxy.
	Ready func(ctx context.Context, client *http.Client, endpoint string) bool
	// BindFailed reports whether the server's output says that a port
	// was taken.
	BindFailed func(output string) bool
}

// Process is a server that Start runs: in its own process group and, on
// Linux, killed when the calling process dies.
type Process struct {
	// Endpoint is the server's base URL, http://127.0.0.1:PORT, on the
	// first of Ports.
	Endpoint string
	// Ports are the ports of the attempt that succeeded.
	Ports []int

	cmd      *exec.Cmd
	cleanup  func() error
	logs     *Tail
	done     chan struct{} // closed when the process has exited
	waitErr  error         // set before done is closed
	stopOnce sync.Once
	stopErr  error
}

// Start runs spec's server on free loopback ports, trying new ports up to
// three times when the server reports that one was taken, and returns once
// its own process listens on the first port and spec.Ready answers. It
// fails when ctx ends, when the command cannot be built or run, or when the
// process exits first; the error then carries the process's output, and no
// process is left behind and every cleanup has run.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	for attempt := 1; ; attempt++ {
		p, err := startOnce(ctx, spec)
		if err == nil || !errors.Is(err, ErrPortTaken) || attempt == startAttempts {
			return p, err
		}
	}
}

// startOnce runs one attempt on one set of free ports.
func startOnce(ctx context.Context, spec Spec) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pick := spec.PickPorts
	if pick == nil {
		pick = FreePorts
	}
	ports, err := pick(max(spec.Ports, 1))
	if err != nil {
		return nil, err
	}
	cmd, cleanup, err := spec.Command(ports)
	if err != nil {
		return nil, err
	}
	if cleanup == nil {
		cleanup = func() error { return nil }
	}
	logs := NewTail(logLimit)
	cmd.Stdout = logs
	cmd.Stderr = logs
	SetGroup(cmd)
	SetParentDeathSignal(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		_ = cleanup()
		return nil, fmt.Errorf("run %s: %w", cmd.Path, err)
	}
	p := &Process{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(ports[0]),
		Ports:    ports,
		cmd:      cmd,
		cleanup:  cleanup,
		logs:     logs,
		done:     make(chan struct{}),
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx, spec); err != nil {
		_ = p.kill()
		return nil, fmt.Errorf("%w; output:\n%s", err, logs.String())
	}
	return p, nil
}

// FreePorts asks the kernel for n distinct free loopback ports. Another
// process may take one before the server binds it; Start detects that and
// tries again.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		// Held open until all are chosen, so they differ.
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// waitReady polls until this process listens on the first port and
// answers spec.Ready, the process exits, or ctx ends. Checking the owner of
// the listener keeps a stranger on a reused port from passing for the
// server.
func (p *Process) waitReady(ctx context.Context, spec Spec) error {
	transport := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 2 * time.Second}
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	port := p.Ports[0]
	for {
		if OwnsListener(p.cmd.Process.Pid, port) && spec.Ready(ctx, client, p.Endpoint) {
			return nil
		}
		// A server (a JVM) may linger after its main thread failed to bind.
		if spec.BindFailed(p.logs.String()) {
			return p.portTaken()
		}
		select {
		case <-p.done:
			if spec.BindFailed(p.logs.String()) {
				return p.portTaken()
			}
			return fmt.Errorf("exited before it was ready: %v", p.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("not ready on port %d: %w", port, ctx.Err())
		case <-ticker.C:
		}
	}
}

// portTaken returns ErrPortTaken naming the attempt's ports.
func (p *Process) portTaken() error {
	ports := make([]string, len(p.Ports))
	for i, port := range p.Ports {
		ports[i] = strconv.Itoa(port)
	}
	return fmt.Errorf("%w: %s", ErrPortTaken, strings.Join(ports, " or "))
}

// Pid returns the server's process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop kills the process group, waits for the process to exit and runs
// the cleanup. It returns nil when the server was running until then, and
// an error with the server's output when it had already exited by itself
// (the cleanup still runs) or when the kill or the cleanup failed. Calling
// Stop again returns the same result. Stop of a nil Process (a server
// that its package did not start) does nothing and returns nil.
func (p *Process) Stop() error {
	if p == nil {
		return nil
	}
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
			p.stopErr = fmt.Errorf("exited by itself before Stop: %v; output:\n%s", p.waitErr, p.logs.String())
			_ = p.cleanup()
			return
		default:
		}
		p.stopErr = p.kill()
	})
	return p.stopErr
}

// kill sends SIGKILL to the process group, waits for the process and runs
// the cleanup. The servers keep nothing worth a graceful shutdown.
func (p *Process) kill() error {
	err := KillGroup(p.cmd.Process)
	<-p.done
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	return errors.Join(err, p.cleanup())
}

// Output returns the end of the server's output so far (the last 64 KiB).
func (p *Process) Output() string { return p.logs.String() }

// ReadyWhenOK returns a Spec.Ready that reports whether a GET of
// endpoint+path, with header (name, value pairs), answers 200.
func ReadyWhenOK(path string, header ...string) func(ctx context.Context, client *http.Client, endpoint string) bool {
	return func(ctx context.Context, client *http.Client, endpoint string) bool {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+path, nil)
		if err != nil {
			return false
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
}
