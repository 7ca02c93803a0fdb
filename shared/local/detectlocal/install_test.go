package detectlocal

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// TestDir checks this package's directory and installer; the lookup
// itself is childproc.InstallDir's, tested there.
func TestDir(t *testing.T) {
	childproctest.InstallDirIsCache(t, Dir, dirEnv, "detector",
		installScript, serverScript, "scripts/detector/package.json", "scripts/detector/package-lock.json")
}

// scriptCmd runs the installer with DETECTOR_DIR=dir and PATH=path.
func scriptCmd(t *testing.T, ctx context.Context, dir, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, "/bin/bash", childproctest.ScriptPath(t, installScript))
	cmd.Env = append(os.Environ(), dirEnv+"="+dir, "PATH="+path)
	return cmd
}

// failingNPM returns a directory whose npm fails, to put first on PATH.
func failingNPM(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho 'npm must not run' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestInstallScriptWarm checks the installer's contract once installed: it
// runs no npm, takes a moment, and its stdout is exactly the directory.
func TestInstallScriptWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the detector")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	dir, err := Install(ctx)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	childproctest.WarmInstaller(t, ctx, installScript, dir, dirEnv+"="+dir, "PATH="+failingNPM(t)+":"+os.Getenv("PATH"))
}

// TestInstallIntoNewDirectory installs into an empty directory (from
// npm's cache when the package's first install filled it), then checks
// that a marker of another lockfile makes the next run install again.
func TestInstallIntoNewDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the detector")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "detector")
	t.Setenv(dirEnv, dir)
	start := time.Now()
	got, err := Install(ctx)
	if err != nil {
		t.Fatalf("Install into %s: %v", dir, err)
	}
	t.Logf("install into a new directory took %v", time.Since(start).Round(time.Millisecond))
	if got != dir {
		t.Errorf("Install() = %q; want %q", got, dir)
	}
	marker, err := os.ReadFile(filepath.Join(dir, ".installed"))
	if err != nil || !strings.HasPrefix(string(marker), "package-lock.json sha256 ") {
		t.Fatalf("marker = %q, %v; want the lockfile's sha256", marker, err)
	}

	if err := os.WriteFile(filepath.Join(dir, ".installed"), []byte("package-lock.json sha256 0000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := scriptCmd(t, ctx, dir, failingNPM(t)+":"+os.Getenv("PATH")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "npm must not run") {
		t.Errorf("installer with a marker of another lockfile = %v, %s; want it to run npm ci", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Errorf("the failed reinstall removed the old install: %v", err)
	}
}

// TestInstallScriptNeedsNode runs the installer with a PATH of the few
// tools it needs before it looks for node: it must fail at once, say why,
// and create nothing.
func TestInstallScriptNeedsNode(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"dirname", "git", "sha256sum", "cut", "cat"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s on PATH", tool)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "detector")
	childproctest.InstallerNeeds(t, installScript, "node", dir, dirEnv+"="+dir, "PATH="+bin)
}
