#!/usr/bin/env bash
# Runs the MCP Inspector's SEP-2640 verification (`--method skills/list --verify
# --require-digests`) against skillgate over stdio, as a real client would check
# it: name and folder rules, description length, a complete manifest whose every
# digest and size matches the bytes resources/read serves, and the listed
# frontmatter equal to the served SKILL.md's (called by .ci/run).
#
#   .ci/inspector_verify.sh
#
# Corpora: examples/skills always; tests/fixtures/corpus when that folder exists;
# the real corpus when present (SKILLGATE_CORPUS, else
# ../shared/corpus/anthropic-skills). Each is served read-only as it is.
# Fails (exit 1) when any run fails: the Inspector exits 7 when a skill fails
# verification, 8 when one could not be fully checked, 9 when one advertises no
# digests. Prints each run's summary line, and a failing run's reports.
#
# Environment: SKILLGATE_CORPUS overrides the real corpus;
# INSPECTOR_VERIFY_KEEP=1 keeps the work folder with every report.
set -euo pipefail
cd "$(dirname "$0")/.."

INSPECTOR=npm:@modelcontextprotocol/inspector@2.12.0
REPO=$PWD
CORPUS=${SKILLGATE_CORPUS:-../shared/corpus/anthropic-skills}

# The same deno the Makefile picks (PATH when it is 2.9.x, else the pinned one in .tools/).
if deno --version 2>/dev/null | grep -q '^deno 2\.9\.'; then DENO=$(command -v deno); else
  make -s deno >&2
  DENO=$REPO/.tools/node_modules/deno/deno
fi
make -s deps >&2
read -r -a FLAGS <<<"$(make -s print-flags)"

work=$(mktemp -d "${TMPDIR:-/tmp}/skillgate-inspector.XXXXXX")
cleanup() {
  if [ "${INSPECTOR_VERIFY_KEEP:-0}" = 1 ]; then echo "inspector: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

failed=0
# verify NAME ROOT: one Inspector run over skillgate serving ROOT.
verify() {
  local name=$1 root status=0
  root=$(cd "$2" && pwd)
  echo "inspector: verifying skills/list of $name ($root)" >&2
  # The Inspector keeps its catalog and client settings under HOME: give it its own.
  (cd "$work" && HOME="$work/home" DENO_DIR="$DENO_DIR" "$DENO" run --no-config --no-lock -A \
    "$INSPECTOR" --cli --method skills/list --verify --require-digests -e "DENO_DIR=$DENO_DIR" \
    "$DENO" run "${FLAGS[@]}" "$REPO/main.ts" serve "$root" \
    >"$work/$name.out" 2>"$work/$name.err") || status=$?
  # stdout holds one JSON report per skill; stderr ends with the Inspector's summary
  # ("Verified N skills and M files: ..."), after Deno's install notices.
  local summary reports verified
  summary=$(sed 's/\x1b\[[0-9;]*m//g' "$work/$name.err" | grep -v '^[│╭╰]' | grep -v '^ *$' |
    tail -n 1 || true)
  reports=$(grep -c '^{' "$work/$name.out" || true)
  verified=$(grep -c '"outcome":"verified"' "$work/$name.out" || true)
  if [ "$status" -eq 0 ] && [ "$reports" -gt 0 ] && [ "$reports" -eq "$verified" ]; then
    echo "inspector: $name: $verified of $reports skills verified; ${summary:-no summary}" >&2
  else
    [ "$status" -ne 0 ] || status="0, but $verified of $reports skills verified"
    failed=1
    echo "inspector: $name: FAILED (exit $status): ${summary:-no summary}" >&2
    # Every report that is not verified, then the Inspector's own error line.
    grep '^{' "$work/$name.out" | grep -v '"outcome":"verified"' >&2 || true
    grep -v 'Download\|Initialize\|Warning\|│\|╭\|╰' "$work/$name.err" | tail -n 20 >&2 || true
  fi
}

# The Inspector's npm packages go in Deno's own cache; HOME is replaced above, so pin it.
DENO_DIR=${DENO_DIR:-$("$DENO" info --json | sed -n 's/^ *"denoDir": "\(.*\)",$/\1/p')}
export DENO_DIR

verify examples examples/skills
if [ -d tests/fixtures/corpus ]; then verify fixture-corpus tests/fixtures/corpus; fi
if [ -d "$CORPUS" ]; then
  verify real-corpus "$CORPUS"
else
  echo "inspector: no real corpus at $CORPUS (set SKILLGATE_CORPUS); skipped" >&2
fi

if [ "$failed" -ne 0 ]; then
  echo "inspector: SEP-2640 verification FAILED" >&2
  exit 1
fi
echo "inspector: SEP-2640 verification passed" >&2
