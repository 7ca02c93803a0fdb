//go:build !linux

package childproc

import "os/exec"

// SetParentDeathSignal does nothing: only Linux can tie a child's life to
// its parent's.
func SetParentDeathSignal(*exec.Cmd) {}

// OwnsListener cannot tell a listener's owner outside Linux and trusts the
// HTTP probe alone.
func OwnsListener(pid, port int) bool { return true }
