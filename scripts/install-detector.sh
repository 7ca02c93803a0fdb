#!/usr/bin/env bash
# Installs the local object detector's Node packages (shared/local/detectlocal;
# the sidecar is scripts/detector/server.mjs) into $DETECTOR_DIR (default:
# <repo>/.cache/detector), as $DETECTOR_DIR/node_modules: @vladmandic/human
# 3.3.6, which ships the CenterNet COCO model's weights, tfjs-core,
# tfjs-converter and tfjs-backend-wasm 4.22.0, and jpeg-js, exactly as
# scripts/detector/package-lock.json pins them (with their sha512
# integrity), by `npm ci --ignore-scripts`: no package runs code when it
# installs and nothing is downloaded when the detector runs. About 40 MB
# from the npm registry (130 MB unpacked); npm keeps the tarballs in its
# own cache (~/.npm), so a reinstall after `rm -rf .cache` needs no network.
# Needs node (18+), npm, flock, sha256sum and timeout.
#
# Idempotent: when the lockfile's packages are installed (the marker file
# holds the lockfile's sha256) it only prints the directory. Safe to run
# concurrently (flock on a lock file beside the install directory) and
# never leaves a partial install: npm installs into a temporary directory
# next to the target, which is renamed into place.
#
# On success the last (and only) line on stdout is the install directory;
# progress and errors go to stderr.
set -euo pipefail

# Bounds on npm ci: a registry connection that stalls would otherwise hang
# it for good; what it fetched stays in npm's cache for the retry.
readonly NPM_ATTEMPTS=2 NPM_TIMEOUT=600
# Written into the install directory last; it names what is installed.
readonly MARKER=".installed"

log() { printf 'install-detector: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir DETECTOR_DIR detector

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/detector" && pwd)"
[[ -f "$src/package.json" && -f "$src/package-lock.json" ]] ||
  die "no package.json and package-lock.json in $src"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found on PATH (it comes with coreutils)"
want="package-lock.json sha256 $(sha256sum "$src/package-lock.json" | cut -d' ' -f1)"

installed() {
  local m="$install_dir/node_modules"
  [[ -f "$m/@vladmandic/human/dist/human.node-wasm.js" &&
    -f "$m/@vladmandic/human/models/centernet.json" &&
    -f "$m/@vladmandic/human/models/centernet.bin" &&
    -f "$m/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm" &&
    -f "$m/jpeg-js/index.js" ]] &&
    [[ "$(cat "$install_dir/$MARKER" 2>/dev/null || true)" == "$want" ]]
}

require_node 18 "the detector"

# Fast path: no lock, no npm.
if installed; then
  printf '%s\n' "$install_dir"
  exit 0
fi

require_npm_tools

begin_install 900 "$install_dir"

log "installing the packages of scripts/detector/package-lock.json with npm ci into $tmp"
npm_ci_into "$src" "$NPM_ATTEMPTS" "$NPM_TIMEOUT"
printf '%s\n' "$want" >"$tmp/ready/$MARKER"

finish_install
log "installed the detector's packages into $install_dir"
printf '%s\n' "$install_dir"
