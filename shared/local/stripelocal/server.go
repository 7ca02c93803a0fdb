package stripelocal

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

const (
	// startTimeout bounds one Start after the install, whatever ctx allows.
	startTimeout = 60 * time.Second
	// SecretKey is a key stripe-mock accepts (any of the sk_test_ form);
	// tests and make dev give it to stripepay.
	SecretKey = "sk_test_stripelocal"
	// probePath is a cheap authenticated GET that answers 200.
	probePath = "/v1/balance"
)

// pickPorts chooses the HTTP and HTTPS ports of each start attempt; tests
// replace it.
var pickPorts = childproc.FreePorts

// Server is a stripe-mock: one that Start runs, or a developer's running
// one that ForTests found (Stop then does nothing).
type Server struct {
	// URL is the plain-HTTP API's base URL, http://127.0.0.1:PORT: what
	// stripepay.Config.APIURL takes.
	URL string

	proc *childproc.Process // nil for a server this package did not start
}

// Start installs stripe-mock if needed (see [Install]) and runs it with
// HTTP on a free port of 127.0.0.1 and HTTPS (which it always opens, on
// every address unless told otherwise) on another, and no other address.
// It returns once the server answers an authenticated GET. It fails when
// the install fails, when ctx ends, after 30 seconds, or when the process
// exits first; the error then carries the process's output and no process
// is left behind. The server runs in its own process group; on Linux it is
// killed if the calling process dies, so it never outlives a killed test
// binary.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Install(ctx)
	if err != nil {
		return nil, fmt.Errorf("start stripe-mock: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	proc, err := childproc.Start(ctx, childproc.Spec{
		Ports:     2,
		PickPorts: pickPorts,
		Command: func(ports []int) (*exec.Cmd, func() error, error) {
			return command(bin, ports[0], ports[1]), nil, nil
		},
		Ready:      childproc.ReadyWhenOK(probePath, "Authorization", "Bearer "+SecretKey),
		BindFailed: bindFailed,
	})
	if err != nil {
		return nil, fmt.Errorf("start stripe-mock: %w", err)
	}
	return &Server{URL: proc.Endpoint, proc: proc}, nil
}

// command builds the stripe-mock command line of one start attempt.
func command(bin string, httpPort, httpsPort int) *exec.Cmd {
	return exec.Command(bin,
		"-http-addr", "127.0.0.1:"+strconv.Itoa(httpPort),
		"-https-addr", "127.0.0.1:"+strconv.Itoa(httpsPort),
	)
}

// bindFailed reports whether stripe-mock's output says that a port was
// taken.
func bindFailed(output string) bool {
	return strings.Contains(output, "address already in use")
}

// Stop kills the server's process group and waits for the process to
// exit. It returns nil when the server was running until then (or was not
// started by this package), and an error with the server's output when it
// had already exited by itself. Calling Stop again returns the same
// result.
func (s *Server) Stop() error {
	if err := s.proc.Stop(); err != nil {
		return fmt.Errorf("stop stripe-mock at %s: %w", s.URL, err)
	}
	return nil
}
