//go:build unix

package childproc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// SetGroup puts the command in a process group of its own, so that
// KillGroup reaches everything it starts.
func SetGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// KillGroup sends SIGKILL to p's process group (p leads it, see SetGroup).
// It returns os.ErrProcessDone when the group is already gone.
func KillGroup(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
