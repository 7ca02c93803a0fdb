#!/usr/bin/env bash
# Installs axe-core, the accessibility checker that the browser tests inject
# into the pages they open (shared/testkit/browser CheckAccessibility), into
# $AXE_DIR (default: <repo>/.cache/axe) as $AXE_DIR/node_modules: npm
# axe-core 4.14.1, pinned with its sha512 integrity by
# scripts/axe/package-lock.json, by `npm ci --ignore-scripts`. One package,
# no dependencies, about 3 MB (seconds).
#
# Idempotent (a marker holds the lockfile's sha256), safe to run
# concurrently (flock), never leaves a partial install (see installdir.sh).
# On success the last (and only) line on stdout is the install directory.
set -euo pipefail

readonly AXE_VERSION="4.14.1"
readonly PKG_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/axe" && pwd)"
readonly NPM_ATTEMPTS=2 NPM_TIMEOUT=300
readonly MARKER=".installed"

log() { printf 'install-axe: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir AXE_DIR axe

command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found on PATH (it comes with coreutils)"
want="lockfile sha256 $(cat "$PKG_DIR/package.json" "$PKG_DIR/package-lock.json" | sha256sum | cut -d' ' -f1)"

installed() {
  [[ -f "$install_dir/node_modules/axe-core/axe.min.js" ]] &&
    [[ "$(cat "$install_dir/$MARKER" 2>/dev/null || true)" == "$want" ]]
}

if installed; then
  printf '%s\n' "$install_dir"
  exit 0
fi

require_node 18 "axe-core's install"
require_npm_tools

begin_install 600 "$install_dir"

log "installing axe-core@$AXE_VERSION with npm ci into $tmp"
npm_ci_into "$PKG_DIR" "$NPM_ATTEMPTS" "$NPM_TIMEOUT"
got="$(node -p 'require(process.argv[1]).version' "$tmp/ready/node_modules/axe-core/package.json")"
[[ "$got" == "$AXE_VERSION" ]] || die "npm installed axe-core $got, not $AXE_VERSION"
printf '%s\n' "$want" >"$tmp/ready/$MARKER"

finish_install
log "installed axe-core into $install_dir"
printf '%s\n' "$install_dir"
