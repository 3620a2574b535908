/**
 * The text of `skillgate --help`, generated from the option table so it can
 * never drift from what the parser accepts.
 *
 * @module
 */

import { OPTIONS, type OptionSpec } from "../config/options.ts";
import { VERSION } from "../version.ts";
import { shellCommand } from "./shell_quote.ts";

/**
 * Renders the usage text.
 *
 * @param launch How a client starts this program, as words without roots
 *   (see `launchWords()`), e.g. `["/opt/skillgate/skillgate", "serve"]`;
 *   shown quoted for a POSIX shell in the "Connect a client" example.
 * @returns Multi-line help, ending in a newline.
 */
export function helpText(launch: readonly string[]): string {
  const options = OPTIONS.map((option) =>
    `  ${flagSyntax(option)}   (env ${option.env})\n      ${option.help}`
  ).join("\n");
  return `skillgate ${VERSION}: serves a folder of Agent Skills to MCP clients

Usage:
  skillgate [serve] [ROOT...] [options]   serve skills over stdio (or --http)
  skillgate list [ROOT...] [--json]       print the catalog and its problems
  skillgate validate [--strict] PATH...   check skill folders against the Agent Skills spec
  skillgate permissions [ROOT...] [--json]  show the Deno permissions each part holds
  skillgate config [--json]               the effective configuration, each value's source
  skillgate override NAME --disable|--enable|--hide-from-model|--show-to-model|--no-prompt|--prompt
                                          edit overrides.json (no switch: print it)
  skillgate health [--url=URL]            probe a running --http server's /healthz (exit 0 if 200)
  skillgate sync [--update [SPEC...]]     fetch remote sources (--source) and write the lock
  skillgate --help | --version

Connect a client (stdio; see README, "Connect an MCP client"), e.g. Claude Code:
  claude mcp add skills -- ${shellCommand(launch)} ~/skills

Roots (folders holding skills, or a skill folder itself):
  ROOT...                       as arguments
  SKILLS_DIR=a:b                used when no ROOT argument is given
  MCP_SKILLS_PATH=a:b           set by a host; wins over both and marks the server hosted
  "roots" in the config file    used when none of the above gives any (not when hosted)
  Lists split on ":" and ","; a blank value or an unsubstituted placeholder counts as
  unset: \${...} anywhere (\${VAR}, \${env:VAR}, \${input:VAR}, \${VAR:-x}, a-\${VAR}),
  {{VAR}} anywhere, or a whole value of exactly $VAR (but a placeholder left in a script
  or HTTP token variable refuses scripts or the start; in a hosted marker it still marks
  hosted).

Options (each also settable through its environment variable, and in the configuration file
$XDG_CONFIG_HOME/skillgate/config.json under its camelCase name; flag > variable > file > default):
${options}
  -h, --help                    this text
  -V, --version                 print the version

Scripts (see README, "Running scripts"): MCP_SKILL_RUN, MCP_CONFIRM_MODE,
MCP_CONFIRM_SECRET, MCP_CONFIRM_TTL_SECONDS, MCP_SKILL_ALLOW_UNSCRUBBED, MCP_DATA_DIR.

Exit codes: 0 done, 1 internal error or (validate) errors found, 2 bad command
line, bad environment value, unusable root or invalid configuration file.
`;
}

function flagSyntax(option: OptionSpec): string {
  switch (option.kind.type) {
    case "boolean":
      return `--${option.flag}`;
    case "port":
      return `--${option.flag}[=PORT]`;
    case "enum":
      return `--${option.flag}=${option.kind.values.join("|")}`;
    case "integer":
      return `--${option.flag}=N`;
    case "repeatable":
      return `--${option.flag}=SPEC (repeatable)`;
    default:
      return `--${option.flag}=${option.valueName ?? "VALUE"}`;
  }
}
