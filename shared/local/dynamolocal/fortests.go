package dynamolocal

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// forTestsTimeout bounds the first ForTests call: a cold install downloads
// about 50 MB before the server starts.
const forTestsTimeout = 10 * time.Minute

// shared is the one server of a test binary.
var shared childproc.Shared[*Server]

// ForTests returns a DynamoDB endpoint for a test binary: the value of
// AWS_ENDPOINT_URL_DYNAMODB when it is set (a developer's running stack; stop
// then does nothing), else that of a server started on the first call and
// shared by every later one. stop ends that server; call it once, after
// m.Run. On failure endpoint is empty and stop does nothing. Intended use:
//
//	func TestMain(m *testing.M) {
//		endpoint, stop, err := dynamolocal.ForTests()
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		dynamolocal.SetEnv(endpoint)
//		code := m.Run()
//		stop()
//		os.Exit(code)
//	}
func ForTests() (endpoint string, stop func(), err error) {
	if endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"); endpoint != "" {
		return endpoint, func() {}, nil
	}
	srv, stop, err := shared.Get(forTestsTimeout, startShortLived)
	if err != nil {
		return "", stop, fmt.Errorf("dynamodb local for tests: %w", err)
	}
	return srv.Endpoint, stop, nil
}

// RunTests runs a test binary's tests (m.Run) against the DynamoDB Local of
// ForTests, with the process environment pointing the SDK at it, and exits
// with their code. Call it from TestMain.
func RunTests(m interface{ Run() int }) {
	childproc.RunTests(m, ForTests, SetEnv)
}

// startShortLived starts a server for a test binary (see [ShortLived]).
func startShortLived(ctx context.Context) (*Server, error) { return Start(ctx, ShortLived()) }
