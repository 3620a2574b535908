/**
 * The text of `skillgate --help`, generated from the option table so it can
 * never drift from what the parser accepts.
 *
 * @module
 */

import { CAP_OPTIONS } from "../config/options.ts";
import { VERSION } from "../version.ts";

/**
 * Renders the usage text.
 *
 * @returns Multi-line help, ending in a newline.
 */
export function helpText(): string {
  const options = CAP_OPTIONS.map((option) =>
    `  --${option.flag}=N`.padEnd(30) + `${option.help}\n${" ".repeat(30)}env ${option.env}`
  ).join("\n");
  return `skillgate ${VERSION}: serves a folder of Agent Skills to MCP clients

Usage:
  skillgate [serve] [ROOT...] [options]   serve skills over stdio (the default)
  skillgate --help | --version

Roots (folders holding skills, or a skill folder itself):
  ROOT...                       as arguments
  SKILLS_DIR=a:b                used when no ROOT argument is given
  MCP_SKILLS_PATH=a:b           set by a host; wins over both and marks the server hosted
  Lists split on ":" and ","; a blank value or a literal \${VAR} counts as unset.

Options (each also settable through its environment variable):
${options}
  -h, --help                    this text
  -V, --version                 print the version

Exit codes: 0 done, 1 internal error, 2 bad command line or unusable root.
`;
}
