package detectlocal

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// TestSidecarListensOnLoopbackOnly checks every listening socket of the
// sidecar's process: each must be bound to a loopback address.
func TestSidecarListensOnLoopbackOnly(t *testing.T) {
	s := sidecar(t)
	if s.proc == nil {
		t.Skipf("the sidecar at %s was not started by this test binary", s.Endpoint)
	}
	childproctest.ListensOnLoopbackOnly(t, "the detector", s.proc.Pid(), s.proc.Ports[0])
}
