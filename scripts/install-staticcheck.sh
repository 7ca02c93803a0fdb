#!/usr/bin/env bash
# Installs staticcheck (honnef.co/go/tools), the linter that make test runs
# after go vet, into $STATICCHECK_DIR (default: <repo>/.cache/staticcheck),
# as the single binary $STATICCHECK_DIR/staticcheck, built with go install
# at the pinned version below through the Go module proxy (seconds on a
# warm cache). Not a go.mod tool: its requirements (x/tools, x/exp) would
# enter the module graph that infra/ shares through its replace.
#
# Idempotent and safe to run concurrently (see installdir.sh). On success
# the last (and only) line on stdout is the path of the binary; progress
# and errors go to stderr.
set -euo pipefail

# The pinned module version (2025.1.1 is not served here). Bumping it
# reinstalls on the next run.
readonly MODULE_PATH="honnef.co/go/tools"
readonly VERSION="v0.8.2"

log() { printf 'install-staticcheck: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir STATICCHECK_DIR staticcheck
install_go_binary "$MODULE_PATH" "$VERSION" staticcheck 300 \
  "staticcheck is built from source with go install (this repository needs Go 1.26: https://go.dev/dl/)" \
  "" cmd/staticcheck
