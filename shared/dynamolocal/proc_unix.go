//go:build unix

package dynamolocal

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// setGroup puts the command in a process group of its own, so that
// killGroup reaches everything it starts.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup sends SIGKILL to p's process group (p leads it, see setGroup).
// It returns os.ErrProcessDone when the group is already gone.
func killGroup(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
