//go:build !unix

package childproc

import (
	"os"
	"os/exec"
)

// SetGroup does nothing where process groups are not available.
func SetGroup(*exec.Cmd) {}

// KillGroup kills p alone where process groups are not available.
func KillGroup(p *os.Process) error { return p.Kill() }
