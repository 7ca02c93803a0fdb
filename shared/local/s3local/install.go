package s3local

import (
	"context"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

const (
	// dirEnv overrides the install directory.
	dirEnv = "S3LOCAL_DIR"
	// installScript is the installer, relative to the repository root.
	installScript = "scripts/install-minio.sh"
	// binaryName is the installed server binary, inside the install directory.
	binaryName = "minio"
	// installTimeout bounds an install that the caller's context does not
	// bound sooner: a cold build takes 2-12 minutes here.
	installTimeout = 20 * time.Minute
)

// Dir returns the install directory: $S3LOCAL_DIR when set, else
// <repo root>/.cache/minio. The repository root is the nearest directory at
// or above the working directory whose go.mod sits beside .git or declares
// module github.com/moveleads/partnerapi. Dir fails when S3LOCAL_DIR is unset
// and no such directory exists; it does not check that anything is
// installed.
func Dir() (string, error) {
	return childproc.InstallDir(dirEnv, "minio")
}

// Install makes sure the pinned MinIO is installed and returns the path of
// its binary. It runs scripts/install-minio.sh, the one place that knows
// the version: in a few milliseconds when that version is installed (its
// marker file names it), else by building MinIO with `go install` through
// the Go module proxy (2-12 minutes on a cold cache; needs go on PATH),
// replacing a binary of another version. The run is bounded by ctx and by
// 20 minutes. Outside the repository, where there is no script, an
// installed binary is used as it is. A failed install leaves nothing
// half-written and the error carries the script's output.
func Install(ctx context.Context) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", fmt.Errorf("install minio: %w", err)
	}
	return childproc.InstallBinary(ctx, "minio", dir, dirEnv, installScript, binaryName, installTimeout)
}
