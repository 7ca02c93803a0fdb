package childproctest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/local/repo"
)

// ScriptPath returns the absolute path of script, a path relative to the
// repository root; it fails t when the root cannot be found.
func ScriptPath(t *testing.T, script string) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, script)
}

// InstallDirIsCache checks a package's install directory with $dirEnv
// unset: dir must return <root>/.cache/cacheName, and root must hold files
// (paths relative to it, such as the installer).
func InstallDirIsCache(t *testing.T, dir func() (string, error), dirEnv, cacheName string, files ...string) {
	t.Helper()
	t.Setenv(dirEnv, "")
	got, err := dir()
	if err != nil {
		t.Fatalf("Dir() error: %v", err)
	}
	if filepath.Base(got) != cacheName || filepath.Base(filepath.Dir(got)) != ".cache" {
		t.Errorf("Dir() = %q; want <root>/.cache/%s", got, cacheName)
	}
	root := filepath.Dir(filepath.Dir(got))
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("Dir() = %q: root %q has no %s: %v", got, root, f, err)
		}
	}
}

// WarmInstaller checks an installer's contract once installed: run with
// env (KEY=value, added to this process's environment) it succeeds and its
// stdout is exactly want and a newline.
func WarmInstaller(t *testing.T, ctx context.Context, script, want string, env ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", ScriptPath(t, script))
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	if got := string(out); got != want+"\n" {
		t.Errorf("%s printed %q; want %q", script, got, want+"\n")
	}
	t.Logf("warm install took %v", time.Since(start).Round(time.Millisecond))
}

// InstallerNeeds runs an installer with env (KEY=value, added to this
// process's environment, typically a PATH without tool) for the install
// directory dir, which must not exist: it must exit with status 1, say
// that tool is not found on PATH, and create nothing.
func InstallerNeeds(t *testing.T, script, tool, dir string, env ...string) {
	t.Helper()
	cmd := exec.Command("/bin/bash", ScriptPath(t, script))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s without %s succeeded; want exit status 1", script, tool)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d; want 1", code)
	}
	if !strings.Contains(string(out), tool+" not found on PATH") {
		t.Errorf("output %q; want it to say that %s is not found on PATH", out, tool)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s was created; want nothing", dir)
	}
}

// GoInstallerNeedsGo runs an installer of a Go-built binary (one that
// uses install_go_binary of scripts/installdir.sh) for a new directory
// $dirEnv/name without go on PATH: see InstallerNeeds.
func GoInstallerNeedsGo(t *testing.T, script, dirEnv, name string) {
	t.Helper()
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	if _, err := os.Stat("/usr/bin/go"); err == nil {
		t.Skip("go is in /usr/bin, so it cannot be left off PATH")
	}
	dir := filepath.Join(t.TempDir(), name)
	InstallerNeeds(t, script, "go", dir, dirEnv+"="+dir, "PATH=/usr/bin:/bin")
}

// GoInstallerWarm installs a Go-built binary with install (bounded by
// timeout), then checks with WarmInstaller that its installer, run for the
// binary's directory without go on PATH, prints the binary's path.
func GoInstallerWarm(t *testing.T, timeout time.Duration, install func(context.Context) (string, error), script, dirEnv string) {
	t.Helper()
	ctx, bin := installWithin(t, timeout, install)
	// Without go on PATH: a warm run must not need it.
	WarmInstaller(t, ctx, script, bin, dirEnv+"="+filepath.Dir(bin), "PATH=/usr/bin:/bin")
}

// GoInstallChecksTheVersion installs a Go-built binary with install
// (bounded by timeout), then points install (through $dirEnv) at
// directories that hold that binary, as binaryName, under a version marker
// (.installed) that is the pinned one, otherMarker, or none, with no go on
// PATH: the first must be used as it is, the others need a new build,
// which fails for want of go. It returns the pinned marker, as read.
func GoInstallChecksTheVersion(t *testing.T, timeout time.Duration, install func(context.Context) (string, error), dirEnv, binaryName, otherMarker string) (pinned string) {
	t.Helper()
	ctx, bin := installWithin(t, timeout, install)
	marker, err := os.ReadFile(filepath.Join(filepath.Dir(bin), ".installed"))
	if err != nil {
		t.Fatalf("marker of the installed version: %v", err)
	}
	tests := []struct {
		name    string
		marker  string
		wantErr string // "" = Install returns the binary
	}{
		{"pinned version", string(marker), ""},
		{"other version", otherMarker, "go not found on PATH"},
		{"no marker", "", "go not found on PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Symlink(bin, filepath.Join(dir, binaryName)); err != nil {
				t.Fatal(err)
			}
			if tt.marker != "" {
				if err := os.WriteFile(filepath.Join(dir, ".installed"), []byte(tt.marker), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv(dirEnv, dir)
			t.Setenv("PATH", "/usr/bin:/bin")
			got, err := install(ctx)
			switch {
			case tt.wantErr == "" && (err != nil || got != filepath.Join(dir, binaryName)):
				t.Errorf("Install() = %q, %v; want %q, nil", got, err, filepath.Join(dir, binaryName))
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Install() = %q, %v; want an error saying %q", got, err, tt.wantErr)
			}
		})
	}
	return string(marker)
}

// installWithin runs install with a context bounded by timeout, which it
// returns with install's result; it fails t when install fails. The
// context ends with t.
func installWithin(t *testing.T, timeout time.Duration, install func(context.Context) (string, error)) (context.Context, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	bin, err := install(ctx)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	return ctx, bin
}
