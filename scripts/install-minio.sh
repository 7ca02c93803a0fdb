#!/usr/bin/env bash
# Installs the MinIO server, the S3-compatible stand-in for Amazon S3 in tests
# and the local stack (shared/s3local), into $S3LOCAL_DIR (default:
# <repo>/.cache/minio), as the single binary $S3LOCAL_DIR/minio. MinIO has no
# semver tags: the pseudo-version below is built from source with
# `go install`, through the Go module proxy (2-12 minutes on a cold module
# and build cache; the binary is about 150 MB). Needs go and flock; the
# download steps also need timeout (coreutils).
#
# Idempotent: when the pinned version is already installed it only prints the
# binary's path. Safe to run concurrently (flock on a lock file beside the
# install directory) and never leaves a partial install: the binary is built
# into a temporary directory next to the target and renamed into place.
#
# On success the last (and only) line on stdout is the path of the binary;
# progress and errors go to stderr.
set -euo pipefail

# The pinned module version. Bumping it reinstalls on the next run.
readonly MODULE_PATH="github.com/minio/minio"
readonly VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
readonly MODULE="$MODULE_PATH@$VERSION"
# Bounds on each download attempt: a proxy connection that stalls (seen
# here) would otherwise hang go for good. Modules already fetched stay in
# the module cache, so a retry only fetches the rest.
readonly FETCH_ATTEMPTS=3 FETCH_TIMEOUT=300
# Written into the install directory after the binary; its content names
# what is installed.
readonly MARKER=".installed"

log() { printf 'install-minio: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir S3LOCAL_DIR minio
binary="$install_dir/minio"

installed() {
  [[ -f "$binary" && -x "$binary" ]] &&
    [[ "$(cat "$install_dir/$MARKER" 2>/dev/null || true)" == "$MODULE" ]]
}

# Fast path: no lock, no go.
if installed; then
  printf '%s\n' "$binary"
  exit 0
fi

command -v go >/dev/null 2>&1 ||
  die "go not found on PATH; MinIO is built from source with go install (Go 1.24+; this repository needs 1.26: https://go.dev/dl/)"
for tool in flock timeout; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool not found on PATH (flock comes with util-linux, timeout with coreutils)"
done

begin_install 1200 "$binary"

# Everything runs outside any module so that this repository's go.mod plays
# no part; the caller's GOFLAGS could (e.g. -mod=vendor), so it is replaced.
export GO111MODULE=on GOFLAGS=-mod=readonly GOWORK=off
# fetch downloads the module, then the modules of every package its main
# package imports (what go install would fetch), each step bounded.
fetch() {
  (cd "$tmp" && timeout "$FETCH_TIMEOUT" go mod download "$MODULE") >&2 || return 1
  (cd "$(go env GOMODCACHE)/$MODULE_PATH@$VERSION" &&
    timeout "$FETCH_TIMEOUT" go list -deps . >/dev/null) >&2
}
log "fetching $MODULE and its dependencies through the Go module proxy"
for ((attempt = 1; ; attempt++)); do
  fetch && break
  ((attempt < FETCH_ATTEMPTS)) || die "fetching $MODULE failed $FETCH_ATTEMPTS times"
  log "fetch failed or timed out after ${FETCH_TIMEOUT}s; retrying ($((attempt + 1))/$FETCH_ATTEMPTS)"
done

log "building $MODULE with go install (minutes on a cold build cache)"
mkdir "$tmp/ready"
(cd "$tmp" && GOBIN="$tmp/ready" GOFLAGS=-buildvcs=false go install "$MODULE") >&2 ||
  die "go install $MODULE failed"
[[ -x "$tmp/ready/minio" ]] || die "go install $MODULE produced no minio binary"
printf '%s\n' "$MODULE" >"$tmp/ready/$MARKER"

finish_install
log "installed $MODULE into $install_dir"
printf '%s\n' "$binary"
