#!/bin/sh
# Builds the single skillgate binary with `deno compile` (called by `make compile`).
#
#   sh .ci/compile.sh [--plan] DENO OUTPUT FLAG...
#
# FLAG... are the trusted part's static flags exactly as `make print-flags`
# prints them (src/sandbox/trusted_flags.json): the compiled binary embeds
# them, so it holds the same rights as `make run` and the tests.
# --plan prints the deno argv (one element per line) and builds nothing.
#
# DENORT_BIN (optional) names a local denort, deno compile's base runtime, for
# offline builds. The full deno CLI is refused: a binary built on it opens a
# REPL with every permission instead of running skillgate.
set -eu

DENO_VERSION=2.9.6
ENTRY=main.ts
WORKER_ENTRY=src/worker/entry.ts
PROBE=skillgate-denort-probe

plan=false
if [ "${1:-}" = "--plan" ]; then
  plan=true
  shift
fi
if [ "$#" -lt 2 ]; then
  echo "usage: sh .ci/compile.sh [--plan] DENO OUTPUT FLAG..." >&2
  exit 2
fi
deno=$1
output=$2
shift 2

# The worker runs with narrower permissions only under this flag; it is among
# the trusted flags already, and added here only if that list ever loses it.
has_worker_options=false
for flag in "$@"; do
  [ "$flag" = "--unstable-worker-options" ] && has_worker_options=true
done
if [ "$has_worker_options" = false ]; then
  set -- "$@" --unstable-worker-options
fi

# The worker module is loaded at run time by URL, so it must be named to be embedded.
set -- compile "$@" --include "$WORKER_ENTRY" --output "$output" "$ENTRY"

if [ "$plan" = true ]; then
  printf '%s\n' "$deno" "$@"
  exit 0
fi

fail() {
  printf 'skillgate: %s\n' "$1" >&2
  exit 1
}

# Runs a command with stdin closed and a time limit, output and errors merged.
probe() {
  if command -v timeout >/dev/null 2>&1; then
    timeout 20 "$@" </dev/null 2>&1 || true
  else
    "$@" </dev/null 2>&1 || true
  fi
}

if [ -n "${DENORT_BIN:-}" ]; then
  if [ ! -f "$DENORT_BIN" ] || [ ! -x "$DENORT_BIN" ]; then
    fail "DENORT_BIN=\"$DENORT_BIN\" is not an executable file. Point it at denort $DENO_VERSION, or unset it"
  fi
  version_text=$(probe "$DENORT_BIN" --version)
  eval_text=$(probe "$DENORT_BIN" eval "console.log('$PROBE')")
  is_full_cli=false
  case $version_text in *"deno "*) case $version_text in *v8*) is_full_cli=true ;; esac ;; esac
  case $eval_text in *"$PROBE"*) is_full_cli=true ;; esac
  if [ "$is_full_cli" = true ]; then
    fail "DENORT_BIN=\"$DENORT_BIN\" is the full deno CLI, not denort, deno compile's base runtime. A binary built on it opens a REPL with every permission instead of running skillgate, so it is not built. Point DENORT_BIN at denort $DENO_VERSION (the denort-<target>.zip of the Deno $DENO_VERSION release, unzipped)"
  fi
fi

mkdir -p "$(dirname "$output")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if "$deno" "$@" 2>"$log"; then
  cat "$log" >&2
  echo "skillgate: built $output" >&2
  exit 0
fi
cat "$log" >&2
if [ -z "${DENORT_BIN:-}" ] && grep -q "Setting up base binary" "$log"; then
  fail "deno compile could not download its base runtime (denort $DENO_VERSION); this machine cannot reach Deno's download host. Get the denort-<target>.zip of the Deno $DENO_VERSION release on a machine that can, unzip it, and run: make compile DENORT_BIN=/path/to/denort"
fi
fail "deno compile failed (see above)"
