package detectlocal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
	"github.com/moveleads/partnerapi/shared/local/repo"
)

const (
	// dirEnv overrides the install directory.
	dirEnv = "DETECTOR_DIR"
	// installScript is the installer, relative to the repository root.
	installScript = "scripts/install-detector.sh"
	// serverScript is the sidecar, relative to the repository root.
	serverScript = "scripts/detector/server.mjs"
	// installTimeout bounds an install that the caller's context does not
	// bound sooner: npm ci takes 5-30 s here, up to 10 minutes per attempt
	// on a stalled registry.
	installTimeout = 20 * time.Minute
)

// probeFiles are files of a complete install, relative to its directory;
// the installer checks the same ones and the lockfile's hash.
var probeFiles = []string{
	"node_modules/@vladmandic/human/dist/human.node-wasm.js",
	"node_modules/@vladmandic/human/models/centernet.json",
	"node_modules/@vladmandic/human/models/centernet.bin",
	"node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm",
	"node_modules/jpeg-js/index.js",
}

// Dir returns the install directory: $DETECTOR_DIR when set (made
// absolute), else <repo root>/.cache/detector. It fails when DETECTOR_DIR
// is unset and the repository root cannot be found (see repo.Root); it
// does not check that anything is installed.
func Dir() (string, error) {
	return childproc.InstallDir(dirEnv, "detector")
}

// Install makes sure the packages pinned by scripts/detector/package-lock.json
// are installed and returns the install directory, which holds their
// node_modules. It runs scripts/install-detector.sh, the one place that
// installs them: in milliseconds when the install's marker names the
// lockfile's hash, else with `npm ci` (seconds from npm's cache; needs
// node and npm on PATH), replacing an install of another lockfile. The run
// is bounded by ctx and by 20 minutes. A failed install leaves nothing
// half-written and the error carries the script's output.
func Install(ctx context.Context) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", fmt.Errorf("install detector: %w", err)
	}
	root, err := repo.Root()
	if err != nil {
		return "", fmt.Errorf("install detector: the installer and the sidecar live in the repository: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	script := filepath.Join(root, filepath.FromSlash(installScript))
	if err := childproc.RunInstaller(ctx, script, dirEnv, dir); err != nil {
		return "", fmt.Errorf("install detector into %s: %w", dir, err)
	}
	if missing := missingFile(dir); missing != "" {
		return "", fmt.Errorf("install detector: %s succeeded but %s is missing", installScript, missing)
	}
	return dir, nil
}

// missingFile returns the first of probeFiles that dir lacks, or "".
func missingFile(dir string) string {
	for _, f := range probeFiles {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
