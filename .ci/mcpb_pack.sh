#!/bin/sh
# Packs the MCP Bundle (make mcpb) from built binaries and lists what it holds.
#
#   sh .ci/mcpb_pack.sh BINDIR OUTDIR
#
# BINDIR holds skillgate-<os>-<arch> binaries (make compile, or the release's smoke-tested
# ones); every one present is packed under server/, beside the sh selector
# packaging/mcpb/server/skillgate (Linux, macOS) that the manifest starts. At least one is
# needed. The manifest is packaging/mcpb/manifest.json, generated from
# packaging/identity.json. Output: OUTDIR/skillgate-<version>.mcpb (path printed on stdout).
set -eu
cd "$(dirname "$0")/.."
MCPB=@anthropic-ai/mcpb@2.1.2
[ "$#" -eq 2 ] || { echo "usage: sh .ci/mcpb_pack.sh BINDIR OUTDIR" >&2; exit 2; }
bindir=$1
mkdir -p "$2"
out=$(cd "$2" && pwd -P)
stage=$(mktemp -d "${TMPDIR:-/tmp}/skillgate-mcpb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/server"
cp packaging/mcpb/manifest.json LICENSE README.md "$stage/"
cp packaging/mcpb/server/skillgate "$stage/server/skillgate"
count=0
for name in skillgate-linux-x64 skillgate-linux-arm64 skillgate-macos-x64 skillgate-macos-arm64 skillgate-windows-x64.exe; do
  if [ -f "$bindir/$name" ]; then
    [ -x "$bindir/$name" ] || { echo "mcpb: $bindir/$name is not executable" >&2; exit 1; }
    cp "$bindir/$name" "$stage/server/$name"
    count=$((count + 1))
  else
    echo "mcpb: no $name in $bindir: the bundle will not start on that platform" >&2
  fi
done
[ "$count" -gt 0 ] || { echo "mcpb: no skillgate binary in $bindir; run make compile first" >&2; exit 1; }
version=$(sed -n 's/^ *"version": "\([^"]*\)",$/\1/p' packaging/mcpb/manifest.json | head -n 1)
bundle=$out/skillgate-$version.mcpb
npx -y "$MCPB" validate "$stage/manifest.json" >&2
npx -y "$MCPB" pack "$stage" "$bundle" >&2
echo "mcpb: $bundle holds:" >&2
unzip -Z1 "$bundle" | sed 's/^/mcpb:   /' >&2
printf '%s\n' "$bundle"
