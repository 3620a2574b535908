#!/bin/sh
# Release workflow, assemble job: keeps only the binaries whose smoke passed on their own OS
# (a passed smoke leaves dist/smoked/<binary>; Linux ones are required, macOS and Windows
# are experimental and are dropped when theirs failed), rewrites SHA256SUMS for what is
# kept, packs the MCP Bundle from them, writes the release's server.json (bundle entry with
# its SHA-256) and the npm tarball, all into dist/release/.
#
#   sh .ci/release_assemble.sh
set -eu
cd "$(dirname "$0")/.."
out=dist/release
rm -rf "$out"
mkdir -p "$out/bin"
for name in skillgate-linux-x64 skillgate-linux-arm64 skillgate-macos-x64 skillgate-macos-arm64 skillgate-windows-x64.exe; do
  if [ -f "dist/smoked/$name" ]; then
    cp "dist/$name" "$out/bin/$name"
    chmod +x "$out/bin/$name"
  else
    case $name in
    skillgate-linux-*) echo "release: $name did not pass its smoke test; Linux binaries are required" >&2; exit 1 ;;
    *) echo "release: $name did not pass its smoke test on its OS: dropped (experimental)" >&2 ;;
    esac
  fi
done
bundle=$(sh .ci/mcpb_pack.sh "$out/bin" "$out")
deno=$(SKILLGATE_SETUP_ONLY=1 ./skillgate)
sum=$(sha256sum "$bundle" | cut -d ' ' -f 1)
"$deno" run --frozen --cached-only --allow-read --allow-write packaging/generate.ts \
  --release="$out" --bundle-sha256="$sum"
sh .ci/npm_pack.sh "$out" >/dev/null
cp "$out"/bin/* "$out/"
rm -rf "$out/bin"
(cd "$out" && sha256sum skillgate-* >SHA256SUMS)
cat "$out/SHA256SUMS" >&2
