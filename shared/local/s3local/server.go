package s3local

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
)

const (
	// startTimeout bounds one Start after the install, whatever ctx allows.
	startTimeout = 60 * time.Second
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

// pickPorts chooses the API and console ports of each start attempt;
// tests replace it.
var pickPorts = childproc.FreePorts

// Server is a MinIO server: one that Start runs, with its data in a
// temporary directory removed by Stop, or a developer's running one that
// ForTests found (Stop then does nothing).
type Server struct {
	// Endpoint is the S3 API's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are the credentials the server accepts.
	AccessKey string
	SecretKey string

	proc *childproc.Process // nil for a server this package did not start
	dir  string             // temporary directory of data and certificates
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
	var dir string // of the latest attempt
	proc, err := childproc.Start(ctx, childproc.Spec{
		Ports:     2,
		PickPorts: pickPorts,
		Command: func(ports []int) (*exec.Cmd, func() error, error) {
			cmd, err := command(bin, ports[0], ports[1], o)
			if err != nil {
				return nil, nil, err
			}
			dir = cmd.Dir
			return cmd, func() error {
				if err := os.RemoveAll(cmd.Dir); err != nil {
					return fmt.Errorf("remove data: %w", err)
				}
				return nil
			}, nil
		},
		Ready:      childproc.ReadyWhenOK(healthPath),
		BindFailed: bindFailed,
	})
	if err != nil {
		return nil, fmt.Errorf("start minio: %w", err)
	}
	return &Server{Endpoint: proc.Endpoint, AccessKey: rootUser, SecretKey: rootPassword, proc: proc, dir: dir}, nil
}

// command builds the `minio server` command line of one start attempt, in
// a new temporary directory (its cmd.Dir) of data and certificates, which
// the caller removes.
func command(bin string, port, consolePort int, o options) (*exec.Cmd, error) {
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
	return cmd, nil
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

// bindFailed reports whether MinIO's output says that a port was taken.
func bindFailed(output string) bool {
	return strings.Contains(output, "address already in use") || strings.Contains(output, "port is already in use")
}

// Stop kills the server's process group, waits for the process to exit and
// removes its data. It returns nil when the server was running until then
// (or was not started by this package), and an error with the server's
// output when it had already exited by itself or its data could not be
// removed. Calling Stop again returns the same result.
func (s *Server) Stop() error {
	if err := s.proc.Stop(); err != nil {
		return fmt.Errorf("stop minio at %s: %w", s.Endpoint, err)
	}
	return nil
}
