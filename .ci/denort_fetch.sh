#!/bin/sh
# Fetches and verifies Deno 2.9.6's denort zip for each TARGET into Deno's own cache
# ($DENO_DIR/dl/release/v2.9.6/denort-<target>.zip), where `deno compile` takes it (release
# workflow; needs github.com).
#
#   sh .ci/denort_fetch.sh DENO TARGET...
#
# Each zip is checked against Deno's published denort-<target>.zip.sha256sum file AND, when
# .ci/denort-2.9.6.sha256 holds a sum for the target, against that committed sum; any mismatch
# fails. The sums read from the release are printed in the sums file's format (and written to
# dist/denort-2.9.6.sha256), so a maintainer can commit them.
set -eu
cd "$(dirname "$0")/.."
DENO_VERSION=2.9.6
SUMS=.ci/denort-$DENO_VERSION.sha256
BASE=https://github.com/denoland/deno/releases/download/v$DENO_VERSION
[ "$#" -ge 2 ] || { echo "usage: sh .ci/denort_fetch.sh DENO TARGET..." >&2; exit 2; }
deno=$1
shift
deno_dir=$("$deno" info --json | sed -n 's/^ *"denoDir": "\(.*\)",$/\1/p')
[ -n "$deno_dir" ] || { echo "denort: cannot learn Deno's cache folder" >&2; exit 1; }
cache=$deno_dir/dl/release/v$DENO_VERSION
mkdir -p "$cache" dist
: >dist/denort-$DENO_VERSION.sha256
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1; else shasum -a 256 "$1" | cut -d ' ' -f 1; fi
}
for target in "$@"; do
  zip=denort-$target.zip
  tmp=$(mktemp -d)
  curl -fsSL --retry 3 -o "$tmp/$zip" "$BASE/$zip"
  curl -fsSL --retry 3 -o "$tmp/$zip.sha256sum" "$BASE/$zip.sha256sum"
  # The published file is `sha256sum` output on Unix and a Get-FileHash table on Windows:
  # the sum is its one 64-digit hexadecimal word.
  published=$(tr 'A-F' 'a-f' <"$tmp/$zip.sha256sum" | grep -o '[0-9a-f]\{64\}' | head -n 1)
  actual=$(sha256_of "$tmp/$zip")
  [ -n "$published" ] && [ "$actual" = "$published" ] || {
    echo "denort: $zip has SHA-256 $actual, but Deno's $zip.sha256sum says ${published:-nothing}" >&2
    exit 1
  }
  pinned=$(sed -n "s/^\([0-9a-f]\{64\}\)  $zip\$/\1/p" "$SUMS" | head -n 1)
  if [ -n "$pinned" ] && [ "$pinned" != "$actual" ]; then
    echo "denort: $zip has SHA-256 $actual, not the committed $SUMS sum $pinned" >&2
    exit 1
  fi
  [ -n "$pinned" ] || echo "denort: $SUMS holds no sum for $zip yet; commit this line read from Deno's release:" >&2
  printf '%s  %s\n' "$actual" "$zip" | tee -a "dist/denort-$DENO_VERSION.sha256" >&2
  mv "$tmp/$zip" "$cache/$zip"
  rm -rf "$tmp"
done
