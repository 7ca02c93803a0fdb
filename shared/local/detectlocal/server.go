package detectlocal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
	"github.com/moveleads/partnerapi/shared/local/repo"
)

const (
	// MaxFrameBytes is the largest frame the sidecar accepts (413 above)
	// and the client sends (ErrBadFrame above). A 1920x1080 still from the
	// capture page is 0.2-0.6 MB.
	MaxFrameBytes = 5 << 20
	// maxQueue is how many frames may wait for the detector; more are
	// answered 503, so the sidecar holds at most this many bodies.
	maxQueue = 16
	// startTimeout bounds one Start after the install, whatever ctx allows:
	// the model loads and runs once in about a second here.
	startTimeout = 60 * time.Second
	// healthPath answers 200 once the model is loaded.
	healthPath = "/healthz"
	// detectPath takes one JPEG per POST.
	detectPath = "/detect"
)

// queueLimit is the --queue of the sidecars Start runs; tests lower it.
var queueLimit = maxQueue

// Server is a detector sidecar: one that Start runs, or the running one
// of `make dev` that ForTests found (Stop then does nothing).
type Server struct {
	// Endpoint is the sidecar's base URL, http://127.0.0.1:PORT.
	Endpoint string

	proc *childproc.Process // nil for a sidecar this package did not start
}

// Start installs the detector if needed (see [Install]) and runs
// scripts/detector/server.mjs with node on a free port of 127.0.0.1 (and
// no other address). NODE_OPTIONS and NODE_PATH of this process are not
// passed on, so a developer's settings cannot load other code into it.
//
// Start returns once the sidecar answers GET /healthz with 200, which it
// does once the model is loaded. It fails when node is not on PATH, when
// the install fails, when ctx ends, after a minute, or when the process
// exits first; the error then carries the process's output and no process
// is left behind. The sidecar runs in its own process group; on Linux it
// is killed if the calling process dies.
func Start(ctx context.Context) (*Server, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("start detector: node not found on PATH; the detector needs Node.js 18+: %w", err)
	}
	dir, err := Install(ctx)
	if err != nil {
		return nil, fmt.Errorf("start detector: %w", err)
	}
	root, err := repo.Root()
	if err != nil {
		return nil, fmt.Errorf("start detector: %w", err)
	}
	script := filepath.Join(root, filepath.FromSlash(serverScript))
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	proc, err := childproc.Start(ctx, childproc.Spec{
		Ports: 1,
		Command: func(ports []int) (*exec.Cmd, func() error, error) {
			return command(node, script, filepath.Join(dir, "node_modules"), ports[0]), nil, nil
		},
		Ready: childproc.ReadyWhenOK(healthPath),
		BindFailed: func(output string) bool {
			return strings.Contains(output, "EADDRINUSE")
		},
	})
	if err != nil {
		return nil, fmt.Errorf("start detector: %w", err)
	}
	return &Server{Endpoint: proc.Endpoint, proc: proc}, nil
}

// command builds the sidecar's command line for one start attempt.
func command(node, script, modules string, port int) *exec.Cmd {
	cmd := exec.Command(node, script,
		"--modules", modules,
		"--port", strconv.Itoa(port),
		"--max-bytes", strconv.Itoa(MaxFrameBytes),
		"--queue", strconv.Itoa(queueLimit),
	)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = sidecarEnv(os.Environ())
	return cmd
}

// sidecarEnv returns environ without the variables through which Node
// would load code or options of the developer's into the sidecar.
func sidecarEnv(environ []string) []string {
	env := make([]string, 0, len(environ))
	for _, kv := range environ {
		if strings.HasPrefix(kv, "NODE_OPTIONS=") || strings.HasPrefix(kv, "NODE_PATH=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Client returns a detector client for the sidecar (see [NewClient]).
func (s *Server) Client() *Client { return NewClient(s.Endpoint) }

// Stop kills the sidecar's process group and waits for it to exit. It
// returns nil when the sidecar was running until then (or was not started
// by this package), and an error with its output when it had already
// exited by itself. Calling Stop again returns the same result.
func (s *Server) Stop() error {
	if err := s.proc.Stop(); err != nil {
		return fmt.Errorf("stop detector at %s: %w", s.Endpoint, err)
	}
	return nil
}
