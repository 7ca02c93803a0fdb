package dynamolocal

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// checkListensOnLoopbackOnly checks every listening socket of s's process:
// each must be bound to a loopback address (DynamoDB Local's own main class
// binds the wildcard address), and no non-loopback IPv4 address of this
// machine may accept a connection on their ports. It runs on the server of
// TestStartAnswersLikeDynamoDBAndStopCloses: a JVM of its own cost seconds.
func checkListensOnLoopbackOnly(t *testing.T, s *Server) {
	if !s.Loopback {
		t.Fatalf("Loopback = false (warning %q); want the launcher bound to 127.0.0.1", s.Warning)
	}
	if s.Warning != "" {
		t.Errorf("Warning = %q; want none when listening on loopback", s.Warning)
	}
	childproctest.ListensOnLoopbackOnly(t, "DynamoDB Local", s.proc.Pid(), s.proc.Ports[0])
}
