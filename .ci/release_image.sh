#!/bin/sh
# Release workflow, image job: builds the container image for linux/amd64 and linux/arm64
# FROM the smoke-tested binaries in dist/ (Containerfile copies them; nothing is downloaded
# but Debian's python3 and tini), labelled from packaging/identity.json, and pushes it.
#
#   sh .ci/release_image.sh VERSION REVISION
set -eu
cd "$(dirname "$0")/.."
[ "$#" -eq 2 ] || { echo "usage: sh .ci/release_image.sh VERSION REVISION" >&2; exit 2; }
field() { sed -n "s/^ *\"$1\": \"\([^\"]*\)\",*\$/\1/p" packaging/identity.json | head -n 1; }
image=$(field imageName)
source="https://github.com/$(field owner)/$(field repo)"
for arch in amd64 arm64; do
  case $arch in amd64) binary=dist/skillgate-linux-x64 ;; arm64) binary=dist/skillgate-linux-arm64 ;; esac
  docker buildx build -f Containerfile --platform "linux/$arch" --provenance=true --push \
    --build-arg BINARY="$binary" --build-arg VERSION="$1" --build-arg REVISION="$2" \
    --build-arg SOURCE="$source" --build-arg MCP_NAME="$(field registryName)" \
    -t "$image:$1-$arch" .
done
docker buildx imagetools create -t "$image:$1" -t "$image:latest" "$image:$1-amd64" "$image:$1-arm64"
