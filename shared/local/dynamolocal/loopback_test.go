package dynamolocal

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installedDir returns the directory of the installed DynamoDB Local,
// installing it when missing.
func installedDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs DynamoDB Local installed")
	}
	dir, err := Install(context.Background())
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	return dir
}

// copyOfInstall returns a fresh directory that holds the installed jar and
// libraries (as symbolic links) and no compiled launcher.
func copyOfInstall(t *testing.T) string {
	t.Helper()
	src := installedDir(t)
	dir := t.TempDir()
	for _, name := range []string{jarName, libDirName} {
		if err := os.Symlink(filepath.Join(src, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func javaPath(t *testing.T) string {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java not on PATH")
	}
	return java
}

func TestLauncherCompilesOnceAndCaches(t *testing.T) {
	java := javaPath(t)
	dir := copyOfInstall(t)
	if _, err := findJavac(java); err != nil {
		t.Skipf("cannot compile here: %v", err)
	}
	got, err := launcher(context.Background(), java, dir)
	if err != nil {
		t.Fatalf("launcher: %v", err)
	}
	if _, err := os.Stat(filepath.Join(got, launcherClass+".class")); err != nil {
		t.Fatalf("compiled class: %v", err)
	}
	if filepath.Dir(got) != dir {
		t.Errorf("launcher dir %s; want it inside %s", got, dir)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".launcher-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary directories left behind: %q", leftovers)
	}

	// The second call uses the compiled class and needs no compiler.
	orig := findCompiler
	findCompiler = func(string) (string, error) { return "", errNoJavac }
	t.Cleanup(func() { findCompiler = orig })
	again, err := launcher(context.Background(), java, dir)
	if err != nil || again != got {
		t.Errorf("second launcher = %q, %v; want %q from the cache", again, err, got)
	}
}

func TestLauncherWithoutCompiler(t *testing.T) {
	java := javaPath(t)
	dir := copyOfInstall(t)
	orig := findCompiler
	findCompiler = func(string) (string, error) { return "", errNoJavac }
	t.Cleanup(func() { findCompiler = orig })
	if _, err := launcher(context.Background(), java, dir); !errors.Is(err, errNoJavac) {
		t.Errorf("launcher without javac: %v; want errNoJavac", err)
	}
}

func TestLauncherCompileFailureCarriesOutput(t *testing.T) {
	java := javaPath(t)
	if _, err := findJavac(java); err != nil {
		t.Skipf("cannot compile here: %v", err)
	}
	dir := t.TempDir() // no DynamoDB Local: its classes are missing
	_, err := launcher(context.Background(), java, dir)
	if err == nil || !strings.Contains(err.Error(), "LoopbackServerRunner.java") {
		t.Errorf("launcher without DynamoDB Local = %v; want javac's errors naming LoopbackServerRunner.java", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "launcher-")); statErr == nil {
		t.Error("a launcher directory was created for a failed compile")
	}
}
