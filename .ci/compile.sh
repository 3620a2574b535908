#!/bin/sh
# Builds skillgate's single binary for this machine with `deno compile` and smoke-tests it
# (called by `make compile` and by the release workflow on each OS).
#
#   sh .ci/compile.sh [--plan] DENO DIST FLAG...
#
# Output: DIST/skillgate-<os>-<arch> (linux-x64, linux-arm64, macos-x64, macos-arm64,
# windows-x64.exe), for the target of the Deno running this build, or for TARGET=<triple>
# (a cross build, which cannot be smoke-tested here and says so). FLAG... are the trusted
# part's static flags exactly as `make print-flags` prints them (src/sandbox/trusted_flags.json):
# the binary embeds them, so it holds the same rights as `make run` and the tests.
# --plan prints the deno argv (one element per line) and builds nothing.
#
# The base runtime (denort) comes from, in this order:
#   DENORT_BIN=/path/to/denort  accepted only with DENORT_SHA256=<its sha256>, given by you
#       (read from Deno's release); the full deno CLI is refused (a binary built on it opens a
#       REPL with every permission instead of running skillgate);
#   $DENO_DIR/dl/release/v2.9.6/denort-<target>.zip, Deno's own cache (filled by deno compile's
#       download, or by .ci/denort_fetch.sh), checked against .ci/denort-2.9.6.sha256 when that
#       file holds a sum for the target (until it does, the build says the zip is unverified).
# Then .ci/smoke.ts runs on the binary; any failure removes the output and exits 1.
set -eu

DENO_VERSION=2.9.6
ENTRY=main.ts
WORKER_ENTRY=src/worker/entry.ts
SMOKE=.ci/smoke.ts
# SKILLGATE_DENORT_SUMS names another sums file (the tests use it to check a mismatch).
SUMS=${SKILLGATE_DENORT_SUMS:-.ci/denort-$DENO_VERSION.sha256}
FETCHER_ENTRY=src/remote/fetcher_entry.ts
DECLARATIONS_ENTRY=src/sandbox/declared_env_entry.ts
DIGESTS_ENTRY=src/mcp/skills_extension/digest_entry.ts
# The trusted part's one-shot commands, loaded by URL so that serve starts without them.
ON_DEMAND_ENTRY=src/cli/on_demand.ts
PROBE=skillgate-denort-probe

plan=false
if [ "${1:-}" = "--plan" ]; then
  plan=true
  shift
fi
if [ "$#" -lt 2 ]; then
  echo "usage: sh .ci/compile.sh [--plan] DENO DIST FLAG..." >&2
  exit 2
fi
deno=$1
dist=$2
shift 2

fail() {
  printf 'skillgate: %s\n' "$1" >&2
  exit 1
}

host=$("$deno" eval --no-config 'console.log(Deno.build.target)') ||
  fail "cannot run $deno to learn the build target"
# TARGET=<triple> cross-compiles (the release workflow builds every target on Linux and
# smoke-tests each binary on its own OS); by default the build is for this machine.
target=${TARGET:-$host}
case $target in
x86_64-unknown-linux-gnu) name=linux-x64 ;;
aarch64-unknown-linux-gnu) name=linux-arm64 ;;
x86_64-apple-darwin) name=macos-x64 ;;
aarch64-apple-darwin) name=macos-arm64 ;;
x86_64-pc-windows-msvc) name=windows-x64.exe ;;
*) fail "no skillgate binary is built for $target (supported: linux x64/arm64, macOS x64/arm64, Windows x64)" ;;
esac
output=$dist/skillgate-$name

# The worker runs with narrower permissions only under this flag; it is among
# the trusted flags already, and added here only if that list ever loses it.
has_worker_options=false
for flag in "$@"; do
  [ "$flag" = "--unstable-worker-options" ] && has_worker_options=true
done
if [ "$has_worker_options" = false ]; then
  set -- "$@" --unstable-worker-options
fi

if [ "$target" != "$host" ]; then
  set -- "$@" --target "$target"
fi
# The worker modules (and the trusted part's on-demand modules) are loaded at run time by URL,
# so they must be named to be embedded.
set -- compile "$@" --include "$WORKER_ENTRY" --include "$FETCHER_ENTRY" --include "$DECLARATIONS_ENTRY" --include "$DIGESTS_ENTRY" --include "$ON_DEMAND_ENTRY" --output "$output" "$ENTRY"

if [ "$plan" = true ]; then
  printf '%s\n' "$deno" "$@"
  exit 0
fi

# From here on, any exit that is not a passed smoke leaves no output behind.
rm -f "$output"
log=$(mktemp)
passed=false
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  rm -f "$log"
  if [ "$passed" != true ]; then
    rm -f "$output"
    rmdir "$dist" 2>/dev/null || true
  fi
}
trap cleanup EXIT

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 "$1" | cut -d ' ' -f 1
  fi
}

# Runs a command with stdin closed and a time limit, output and errors merged.
probe() {
  if command -v timeout >/dev/null 2>&1; then
    timeout 20 "$@" </dev/null 2>&1 || true
  else
    "$@" </dev/null 2>&1 || true
  fi
}

# The committed sum for the target's zip, or nothing while the sums file holds none.
pinned_sum() {
  sed -n "s/^\([0-9a-f]\{64\}\)  denort-$target\.zip\$/\1/p" "$SUMS" 2>/dev/null | head -n 1
}

zip=
if [ -n "${DENORT_BIN:-}" ]; then
  if [ ! -f "$DENORT_BIN" ] || [ ! -x "$DENORT_BIN" ]; then
    fail "DENORT_BIN=\"$DENORT_BIN\" is not an executable file. Point it at denort $DENO_VERSION, or unset it"
  fi
  expected=$(printf '%s' "${DENORT_SHA256:-}" | tr 'A-F' 'a-f')
  case $expected in
  "" | *[!0-9a-f]*)
    fail "DENORT_BIN is accepted only with DENORT_SHA256=<sum>, the SHA-256 of that denort file: check denort-$target.zip against the denort-$target.zip.sha256sum of Deno's $DENO_VERSION release, unzip it, and give the sum of the denort inside (sha256sum denort). Nothing was built"
    ;;
  esac
  [ "${#expected}" -eq 64 ] || fail "DENORT_SHA256 must be 64 hexadecimal digits. Nothing was built"
  actual=$(sha256_of "$DENORT_BIN")
  [ "$actual" = "$expected" ] ||
    fail "DENORT_BIN=\"$DENORT_BIN\" has SHA-256 $actual, not DENORT_SHA256=$expected. Nothing was built"
  version_text=$(probe "$DENORT_BIN" --version)
  eval_text=$(probe "$DENORT_BIN" eval "console.log('$PROBE')")
  is_full_cli=false
  case $version_text in *"deno "*) case $version_text in *v8*) is_full_cli=true ;; esac ;; esac
  case $eval_text in *"$PROBE"*) is_full_cli=true ;; esac
  if [ "$is_full_cli" = true ]; then
    fail "DENORT_BIN=\"$DENORT_BIN\" is the full deno CLI, not denort, deno compile's base runtime. A binary built on it opens a REPL with every permission instead of running skillgate, so it is not built. Point DENORT_BIN at denort $DENO_VERSION (the denort-<target>.zip of the Deno $DENO_VERSION release, unzipped)"
  fi
  echo "skillgate: base runtime: DENORT_BIN, SHA-256 as given" >&2
else
  deno_dir=$("$deno" info --json 2>/dev/null | sed -n 's/^ *"denoDir": "\(.*\)",$/\1/p')
  [ -n "$deno_dir" ] || fail "cannot learn Deno's cache folder from \`$deno info --json\`"
  zip=$deno_dir/dl/release/v$DENO_VERSION/denort-$target.zip
fi

# Checks the cached zip against the committed sum (before the build, and after it when
# deno compile downloaded the zip itself).
check_zip() {
  [ -n "$zip" ] && [ -f "$zip" ] || return 0
  pinned=$(pinned_sum)
  if [ -z "$pinned" ]; then
    echo "skillgate: base runtime: $zip is UNVERIFIED: $SUMS holds no sum yet (the release workflow reads them from Deno's published .sha256sum files); the smoke test is the guard" >&2
    return 0
  fi
  actual=$(sha256_of "$zip")
  [ "$actual" = "$pinned" ] ||
    fail "$zip has SHA-256 $actual, not the $SUMS sum $pinned: it is not Deno's denort $DENO_VERSION. Delete it and fetch it again (.ci/denort_fetch.sh). Nothing was kept"
  echo "skillgate: base runtime: $zip matches $SUMS" >&2
}
check_zip

mkdir -p "$dist"
if ! "$deno" "$@" 2>"$log"; then
  cat "$log" >&2
  if [ -z "${DENORT_BIN:-}" ] && grep -q "Setting up base binary" "$log"; then
    fail "deno compile could not download its base runtime (denort $DENO_VERSION); this machine cannot reach Deno's download host. Get the denort-$target.zip of the Deno $DENO_VERSION release on a machine that can and put it at $zip (or unzip it and run: make compile DENORT_BIN=/path/to/denort DENORT_SHA256=<its sum>)"
  fi
  fail "deno compile failed (see above)"
fi
cat "$log" >&2
[ -f "$output" ] || fail "deno compile reported success but wrote no $output"
check_zip

if [ "$target" != "$host" ]; then
  passed=true
  echo "skillgate: built $output for $target; NOT smoke-tested here (this machine is $host): run .ci/smoke.ts on it on its own OS before shipping it (the release workflow does)" >&2
  exit 0
fi
echo "skillgate: smoke-testing $output" >&2
if ! "$deno" run --frozen --cached-only --allow-all "$SMOKE" -- "$output"; then
  fail "$output failed its smoke test (see above), so it was removed"
fi
passed=true
echo "skillgate: built and smoke-tested $output" >&2
