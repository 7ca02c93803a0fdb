package childproc

import (
	"path/filepath"
	"testing"
)

func TestInstallDir(t *testing.T) {
	const env = "CHILDPROC_TEST_DIR"
	t.Run("from env", func(t *testing.T) {
		want := t.TempDir()
		t.Setenv(env, want)
		got, err := InstallDir(env, "thing")
		if err != nil || got != want {
			t.Errorf("InstallDir() = %q, %v; want %q, nil", got, err, want)
		}
	})
	t.Run("relative env is made absolute", func(t *testing.T) {
		dir := t.TempDir()
		t.Chdir(dir)
		t.Setenv(env, "sub")
		got, err := InstallDir(env, "thing")
		if want := filepath.Join(dir, "sub"); err != nil || got != want {
			t.Errorf("InstallDir() = %q, %v; want %q, nil", got, err, want)
		}
	})
	t.Run("in repo", func(t *testing.T) {
		t.Setenv(env, "")
		got, err := InstallDir(env, "thing")
		if err != nil {
			t.Fatalf("InstallDir() error: %v", err)
		}
		if filepath.Base(got) != "thing" || filepath.Base(filepath.Dir(got)) != ".cache" {
			t.Errorf("InstallDir() = %q; want <root>/.cache/thing", got)
		}
	})
	t.Run("outside any repo", func(t *testing.T) {
		t.Setenv(env, "")
		t.Chdir(t.TempDir())
		if got, err := InstallDir(env, "thing"); err == nil {
			t.Errorf("InstallDir() = %q, nil; want an error", got)
		}
	})
}
