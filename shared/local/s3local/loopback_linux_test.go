package s3local

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// TestServerListensOnLoopbackOnly checks every listening socket of the
// server's process (the API, the console and anything else): each must be
// bound to a loopback address, and no non-loopback IPv4 address of this
// machine may accept a connection on any of their ports.
func TestServerListensOnLoopbackOnly(t *testing.T) {
	t.Parallel() // a MinIO of its own
	s := startServer(t)
	childproctest.ListensOnLoopbackOnly(t, "MinIO", s.proc.Pid(), s.proc.Ports[0])
}
