package main

import (
	"bytes"
	"context"
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
	"github.com/moveleads/partnerapi/shared/dynamolocal"
	"github.com/moveleads/partnerapi/shared/repo"
	"github.com/moveleads/partnerapi/shared/s3local"
	"github.com/moveleads/partnerapi/shared/stripelocal"
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

// TestSignalStopsCleanly runs the devstack binary as `make dev` does and
// stops it with SIGINT (Ctrl-C) or SIGTERM: it must exit 0 with nothing on
// stderr, remove its files and stop DynamoDB Local and MinIO. It runs in a scratch
// repository root, so a developer's running make dev is not disturbed.
func TestSignalStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts DynamoDB Local")
	}
	dbDir, err := dynamolocal.Install(context.Background())
	if err != nil {
		t.Fatalf("install DynamoDB Local: %v", err)
	}
	minio, err := s3local.Install(context.Background())
	if err != nil {
		t.Fatalf("install MinIO: %v", err)
	}
	stripeMock, err := stripelocal.Install(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	realRoot, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "devstack")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel() // each in its own scratch root, on its own servers
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+repo.ModulePath+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// s3local runs the installer of the repository it is in, which
			// finds the installed MinIO at once.
			if err := os.Mkdir(filepath.Join(root, "scripts"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"install-minio.sh", "install-stripe-mock.sh", "installdir.sh"} {
				b, err := os.ReadFile(filepath.Join(realRoot, "scripts", name))
				if err == nil {
					err = os.WriteFile(filepath.Join(root, "scripts", name), b, 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bin)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "PORT=0", "DYNAMODB_LOCAL_DIR="+dbDir, "S3LOCAL_DIR="+filepath.Dir(minio), "STRIPELOCAL_DIR="+filepath.Dir(stripeMock))
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() { _ = cmd.Process.Kill() })

			devPath := filepath.Join(root, filepath.FromSlash(devfile.RelPath))
			var dev devfile.File
			for deadline := time.Now().Add(2 * time.Minute); ; {
				var err error
				if dev, err = devfile.Read(devPath); err == nil {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("devstack exited early: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
				case <-time.After(100 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatal("dev.json never appeared")
				}
			}
			endpoints := []string{dev.Env["AWS_ENDPOINT_URL_DYNAMODB"], dev.Env["AWS_ENDPOINT_URL_S3"]}

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("devstack after %v: %v; want exit 0 (stderr %q)", sig, err, stderr.String())
				}
			case <-time.After(time.Minute):
				t.Fatalf("devstack did not stop after %v", sig)
			}
			if stderr.String() != "" {
				t.Errorf("stderr %q; want nothing on a signal-initiated stop", stderr.String())
			}
			if !strings.Contains(stdout.String(), "Stopping") {
				t.Errorf("stdout %q; want it to say it is stopping", stdout.String())
			}
			if _, err := os.Stat(devPath); !os.IsNotExist(err) {
				t.Errorf("dev.json left behind: %v", err)
			}
			client := &http.Client{Timeout: 2 * time.Second}
			for _, endpoint := range endpoints {
				if resp, err := client.Post(endpoint, "application/x-amz-json-1.0", strings.NewReader("{}")); err == nil {
					resp.Body.Close()
					t.Errorf("%s still answers after the stop (DynamoDB Local or MinIO)", endpoint)
				}
			}
		})
	}
}
