package dynamolocal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// startTimeout bounds one Start after the install, whatever ctx allows.
const startTimeout = 60 * time.Second

// pickPorts chooses the port of each start attempt; tests replace it.
var pickPorts = childproc.FreePorts

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

	proc *childproc.Process
}

// Option changes how [Start] runs the server.
type Option func(*options)

type options struct {
	shortLived bool
}

// ShortLived runs the JVM as suits the test binaries' server, which lives
// minutes on two cores shared with the tests (the flags are shortLivedJVM):
//   - its quick (C1) compiler only (-XX:TieredStopAtLevel=1): the optimising
//     C2 compiler's threads cost more CPU than their code saves. On the
//     dynamo and apigw packages' tests (go test -race, one server)
//     DynamoDB Local used 29-31 s of CPU instead of 54-56 s;
//   - the serial garbage collector (-XX:+UseSerialGC) instead of G1: on
//     the same tests, C1 only, 36-38 s of CPU (4 runs) instead of 41-43 s
//     (2 runs); the VM thread, where its collections run, used 0.3 s.
//
// make dev and make bench keep the JVM's defaults. Measured with make dev on
// C1 only: ready in 6.0-7.0 s instead of 9.4 s, but the soak's (go run
// ./scripts/bench -only soak) last minute ran 162 req/s instead of 240, so
// a long session or a load would be a third slower.
func ShortLived() Option { return func(o *options) { o.shortLived = true } }

// shortLivedJVM are the JVM flags that [ShortLived] adds.
var shortLivedJVM = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}

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
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
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
	proc, err := childproc.Start(ctx, childproc.Spec{
		Ports:      1,
		PickPorts:  pickPorts,
		Command:    command(java, dir, main, o),
		Ready:      answers,
		BindFailed: bindFailed,
	})
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}
	return &Server{Endpoint: proc.Endpoint, Loopback: main.loopback, Warning: main.warning, proc: proc}, nil
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

// command builds the java command line of one start attempt.
func command(java, dir string, main mainClass, o options) func(ports []int) (*exec.Cmd, func() error, error) {
	return func(ports []int) (*exec.Cmd, func() error, error) {
		jvm := []string{"-Xmx512m"}
		if o.shortLived {
			jvm = append(jvm, shortLivedJVM...)
		}
		cmd := exec.Command(java, append(jvm,
			"-Djava.library.path="+filepath.Join(dir, libDirName),
			"-cp", main.classPath, main.name,
			"-inMemory",
			// One database whatever the caller's access key and region, so that
			// every local client (tests, make dev, SAM containers) sees the same.
			"-sharedDb",
			// Telemetry would try to reach AWS, which is off this machine.
			"-disableTelemetry",
			"-port", strconv.Itoa(ports[0]),
		)...)
		// In memory it writes no files; a neutral directory keeps it that way.
		cmd.Dir = os.TempDir()
		return cmd, nil, nil
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
	if err := s.proc.Stop(); err != nil {
		return fmt.Errorf("stop dynamodb local at %s: %w", s.Endpoint, err)
	}
	return nil
}

// Pid returns the server's process ID (the JVM's), whose CPU time the
// load benchmark reads.
func (s *Server) Pid() int { return s.proc.Pid() }
