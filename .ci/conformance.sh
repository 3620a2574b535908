#!/usr/bin/env bash
# Runs the official MCP conformance suite against skillgate over Streamable HTTP
# (called by .ci/run after `make test`).
#
#   .ci/conformance.sh
#
# Starts skillgate (`deno run` with the trusted flags, --http on a free loopback
# port) on a temporary copy of the fixture corpus (tests/fixtures/corpus, always;
# its first skill has a subfolder, so the directory scenario is fully checked),
# runs every server scenario of spec 2025-11-25 plus the three SEP-2640
# skills-extension scenarios, one by one; then does the same on a copy of the
# real-world corpus when one is present. Stops each server with SIGTERM and
# requires a clean exit (graceful shutdown). Finally .ci/conformance_report.ts
# READS every check: expected failures (fixtures of the SDK's example server) are
# listed in .ci/conformance-expected-failures.yml with their reasons; any other
# failure, an unexplained skip, or a stale expected failure fails the run.
#
# Environment: SKILLGATE_CORPUS names the real-world corpus (default
# ../shared/corpus/anthropic-skills, used when it exists); CONFORMANCE_KEEP=1
# keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE=npm:@modelcontextprotocol/conformance@0.2.0-alpha.12
SPEC=2025-11-25
EXTENSION_SCENARIOS="sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory"
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

# run_scenarios RUN URL SCENARIO...: one suite invocation per scenario, results in $work/results/RUN/.
run_scenarios() {
  local run=$1 target=$2 scenario force
  shift 2
  for scenario in "$@"; do
    force=()
    case " $EXTENSION_SCENARIOS " in *" $scenario "*) force=(--force) ;; esac
    conformance server --url "$target" --spec-version "$SPEC" "${force[@]}" \
      --scenario "$scenario" -o "$work/results/$run/$scenario" >"$work/$run-$scenario.log" 2>&1 || true
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

mapfile -t scenarios < <(conformance list --server --spec-version "$SPEC" | sed -n 's/^ *- \([a-z0-9-]*\) .*/\1/p')
if [ "${#scenarios[@]}" -eq 0 ]; then
  echo "conformance: the suite listed no server scenarios" >&2
  exit 1
fi
# shellcheck disable=SC2206
scenarios+=($EXTENSION_SCENARIOS)
echo "conformance: ${#scenarios[@]} scenarios at spec $SPEC" >&2

for run in "${runs[@]}"; do
  start_server "$run" "$work/$run"
  run_scenarios "$run" "$url" "${scenarios[@]}"
  stop_server
done

"$DENO" run --cached-only --frozen --allow-read .ci/conformance_report.ts \
  "$work/results" .ci/conformance-expected-failures.yml
