//go:build !linux

package dynamolocal

import "os/exec"

// setParentDeathSignal does nothing: only Linux can tie a child's life to
// its parent's.
func setParentDeathSignal(*exec.Cmd) {}

// ownsListener cannot tell a listener's owner outside Linux and trusts the
// HTTP probe alone.
func ownsListener(pid, port int) bool { return true }
