#!/usr/bin/env bash
# Installs stripe-mock, Stripe's own mock of its HTTP API (the stand-in for
# api.stripe.com in tests and the local stack; shared/local/stripelocal runs it),
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

log() { printf 'install-stripe-mock: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir STRIPELOCAL_DIR stripe-mock
install_go_binary "$MODULE_PATH" "$VERSION" stripe-mock 300 \
  "stripe-mock is built from source with go install (this repository needs Go 1.26: https://go.dev/dl/)" \
  ""
