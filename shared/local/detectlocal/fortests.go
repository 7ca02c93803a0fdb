package detectlocal

import (
	"fmt"
	"os"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// URLEnv names the variable that points tests at a running sidecar (make
// dev's) instead of starting one.
const URLEnv = "DETECTOR_URL"

// forTestsTimeout bounds the first ForTests call: a cold install fetches
// about 40 MB from the npm registry before the sidecar starts.
const forTestsTimeout = installTimeout + startTimeout

// shared is the one sidecar of a test binary.
var shared childproc.Shared[*Server]

// ForTests returns a detector sidecar for a test binary: the running one
// at $DETECTOR_URL when that is set (stop then does nothing), else one
// started on the first call and shared by every later one. stop ends that
// sidecar; call it once, after m.Run. On failure srv is nil and stop does
// nothing.
func ForTests() (srv *Server, stop func(), err error) {
	if endpoint := os.Getenv(URLEnv); endpoint != "" {
		return &Server{Endpoint: endpoint}, func() {}, nil
	}
	srv, stop, err = shared.Get(forTestsTimeout, Start)
	if err != nil {
		return nil, stop, fmt.Errorf("detector for tests: %w", err)
	}
	return srv, stop, nil
}
