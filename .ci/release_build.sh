#!/bin/sh
# Release workflow, build job (Linux, with github.com reachable): installs the pinned Deno
# through the launcher, fetches and verifies every target's denort, cross-compiles the five
# binaries with the trusted flags (make compile TARGET=...; the Linux x64 one is smoke-tested
# right here), and writes dist/SHA256SUMS.
#
#   sh .ci/release_build.sh
set -eu
cd "$(dirname "$0")/.."
TARGETS="x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-msvc"
deno=$(SKILLGATE_SETUP_ONLY=1 ./skillgate)
# shellcheck disable=SC2086 # the targets are words
sh .ci/denort_fetch.sh "$deno" $TARGETS
for target in $TARGETS; do
  TARGET=$target make -s compile
done
(cd dist && sha256sum skillgate-* >SHA256SUMS)
cat dist/SHA256SUMS >&2
