/**
 * The start-up banner printed to stderr when a person runs skillgate at a
 * terminal (stdin is a TTY), so they see it works and how to connect a client.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import type { ReadyMessage } from "../sandbox/messages.ts";
import { VERSION } from "../version.ts";
import { oneLine, oneLineName, safeTerminalText } from "./terminal_text.ts";
import { shellCommand } from "./shell_quote.ts";
import { counted } from "./counted.ts";

/**
 * Renders the banner.
 *
 * @param config The configuration being served.
 * @param ready The worker's start-up summary.
 * @param launch How to start this same program from a client's configuration,
 *   as words without the roots (see `launchWords()`), e.g.
 *   `["/opt/skillgate/skillgate", "serve"]`; the suggested `claude mcp add`
 *   line adds the roots and the command line's options
 *   (`config.commandLineOptions`) and quotes every word for a POSIX shell.
 * @param isolation How granted scripts are contained (`sandbox`,
 *   `pid-namespace` or `process-group`), or null when none may run. @default null
 * @returns Multi-line text for stderr. The problem lines are those of
 *   `ready` (errors first), followed, when the counts hold more, by
 *   `... and N more problems (skillgate list shows them all)`. Every part that can come from a skill
 *   folder or the environment (root paths, problem lines, the launch command)
 *   is escaped by `safeTerminalText`, each problem on one line.
 */
export function bannerText(
  config: Config,
  ready: ReadyMessage,
  launch: readonly string[],
  isolation: string | null = null,
): string {
  const roots = config.roots.map((root) => `  ${oneLineName(root.path)} (${root.from})`).join("\n");
  // The worker sends at most 10 lines, errors first; a cut is stated, never silent (README).
  const leftOut = Math.max(
    0,
    ready.errorCount + ready.warningCount - ready.problemLines.length,
  );
  const cut = leftOut === 0
    ? ""
    : `  ... and ${counted(leftOut, "more problem")} (skillgate list shows them all)\n`;
  const problems = ready.problemLines.length === 0
    ? ""
    : `\nProblems (${counted(ready.errorCount, "error")}, ${
      counted(ready.warningCount, "warning")
    }):\n` +
      ready.problemLines.map((line) => `  ${oneLine(line)}`).join("\n") + "\n" + cut;
  // The options typed at the terminal too: the client must start what was tested here.
  const command = shellCommand([
    ...launch,
    ...config.roots.map((root) => root.path),
    ...config.commandLineOptions ?? [],
  ]);
  const scripts = isolation === null ? "" : `Scripts: granted scripts run in isolation mode ` +
    `${isolation}${isolation === "sandbox" ? " (bubblewrap)" : ""}\n`;
  return `skillgate ${VERSION}: serving ${counted(ready.skillCount, "skill")} over stdio
Roots:
${roots}
${scripts}${problems}
skillgate speaks MCP on stdin/stdout; a person at a terminal sees nothing more.
Add it to an MCP client, for example Claude Code:
  claude mcp add skills -- ${safeTerminalText(command)}
Press Ctrl-D or Ctrl-C to stop.
`;
}
