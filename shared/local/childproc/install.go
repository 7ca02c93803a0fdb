package childproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/local/repo"
)

// InstallDir returns a server's install directory: $env when set (made
// absolute), else <repo root>/.cache/<cacheName>. It fails when env is
// unset and the repository root cannot be found (see repo.Root); it does
// not check that anything is installed.
func InstallDir(env, cacheName string) (string, error) {
	if dir := os.Getenv(env); dir != "" {
		return filepath.Abs(dir)
	}
	root, err := repo.Root()
	if err != nil {
		return "", fmt.Errorf("%w; set %s", err, env)
	}
	return filepath.Join(root, ".cache", cacheName), nil
}

// RunInstaller runs `bash script` with dirEnv=dir added to this process's
// environment, in its own process group so that cancelling ctx also stops
// everything the script started. It fails with the script's output when
// the script fails, and also with ctx's error when ctx ended.
func RunInstaller(ctx context.Context, script, dirEnv, dir string) error {
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), dirEnv+"="+dir)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	SetGroup(cmd)
	cmd.Cancel = func() error { return KillGroup(cmd.Process) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = errors.Join(err, ctxErr)
		}
		return fmt.Errorf("%s: %w\n%s", script, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// InstallBinary makes sure the server binary file is in dir, an install
// directory that the script (relative to the repository root) installs
// into when run with dirEnv=dir, and returns the binary's path. It runs
// the script bounded by ctx and by timeout; outside the repository, where
// there is no script, an installed binary is used as it is. what names the
// server in errors; an error of the script carries its output.
func InstallBinary(ctx context.Context, what, dir, dirEnv, script, file string, timeout time.Duration) (string, error) {
	bin := filepath.Join(dir, file)
	root, err := repo.Root()
	if err != nil {
		if executable(bin) {
			return bin, nil
		}
		return "", fmt.Errorf("install %s: %s is not in %s, and the installer cannot be found: %w", what, file, dir, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := RunInstaller(ctx, filepath.Join(root, filepath.FromSlash(script)), dirEnv, dir); err != nil {
		return "", fmt.Errorf("install %s into %s: %w", what, dir, err)
	}
	if !executable(bin) {
		return "", fmt.Errorf("install %s: %s succeeded but %s is not in %s", what, script, file, dir)
	}
	return bin, nil
}

// executable reports whether bin is an executable regular file.
func executable(bin string) bool {
	fi, err := os.Stat(bin)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
