#!/usr/bin/env bash
# Renders the test frames from their POV-Ray scenes: NAME.pov -> NAME.jpg,
# 640x480 like a frame of the capture page. Needs povray (Debian: povray)
# and ffmpeg. The committed JPEGs are what the tests use; a new render may
# differ in a few pixels (radiosity sampling), so check the test still
# passes after rendering again.
set -euo pipefail
cd "$(dirname "$0")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for scene in living-room kitchen bedroom; do
  povray "+I$scene.pov" "+O$tmp/$scene.png" +W640 +H480 +A0.3 +Q9 +WT1 -D -V +FN -GA 2>/dev/null
  ffmpeg -loglevel error -y -i "$tmp/$scene.png" -q:v 3 "$scene.jpg"
done
