package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/local/repo"
)

// syncBuffer is a bytes.Buffer safe for the process's writer and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMakeDevStopsCleanly runs the real `make dev` of this checkout and
// stops it the two ways a developer does: SIGTERM to the program's pid
// (make must then exit 0) and Ctrl-C, a SIGINT to the whole foreground
// process group (GNU make itself then ends by the signal, as it always
// does). Either way the program must stop with nothing on stderr (no
// "make dev:" error line, no make "***" line), say so, remove dev.json and
// stop DynamoDB Local and MinIO. Before, `make dev` used `go run`, which
// exits 1 when interrupted, and make printed "Error 1". Its state files go
// to a scratch folder (DEVSTACK_STATE_DIR), so a developer's running make
// dev is not disturbed. The two runs cover SIGINT and SIGTERM of the
// program, which each started a stack of its own before.
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

	tests := []struct {
		name     string
		group    bool // signal the whole process group (Ctrl-C) or the program's pid
		sig      syscall.Signal
		wantExit int  // -1: make ended by the signal
		verbose  bool // make dev VERBOSE=1
	}{
		{"SIGTERM to the program", false, syscall.SIGTERM, 0, false},
		{"Ctrl-C to the process group", true, syscall.SIGINT, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			args := []string{"--no-print-directory", "dev"}
			if tt.verbose {
				args = append(args, VerboseVar+"=1")
			}
			cmd := exec.Command("make", args...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "PORT=0", devfile.StateDirVar+"="+state)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

			devPath := filepath.Join(state, "dev.json")
			var dev devfile.File
			for deadline := time.Now().Add(3 * time.Minute); ; {
				if dev, err = devfile.Read(devPath); err == nil && dev.Alive(context.Background()) == nil {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("make dev exited early: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
				case <-time.After(200 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("make dev never became ready:\nstdout %s\nstderr %s", stdout.String(), stderr.String())
				}
			}
			endpoints := []string{dev.Env["AWS_ENDPOINT_URL_DYNAMODB"], dev.Env["AWS_ENDPOINT_URL_S3"]}

			target := dev.PID
			if tt.group {
				target = -cmd.Process.Pid
			}
			if err := syscall.Kill(target, tt.sig); err != nil {
				t.Fatal(err)
			}
			var waitErr error
			select {
			case waitErr = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("make dev did not stop after %v:\nstdout %s\nstderr %s", tt.sig, stdout.String(), stderr.String())
			}
			got := cmd.ProcessState.ExitCode()
			if tt.wantExit == -1 {
				var exit *exec.ExitError
				if !errors.As(waitErr, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != tt.sig {
					t.Errorf("make dev after %v to the group: %v; want make ended by %v", tt.sig, waitErr, tt.sig)
				}
			} else if got != tt.wantExit {
				t.Errorf("make dev exit status %d after %v; want %d\nstderr %s", got, tt.sig, tt.wantExit, stderr.String())
			}
			if stderr.String() != "" {
				t.Errorf("stderr %q; want nothing on a signal-initiated stop", stderr.String())
			}
			if strings.Contains(stdout.String(), "***") || strings.Contains(stdout.String(), "make dev:") {
				t.Errorf("make dev printed an error on stop:\n%s", stdout.String())
			}
			if !strings.Contains(stdout.String(), "Stopping the API, DynamoDB Local, MinIO, ") || !strings.Contains(stdout.String(), " and stripe-mock.") {
				t.Errorf("output lacks the program's stop message naming everything, stripe-mock included:\n%s", stdout.String())
			}
			// The demo lead's createLead is logged either way; the stream
			// poller's start is detail, logged only with VERBOSE=1.
			if !strings.Contains(stdout.String(), `"method":"POST","path":"/v1/leads","status":200`) {
				t.Errorf("the log lacks the demo lead's request line:\n%s", stdout.String())
			}
			if got := strings.Contains(stdout.String(), `"msg":"stream poll started"`); got != tt.verbose {
				t.Errorf("VERBOSE=1 %v: the stream poller's start logged %v; want %v:\n%s", tt.verbose, got, tt.verbose, stdout.String())
			}
			if _, err := os.Stat(devPath); !os.IsNotExist(err) {
				t.Errorf("dev.json left behind: %v", err)
			}
			client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil}}
			for _, endpoint := range endpoints {
				if resp, err := client.Post(endpoint, "application/x-amz-json-1.0", strings.NewReader("{}")); err == nil {
					resp.Body.Close()
					t.Errorf("%s still answers after the stop (DynamoDB Local or MinIO)", endpoint)
				}
			}
		})
	}
}
