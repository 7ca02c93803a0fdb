package childproc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
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

func TestInstallBinaryOutsideRepo(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(t.TempDir())
	if got, err := InstallBinary(context.Background(), "thing", dir, "CHILDPROC_TEST_DIR", "scripts/install-thing.sh", "thing", time.Minute); err == nil {
		t.Errorf("InstallBinary() with nothing installed = %q, nil; want an error", got)
	}
	bin := filepath.Join(dir, "thing")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := InstallBinary(context.Background(), "thing", dir, "CHILDPROC_TEST_DIR", "scripts/install-thing.sh", "thing", time.Minute); err != nil || got != bin {
		t.Errorf("InstallBinary() = %q, %v; want %q, nil", got, err, bin)
	}
}
