package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/repo"
)

// TestMakeDevStopsCleanly runs the real `make dev` of this checkout and
// stops it the two ways a developer does: a signal to the program's pid
// (make must then exit 0) and Ctrl-C, a SIGINT to the whole foreground
// process group (make must print no error line; GNU make itself then ends
// by the signal, as it always does). Before, `make dev` used `go run`,
// which exits 1 when interrupted, and make printed "Error 1".
func TestMakeDevStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make dev (builds, starts DynamoDB Local)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not on PATH")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	devPath := filepath.Join(root, filepath.FromSlash(devfile.RelPath))
	if f, err := devfile.Read(devPath); err == nil && f.Alive(context.Background()) == nil {
		t.Skipf("a make dev is running in this checkout (pid %d); not disturbing it", f.PID)
	}

	tests := []struct {
		name     string
		group    bool // signal the whole process group (Ctrl-C) or the program's pid
		wantExit int  // -1: ended by SIGINT
	}{
		{"signal to the program", false, 0},
		{"Ctrl-C to the process group", true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("make", "--no-print-directory", "dev")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "PORT=0")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

			var dev devfile.File
			for deadline := time.Now().Add(3 * time.Minute); ; {
				if dev, err = devfile.Read(devPath); err == nil && dev.Alive(context.Background()) == nil {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("make dev exited early: %v\n%s", err, out.String())
				case <-time.After(200 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("make dev never became ready:\n%s", out.String())
				}
			}

			target := dev.PID
			if tt.group {
				target = -cmd.Process.Pid
			}
			if err := syscall.Kill(target, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			var waitErr error
			select {
			case waitErr = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("make dev did not stop:\n%s", out.String())
			}
			got := cmd.ProcessState.ExitCode()
			if tt.wantExit == -1 {
				var exit *exec.ExitError
				if !errors.As(waitErr, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
					t.Errorf("make dev after Ctrl-C: %v; want make ended by SIGINT", waitErr)
				}
			} else if got != tt.wantExit {
				t.Errorf("make dev exit status %d; want %d\n%s", got, tt.wantExit, out.String())
			}
			if strings.Contains(out.String(), "***") || strings.Contains(out.String(), "make dev:") {
				t.Errorf("make dev printed an error on stop:\n%s", out.String())
			}
			if !strings.Contains(out.String(), "Stopping") {
				t.Errorf("output lacks the program's stop message:\n%s", out.String())
			}
			if _, err := os.Stat(devPath); !os.IsNotExist(err) {
				t.Errorf("dev.json left behind: %v", err)
			}
		})
	}
}
