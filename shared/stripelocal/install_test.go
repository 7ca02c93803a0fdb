package stripelocal

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/repo"
)

// TestDir checks this package's directory and installer; the lookup
// itself is childproc.InstallDir's, tested there.
func TestDir(t *testing.T) {
	t.Setenv(dirEnv, "")
	got, err := Dir()
	if err != nil {
		t.Fatalf("Dir() error: %v", err)
	}
	if filepath.Base(got) != "stripe-mock" || filepath.Base(filepath.Dir(got)) != ".cache" {
		t.Errorf("Dir() = %q; want <root>/.cache/stripe-mock", got)
	}
	root := filepath.Dir(filepath.Dir(got))
	if _, err := os.Stat(filepath.Join(root, installScript)); err != nil {
		t.Errorf("Dir() = %q: root %q has no %s: %v", got, root, installScript, err)
	}
}

// installScriptPath returns the absolute path of the installer.
func installScriptPath(t *testing.T) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, installScript)
}

// TestInstallScriptWarm checks the installer's contract once installed: it
// does nothing (no go needed) and its stdout is exactly the binary's path.
func TestInstallScriptWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("installs stripe-mock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	bin, err := Install(ctx)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	cmd := exec.CommandContext(ctx, "bash", installScriptPath(t))
	// Without go on PATH: a warm run must not need it.
	cmd.Env = append(os.Environ(), dirEnv+"="+filepath.Dir(bin), "PATH=/usr/bin:/bin")
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", installScript, err)
	}
	if got := string(out); got != bin+"\n" {
		t.Errorf("%s printed %q; want %q", installScript, got, bin+"\n")
	}
	t.Logf("warm install took %v", time.Since(start))
}

// TestInstallScriptNeedsGo runs the installer for an empty directory
// without go on PATH: it must fail at once, say why, and create nothing.
func TestInstallScriptNeedsGo(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	if _, err := os.Stat("/usr/bin/go"); err == nil {
		t.Skip("go is in /usr/bin, so it cannot be left off PATH")
	}
	dir := filepath.Join(t.TempDir(), "stripe-mock")
	cmd := exec.Command("/bin/bash", installScriptPath(t))
	cmd.Env = append(os.Environ(), dirEnv+"="+dir, "PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s without go succeeded; want exit status 1", installScript)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d; want 1", code)
	}
	if !strings.Contains(string(out), "go not found on PATH") {
		t.Errorf("output %q; want it to say that go is not found on PATH", out)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s was created; want nothing", dir)
	}
}

// TestInstallChecksTheVersion points Install at directories that hold the
// installed binary under a marker of the pinned version or of another
// one, with no go on PATH: the first is used as it is, the second needs a
// new build, which fails here for want of go.
func TestInstallChecksTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("installs stripe-mock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	bin, err := Install(ctx)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	pinned, err := os.ReadFile(filepath.Join(filepath.Dir(bin), ".installed"))
	if err != nil {
		t.Fatalf("marker of the installed version: %v", err)
	}
	if got := strings.TrimSpace(string(pinned)); got != "github.com/stripe/stripe-mock@v0.203.0" {
		t.Errorf("installed %q; want github.com/stripe/stripe-mock@v0.203.0 (ENVIRONMENT.md's verified version)", got)
	}
	tests := []struct {
		name    string
		marker  string
		wantErr string // "" = Install returns the binary
	}{
		{"pinned version", string(pinned), ""},
		{"other version", "github.com/stripe/stripe-mock@v0.1.0\n", "go not found on PATH"},
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
			got, err := Install(ctx)
			switch {
			case tt.wantErr == "" && (err != nil || got != filepath.Join(dir, binaryName)):
				t.Errorf("Install() = %q, %v; want %q, nil", got, err, filepath.Join(dir, binaryName))
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Install() = %q, %v; want an error saying %q", got, err, tt.wantErr)
			}
		})
	}
}
