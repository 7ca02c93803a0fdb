#!/usr/bin/env bash
# Installs the MCP inspector's command-line client, an MCP client
# independent of the Go SDK this repository uses (shared/edge/agenttools'
# inspector_test.go drives the agent tool server with it over stdio and
# streamable HTTP), into $INSPECTOR_DIR (default: <repo>/.cache/inspector),
# as $INSPECTOR_DIR/node_modules: npm @modelcontextprotocol/inspector-cli
# 1.0.3 (it runs on Node 20; the newer inspector needs Node 22) with the MCP
# TypeScript SDK it is built on at 1.32.2, every package pinned with its
# sha512 integrity by scripts/inspector/package-lock.json, by `npm ci
# --ignore-scripts`: no package runs code when it installs. About 100
# packages, 40 MB unpacked, from the npm registry (about 15 s); npm keeps
# the tarballs in its own cache (~/.npm), so a reinstall after
# `rm -rf .cache` needs no network. Needs node (20+), npm, flock, sha256sum
# and timeout.
#
# Run it as `node_modules/.bin/mcp-inspector-cli --cli TARGET --method ...`
# with the working directory inside node_modules (the CLI reads its own
# package.json as ../package.json from the working directory).
#
# Idempotent: when the pinned packages are installed (the marker file holds
# the package.json's sha256) it only prints the directory. Safe to run
# concurrently (flock on a lock file beside the install directory) and
# never leaves a partial install: npm installs into a temporary directory
# next to the target, which is renamed into place.
#
# On success the last (and only) line on stdout is the install directory;
# progress and errors go to stderr.
set -euo pipefail

# The pins: scripts/inspector/package.json and its lockfile. Changing
# them reinstalls on the next run.
readonly CLI_VERSION="1.0.3" SDK_VERSION="1.32.2"
readonly PKG_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/inspector" && pwd)"
# Bounds on npm ci: a registry connection that stalls would otherwise
# hang it for good; what it fetched stays in npm's cache for the retry.
readonly NPM_ATTEMPTS=2 NPM_TIMEOUT=300
# Written into the install directory last; it names what is installed.
readonly MARKER=".installed"

log() { printf 'install-inspector: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir INSPECTOR_DIR inspector

command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found on PATH (it comes with coreutils)"
want="lockfile sha256 $(cat "$PKG_DIR/package.json" "$PKG_DIR/package-lock.json" | sha256sum | cut -d' ' -f1)"

installed() {
  local m="$install_dir/node_modules"
  [[ -f "$m/@modelcontextprotocol/inspector-cli/build/cli.js" &&
    -f "$m/@modelcontextprotocol/inspector-cli/build/index.js" &&
    -x "$m/.bin/mcp-inspector-cli" &&
    -f "$m/@modelcontextprotocol/sdk/package.json" &&
    -f "$m/commander/package.json" ]] &&
    [[ "$(cat "$install_dir/$MARKER" 2>/dev/null || true)" == "$want" ]]
}

require_node 20 "the inspector CLI"

# Fast path: no lock, no npm.
if installed; then
  printf '%s\n' "$install_dir"
  exit 0
fi

require_npm_tools

begin_install 600 "$install_dir"

log "installing @modelcontextprotocol/inspector-cli@$CLI_VERSION (MCP SDK $SDK_VERSION) with npm ci into $tmp"
npm_ci_into "$PKG_DIR" "$NPM_ATTEMPTS" "$NPM_TIMEOUT"
got="$(node -p 'require(process.argv[1]).version' "$tmp/ready/node_modules/@modelcontextprotocol/inspector-cli/package.json")"
[[ "$got" == "$CLI_VERSION" ]] || die "npm installed inspector-cli $got, not $CLI_VERSION"
got="$(node -p 'require(process.argv[1]).version' "$tmp/ready/node_modules/@modelcontextprotocol/sdk/package.json")"
[[ "$got" == "$SDK_VERSION" ]] || die "npm installed the MCP SDK $got, not $SDK_VERSION"
printf '%s\n' "$want" >"$tmp/ready/$MARKER"

finish_install
log "installed the inspector CLI into $install_dir"
printf '%s\n' "$install_dir"
