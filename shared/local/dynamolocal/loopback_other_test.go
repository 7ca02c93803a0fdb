//go:build !linux

package dynamolocal

import "testing"

// checkListensOnLoopbackOnly reads the process's sockets from /proc: Linux
// only.
func checkListensOnLoopbackOnly(t *testing.T, _ *Server) {
	t.Skip("reads listening sockets from /proc (Linux only)")
}
