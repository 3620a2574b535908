#!/usr/bin/env bash
# Run-checks the README's "Claude Code" section with the real client: installs
# @anthropic-ai/claude-code (pinned) into a temporary prefix, with HOME set to a
# temporary folder so no real configuration is read or touched, and then
#   1. stdio: copies this checkout to a path holding a space and runs
#      `claude mcp add skills -- "<path with space>/skillgate" serve "<root with space>"`
#      exactly as the README says; `claude mcp list` must show it Connected;
#   2. HTTP with a bearer token: starts the launcher with --http and
#      SKILLGATE_HTTP_TOKEN, runs
#      `claude mcp add --transport http skills-http URL --header "Authorization: Bearer TOKEN"`;
#      it must show Connected, and the same URL with a wrong token must not.
#
#   .ci/claude_code_check.sh          (called by .ci/run; needs the npm registry)
#
# Version: 2.1.197 is the newest Claude Code whose package declares
# engines.node >=18 (2.1.198 and later ask for Node 22); this machine has Node 20.
# Environment: CLAUDE_CODE_CHECK_KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE=@anthropic-ai/claude-code@2.1.197

work=$(mktemp -d "${TMPDIR:-/tmp}/skillgate-claude-code.XXXXXX")
server_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "${CLAUDE_CODE_CHECK_KEEP:-0}" = 1 ]; then echo "claude-code: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

say() { echo "claude-code: $*" >&2; }

# Deno and the locked dependencies (so the copy below needs no install of its own).
DENO=$(SKILLGATE_SETUP_ONLY=1 ./skillgate)

say "installing $CLAUDE_CODE into a temporary prefix"
npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$work/claude" "$CLAUDE_CODE" >&2
claude=$work/claude/node_modules/.bin/claude
say "$("$claude" --version)"

# The checkout, as a user would have it, at a path holding a space (.tools/ and
# node_modules/ come along, so the launcher takes its fast path).
checkout="$work/path with space/skillgate"
mkdir -p "$checkout"
tar -C . --exclude=./.git --exclude=./dist --exclude=./coverage -cf - . | tar -C "$checkout" -xf -
root="$work/my skills"
cp -R examples/skills "$root"
mkdir -p "$work/home" "$work/project"

# Claude Code with a private HOME, run from a project folder (its config is per project).
cc() { (cd "$work/project" && HOME="$work/home" DISABLE_AUTOUPDATER=1 \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$claude" "$@"); }

# 1. stdio, exactly the README's line.
cc mcp add skills -- "$checkout/skillgate" serve "$root" >&2

# 2. Streamable HTTP with a bearer token.
port=$("$DENO" eval --no-config \
  'const l = Deno.listen({ hostname: "127.0.0.1", port: 0 }); console.log(l.addr.port); l.close();')
token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
SKILLGATE_HTTP_TOKEN=$token "$checkout/skillgate" serve "$root" --http="$port" \
  </dev/null 2>"$work/http.log" &
server_pid=$!
for _ in $(seq 600); do
  if grep -q "over Streamable HTTP at" "$work/http.log"; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    say "skillgate --http did not start:"
    cat "$work/http.log" >&2
    exit 1
  fi
  sleep 0.1
done
url="http://127.0.0.1:$port/mcp"
cc mcp add --transport http skills-http "$url" --header "Authorization: Bearer $token" >&2
cc mcp add --transport http skills-wrong-token "$url" \
  --header "Authorization: Bearer wrong-token-0123456789abcdef" >&2

list=$(cc mcp list 2>&1) || true
printf '%s\n' "$list" | sed 's/^/claude-code:   /' >&2

failed=0
for name in skills skills-http; do
  if printf '%s\n' "$list" | grep -q "^$name: .*Connected"; then
    say "$name: Connected"
  else
    say "FAILED: $name is not Connected"
    failed=1
  fi
done
if printf '%s\n' "$list" | grep -q "^skills-wrong-token: .*Connected"; then
  say "FAILED: a wrong bearer token was accepted"
  failed=1
else
  say "skills-wrong-token: refused, as it must be"
fi
exit "$failed"
