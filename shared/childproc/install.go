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

	"github.com/moveleads/partnerapi/shared/repo"
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
