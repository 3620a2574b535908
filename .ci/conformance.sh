#!/usr/bin/env bash
# Runs the official MCP conformance suite against skillgate over Streamable HTTP
# (called by .ci/run after `make test`).
#
#   .ci/conformance.sh
#
# Starts skillgate (`deno run` with the trusted flags, --http on a free loopback
# port) on a temporary copy of the fixture corpus (tests/fixtures/corpus, always;
# its first skill has a subfolder, so the directory scenario is fully checked)
# and runs, at each spec revision (2025-11-25 and 2026-07-28): the suite's
# requirement set (`--requirements`, which cannot be combined with `--scenario`),
# then sep-2164-resource-not-found and the three SEP-2640 skills-extension
# scenarios one by one (`--force`: the suite marks some as introduced later).
# Then it does the same on a copy of the real-world corpus when one is present.
# Stops each server with SIGTERM and requires a clean exit (graceful shutdown).
# Finally .ci/conformance_report.ts READS every check: expected failures (the
# suite's fixture surfaces, the tasks extension) are listed per revision in
# .ci/conformance-expected-failures.yml with their reasons; any other failure,
# an unexplained skip, or a stale expected failure fails the run.
#
# Environment: SKILLGATE_CORPUS names the real-world corpus (default
# ../shared/corpus/anthropic-skills, used when it exists); CONFORMANCE_KEEP=1
# keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE=npm:@modelcontextprotocol/conformance@0.2.0-alpha.12
SPECS="2025-11-25 2026-07-28"
SINGLE_SCENARIOS="sep-2164-resource-not-found sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory"
FIXTURE=tests/fixtures/corpus
REAL=${SKILLGATE_CORPUS:-../shared/corpus/anthropic-skills}
if [ -n "${SKILLGATE_CORPUS:-}" ] && [ ! -d "$REAL" ]; then
  echo "conformance: SKILLGATE_CORPUS is \"$REAL\", which is not a folder; unset it to run on the fixture corpus alone" >&2
  exit 2
fi

# The same deno the Makefile picks (PATH when it is 2.9.x, else the pinned one in .tools/).
if deno --version 2>/dev/null | grep -q '^deno 2\.9\.'; then DENO=$(command -v deno); else
  make -s deno >&2
  DENO=$PWD/.tools/node_modules/deno/deno
fi
read -r -a FLAGS <<<"$(make -s print-flags)"

work=$(mktemp -d "${TMPDIR:-/tmp}/skillgate-conformance.XXXXXX")
server_pids=()
cleanup() {
  for pid in "${server_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${server_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${CONFORMANCE_KEEP:-0}" = 1 ]; then echo "conformance: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

conformance() { (cd "$work" && "$DENO" run --no-config --no-lock -A "$CONFORMANCE" "$@"); }

free_port() {
  "$DENO" eval --no-config \
    'const l = Deno.listen({ hostname: "127.0.0.1", port: 0 }); console.log(l.addr.port); l.close();'
}

# start_server NAME ROOT: starts skillgate, waits for its ready line, sets $url.
start_server() {
  local name=$1 root=$2 port
  port=$(free_port)
  "$DENO" run "${FLAGS[@]}" main.ts serve "$root" --http="$port" 2>"$work/$name.log" &
  server_pids+=("$!")
  for _ in $(seq 600); do
    if grep -q "over Streamable HTTP at" "$work/$name.log"; then
      url="http://127.0.0.1:$port/mcp"
      echo "conformance: $(grep "over Streamable HTTP at" "$work/$name.log")" >&2
      return 0
    fi
    if ! kill -0 "${server_pids[-1]}" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "conformance: skillgate did not start on $root:" >&2
  cat "$work/$name.log" >&2
  exit 1
}

# stop_server: SIGTERM to the newest server; it must drain and exit 0.
stop_server() {
  local pid=${server_pids[-1]} code=0
  kill -TERM "$pid"
  wait "$pid" || code=$?
  unset 'server_pids[-1]'
  if [ "$code" -ne 0 ]; then
    echo "conformance: skillgate exited $code after SIGTERM (expected 0)" >&2
    exit 1
  fi
}

# run_requirements SPEC ROOT URL: the suite's requirement set of SPEC, results in $work/results/SPEC-ROOT/.
run_requirements() {
  local spec=$1 root=$2 target=$3
  conformance server --url "$target" --requirements "$spec" \
    -o "$work/results/$spec-$root" >"$work/$spec-$root-requirements.log" 2>&1 || true
}

# run_scenarios SPEC ROOT URL SCENARIO...: one suite invocation per scenario, results in $work/results/SPEC-ROOT/SCENARIO/.
run_scenarios() {
  local spec=$1 root=$2 target=$3 scenario
  shift 3
  for scenario in "$@"; do
    rm -rf "$work/results/$spec-$root/server-$scenario-"*
    conformance server --url "$target" --spec-version "$spec" --force \
      --scenario "$scenario" -o "$work/results/$spec-$root/$scenario" \
      >"$work/$spec-$root-$scenario.log" 2>&1 || true
  done
}

runs=(fixture)
cp -R "$FIXTURE" "$work/fixture"
if [ -d "$REAL" ]; then
  runs+=(real-world)
  cp -R "$REAL" "$work/real-world"
  echo "conformance: corpora used: fixture ($FIXTURE); real-world ($REAL)" >&2
else
  echo "conformance: corpora used: fixture ($FIXTURE); real-world corpus not found at $REAL" >&2
fi
chmod -R u+w "$work/fixture" ${runs[1]:+"$work/real-world"}

for run in "${runs[@]}"; do
  start_server "$run" "$work/$run"
  for spec in $SPECS; do
    echo "conformance: $run: --requirements $spec, then $SINGLE_SCENARIOS" >&2
    run_requirements "$spec" "$run" "$url"
    # shellcheck disable=SC2086
    run_scenarios "$spec" "$run" "$url" $SINGLE_SCENARIOS
  done
  stop_server
done

"$DENO" run --cached-only --frozen --allow-read .ci/conformance_report.ts \
  "$work/results" .ci/conformance-expected-failures.yml
