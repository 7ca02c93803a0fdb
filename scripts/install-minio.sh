#!/usr/bin/env bash
# Installs the MinIO server, the S3-compatible stand-in for Amazon S3 in tests
# and the local stack (shared/local/s3local), into $S3LOCAL_DIR (default:
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

log() { printf 'install-minio: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=installdir.sh
source "$(dirname "${BASH_SOURCE[0]}")/installdir.sh"
resolve_install_dir S3LOCAL_DIR minio
install_go_binary "$MODULE_PATH" "$VERSION" minio 1200 \
  "MinIO is built from source with go install (Go 1.24+; this repository needs 1.26: https://go.dev/dl/)" \
  " (minutes on a cold build cache)"
