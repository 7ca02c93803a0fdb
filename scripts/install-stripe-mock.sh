#!/usr/bin/env bash
# Installs stripe-mock, Stripe's own mock of its HTTP API (the stand-in for
# api.stripe.com in tests and the local stack; shared/stripelocal runs it),
# into $STRIPELOCAL_DIR (default: <repo>/.cache/stripe-mock), as the single
# binary $STRIPELOCAL_DIR/stripe-mock. It is built from source with
# `go install` at the version below, through the Go module proxy (seconds
# on a warm cache; the binary is about 33 MB and embeds the OpenAPI spec
# and fixtures). Needs go and flock; the download steps also need timeout
# (coreutils).
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
readonly MODULE_PATH="github.com/stripe/stripe-mock"
readonly VERSION="v0.203.0"
readonly MODULE="$MODULE_PATH@$VERSION"
# Bounds on each download attempt: a proxy connection that stalls would
# otherwise hang go for good. Modules already fetched stay in the module
# cache, so a retry only fetches the rest.
readonly FETCH_ATTEMPTS=3 FETCH_TIMEOUT=300
# Written into the install directory after the binary; its content names
# what is installed.
readonly MARKER=".installed"

log() { printf 'install-stripe-mock: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir STRIPELOCAL_DIR stripe-mock
binary="$install_dir/stripe-mock"

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
  die "go not found on PATH; stripe-mock is built from source with go install (this repository needs Go 1.26: https://go.dev/dl/)"
for tool in flock timeout; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool not found on PATH (flock comes with util-linux, timeout with coreutils)"
done

begin_install 300 "$binary"

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

log "building $MODULE with go install"
mkdir "$tmp/ready"
(cd "$tmp" && GOBIN="$tmp/ready" GOFLAGS=-buildvcs=false go install "$MODULE") >&2 ||
  die "go install $MODULE failed"
[[ -x "$tmp/ready/stripe-mock" ]] || die "go install $MODULE produced no stripe-mock binary"
printf '%s\n' "$MODULE" >"$tmp/ready/$MARKER"

finish_install
log "installed $MODULE into $install_dir"
printf '%s\n' "$binary"
