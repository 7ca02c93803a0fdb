//go:build !unix

package dynamolocal

import (
	"os"
	"os/exec"
)

// setGroup does nothing where process groups are not available.
func setGroup(*exec.Cmd) {}

// killGroup kills p alone where process groups are not available.
func killGroup(p *os.Process) error { return p.Kill() }
