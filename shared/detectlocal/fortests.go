package detectlocal

import (
	"context"
	"fmt"
	"os"
	"sync"
)

// URLEnv names the variable that points tests at a running sidecar (make
// dev's) instead of starting one.
const URLEnv = "DETECTOR_URL"

// forTestsTimeout bounds the first ForTests call: a cold install fetches
// about 40 MB from the npm registry before the sidecar starts.
const forTestsTimeout = installTimeout + startTimeout

// shared is the one sidecar of a test binary.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// ForTests returns a detector sidecar for a test binary: the running one
// at $DETECTOR_URL when that is set (stop then does nothing), else one
// started on the first call and shared by every later one. stop ends that
// sidecar; call it once, after m.Run. On failure srv is nil and stop does
// nothing.
func ForTests() (srv *Server, stop func(), err error) {
	if endpoint := os.Getenv(URLEnv); endpoint != "" {
		return &Server{Endpoint: endpoint}, func() {}, nil
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
		defer cancel()
		shared.srv, shared.err = Start(ctx)
	})
	if shared.err != nil {
		return nil, func() {}, fmt.Errorf("detector for tests: %w", shared.err)
	}
	srv = shared.srv
	return srv, func() { _ = srv.Stop() }, nil
}
