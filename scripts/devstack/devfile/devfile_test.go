package devfile

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/local/repo"
)

// answering returns the URL of a server that answers every request 400,
// as DynamoDB answers an unsigned one.
func answering(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedPort returns a loopback URL on which nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev.json")
	want := File{BaseURL: "http://127.0.0.1:3000", APIKey: "mk_test_x", PartnerID: "ptn_1",
		Env: map[string]string{"TABLE_NAME": "t"}, PID: 42,
		S3Events: &S3Events{URL: "http://127.0.0.1:3000/_local/s3-events", Authorization: "Bearer x"}}
	if err := Write(path, want); err != nil {
		t.Fatalf("Write: %v", err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read = %+v; want %+v", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; want 0600 (the file holds a key)", fi.Mode().Perm())
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file: %v; want ErrNotExist", err)
	}
}

func TestAlive(t *testing.T) {
	up := answering(t)
	tests := []struct {
		name    string
		f       File
		wantErr string // "" = alive
	}{
		{"running", File{PID: os.Getpid(), Env: map[string]string{EndpointVar: up}}, ""},
		{"no pid", File{Env: map[string]string{EndpointVar: up}}, "names no pid"},
		{"process gone", File{PID: deadPID(t), Env: map[string]string{EndpointVar: up}}, "is not running"},
		{"no endpoint", File{PID: os.Getpid()}, "names no " + EndpointVar},
		{"endpoint silent", File{PID: os.Getpid(), Env: map[string]string{EndpointVar: closedPort(t)}}, "does not answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Alive(context.Background())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Alive = %v; want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Alive = %v; want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestChooseAt covers the stale-environment rule: a live dev.json wins over
// variables left in the environment by an earlier make dev; a stale or
// missing one leaves the environment alone.
func TestChooseAt(t *testing.T) {
	up := answering(t)
	staleEnv := map[string]string{"TABLE_NAME": "old", EndpointVar: "http://127.0.0.1:1", "AWS_PROFILE": "p"}
	getenv := func(k string) string { return staleEnv[k] }
	live := File{PID: os.Getpid(), Env: map[string]string{"TABLE_NAME": "dev", EndpointVar: up}}
	dead := File{PID: deadPID(t), Env: map[string]string{"TABLE_NAME": "dev", EndpointVar: up}}

	tests := []struct {
		name         string
		file         *File  // nil: no file
		raw          string // written instead of file when set
		wantFromFile bool
		wantTable    string
		wantOrigin   string
	}{
		{"live file wins over stale env", &live, "", true, "dev", "from .local/dev.json of make dev (pid "},
		{"dead pid: environment", &dead, "", false, "old", "from the environment (ignored stale .local/dev.json: make dev's pid "},
		{"no file: environment", nil, "", false, "old", "from the environment (no .local/dev.json)"},
		{"corrupt file: environment", nil, "{", false, "old", "from the environment (.local/dev.json is unreadable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dev.json")
			switch {
			case tt.file != nil:
				if err := Write(path, *tt.file); err != nil {
					t.Fatal(err)
				}
			case tt.raw != "":
				if err := os.WriteFile(path, []byte(tt.raw), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c := ChooseAt(context.Background(), path, getenv)
			if c.FromFile != tt.wantFromFile {
				t.Errorf("FromFile = %v; want %v (skipped: %s)", c.FromFile, tt.wantFromFile, c.Skipped)
			}
			if got := c.Getenv("TABLE_NAME"); got != tt.wantTable {
				t.Errorf("TABLE_NAME = %q; want %q", got, tt.wantTable)
			}
			if got := c.Getenv("AWS_PROFILE"); got != "p" {
				t.Errorf("AWS_PROFILE = %q; want the environment's %q (dev.json does not set it)", got, "p")
			}
			if !strings.HasPrefix(c.Origin(), tt.wantOrigin) {
				t.Errorf("Origin = %q; want it to start %q", c.Origin(), tt.wantOrigin)
			}
		})
	}
}

// TestChooseFromAnyDirectory runs Choose from a subdirectory of a
// repository: it must find the dev.json at the repository's root.
func TestChooseFromAnyDirectory(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+repo.ModulePath+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".local"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := File{PID: os.Getpid(), Env: map[string]string{"TABLE_NAME": "dev", EndpointVar: answering(t)}}
	if err := Write(filepath.Join(root, filepath.FromSlash(RelPath)), f); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	c := Choose(context.Background(), func(string) string { return "" })
	if !c.FromFile || c.Getenv("TABLE_NAME") != "dev" {
		t.Errorf("Choose from %s: FromFile %v, TABLE_NAME %q (skipped %q); want dev.json's table", sub, c.FromFile, c.Getenv("TABLE_NAME"), c.Skipped)
	}

	t.Chdir(t.TempDir())
	if c := Choose(context.Background(), func(string) string { return "env" }); c.FromFile || c.Getenv("TABLE_NAME") != "env" {
		t.Errorf("Choose outside a repository: FromFile %v, TABLE_NAME %q; want the environment", c.FromFile, c.Getenv("TABLE_NAME"))
	}
}
