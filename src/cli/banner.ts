/**
 * The start-up banner printed to stderr when a person runs skillgate at a
 * terminal (stdin is a TTY), so they see it works and how to connect a client.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import type { ReadyMessage } from "../sandbox/messages.ts";
import { VERSION } from "../version.ts";
import { oneLine, safeTerminalText } from "./terminal_text.ts";

/**
 * Renders the banner.
 *
 * @param config The configuration being served.
 * @param ready The worker's start-up summary.
 * @param launch How to start this same program from a client's configuration,
 *   without the roots (e.g. `skillgate serve` for the binary, or the `make`
 *   command for a checkout).
 * @param isolation How granted scripts are contained (`sandbox`,
 *   `pid-namespace` or `process-group`), or null when none may run. @default null
 * @returns Multi-line text for stderr. Every part that can come from a skill
 *   folder or the environment (root paths, problem lines, the launch command)
 *   is escaped by `safeTerminalText`, each problem on one line.
 */
export function bannerText(
  config: Config,
  ready: ReadyMessage,
  launch: string,
  isolation: string | null = null,
): string {
  const roots = config.roots.map((root) => `  ${oneLine(root.path)} (${root.from})`).join("\n");
  const problems = ready.problemLines.length === 0
    ? ""
    : `\nProblems (${ready.errorCount} errors, ${ready.warningCount} warnings):\n` +
      ready.problemLines.map((line) => `  ${oneLine(line)}`).join("\n") + "\n";
  const rootList = config.roots.map((root) => root.path).join(" ");
  const scripts = isolation === null ? "" : `Scripts: granted scripts run in isolation mode ` +
    `${isolation}${isolation === "sandbox" ? " (bubblewrap)" : ""}\n`;
  return `skillgate ${VERSION}: serving ${ready.skillCount} skills over stdio
Roots:
${roots}
${scripts}${problems}
skillgate speaks MCP on stdin/stdout; a person at a terminal sees nothing more.
Add it to an MCP client, for example Claude Code:
  claude mcp add skills -- ${safeTerminalText(launch.replace("ROOTS", rootList))}
Press Ctrl-D or Ctrl-C to stop.
`;
}
