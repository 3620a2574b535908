#!/usr/bin/env bash
# Validates the Claude Code plugin (plugin/) with the real client's own validator:
# `claude plugin validate --strict` of @anthropic-ai/claude-code 2.1.197 (pinned: the newest
# whose package runs on Node 20, as in .ci/claude_code_check.sh), installed into a temporary
# prefix with a temporary HOME. It must pass on plugin/ and fail on a copy whose user setting
# has a type the schema does not know (so the validator is shown to validate).
#
#   .ci/plugin_check.sh          (called by .ci/run; needs the npm registry)
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE=@anthropic-ai/claude-code@2.1.197
work=$(mktemp -d "${TMPDIR:-/tmp}/skillgate-plugin.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { echo "plugin: $*" >&2; }

npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$work/claude" "$CLAUDE_CODE" >&2
claude=$work/claude/node_modules/.bin/claude
mkdir -p "$work/home"
cc() { HOME="$work/home" DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$claude" "$@"; }
say "$(cc --version)"

cc plugin validate --strict plugin >&2
say "plugin/ passes claude plugin validate --strict"

cp -R plugin "$work/broken"
sed -i.bak 's/"type": "directory"/"type": "folder"/' "$work/broken/.claude-plugin/plugin.json"
if cc plugin validate --strict "$work/broken" >&2; then
  say "FAILED: a plugin with an unknown userConfig type passed validation"
  exit 1
fi
say "a broken copy is refused, as it must be"
