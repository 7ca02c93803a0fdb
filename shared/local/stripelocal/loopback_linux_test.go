package stripelocal

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// TestServerListensOnLoopbackOnly checks every listening socket of the
// server's process (HTTP, HTTPS and anything else): each must be bound to
// a loopback address, and no non-loopback IPv4 address of this machine may
// accept a connection on any of their ports. Left to itself stripe-mock
// opens HTTPS on every address.
func TestServerListensOnLoopbackOnly(t *testing.T) {
	s := startServer(t)
	childproctest.ListensOnLoopbackOnly(t, "stripe-mock", s.proc.Pid(), s.proc.Ports[0])
}
