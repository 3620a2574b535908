#!/bin/sh
# Packs the `npx skillgate` npm package into OUTDIR and prints the tarball's path.
#
#   sh .ci/npm_pack.sh OUTDIR
#
# The package is staged in a temporary folder (package.json, generated from
# packaging/identity.json, is kept out of the repository root so Deno in this checkout never
# reads it): packaging/npm/package.json and bin/, plus main.ts, src/, deno.json, deno.lock,
# README.md and LICENSE. node_modules is never copied; `files` in package.json lists the same.
set -eu
cd "$(dirname "$0")/.."
[ "$#" -eq 1 ] || { echo "usage: sh .ci/npm_pack.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd -P)
stage=$(mktemp -d "${TMPDIR:-/tmp}/skillgate-npm.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp packaging/npm/package.json main.ts deno.json deno.lock README.md LICENSE "$stage/"
cp -R packaging/npm/bin "$stage/bin"
tar -cf - --exclude=node_modules src | tar -C "$stage" -xf -
(cd "$stage" && npm pack --silent --pack-destination "$out") >/dev/null
name=$(sed -n 's/^ *"name": "\([^"]*\)",$/\1/p' packaging/npm/package.json | head -n 1)
version=$(sed -n 's/^ *"version": "\([^"]*\)",$/\1/p' packaging/npm/package.json | head -n 1)
tarball=$out/$name-$version.tgz
[ -f "$tarball" ] || { echo "npm pack wrote no $tarball" >&2; exit 1; }
printf '%s\n' "$tarball"
