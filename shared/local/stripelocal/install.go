package stripelocal

import (
	"context"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

const (
	// dirEnv overrides the install directory.
	dirEnv = "STRIPELOCAL_DIR"
	// installScript is the installer, relative to the repository root.
	installScript = "scripts/install-stripe-mock.sh"
	// binaryName is the installed server binary, inside the install directory.
	binaryName = "stripe-mock"
	// installTimeout bounds an install that the caller's context does not
	// bound sooner: a cold build takes seconds to a minute here.
	installTimeout = 5 * time.Minute
)

// Dir returns the install directory: $STRIPELOCAL_DIR when set, else
// <repo root>/.cache/stripe-mock. It fails when STRIPELOCAL_DIR is unset and
// the repository root cannot be found (see repo.Root); it does not check
// that anything is installed.
func Dir() (string, error) {
	return childproc.InstallDir(dirEnv, "stripe-mock")
}

// Install makes sure the pinned stripe-mock is installed and returns the
// path of its binary. It runs scripts/install-stripe-mock.sh, the one place
// that knows the version: in a few milliseconds when that version is
// installed (its marker file names it), else by building stripe-mock with
// `go install` through the Go module proxy (needs go on PATH), replacing a
// binary of another version. The run is bounded by ctx and by 5 minutes.
// Outside the repository, where there is no script, an installed binary is
// used as it is. A failed install leaves nothing half-written and the
// error carries the script's output.
func Install(ctx context.Context) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", fmt.Errorf("install stripe-mock: %w", err)
	}
	return childproc.InstallBinary(ctx, "stripe-mock", dir, dirEnv, installScript, binaryName, installTimeout)
}
