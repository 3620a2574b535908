/**
 * The one line skillgate prints to stderr when a client starts it over stdio
 * (stdin is not a terminal), so the client's log shows what was served.
 *
 * @module
 */

import { counted } from "./counted.ts";
import type { Config } from "../config/config.ts";
import type { ReadyMessage } from "../sandbox/messages.ts";
import { VERSION } from "../version.ts";
import { oneLineName } from "./terminal_text.ts";

/**
 * Renders the start-up line: version, roots, skills served and problems by
 * severity. Root paths are escaped (a folder name may hold control
 * characters) and the whole is one line.
 *
 * @param config The configuration being served.
 * @param ready The worker's start-up summary.
 * @returns One line without a trailing newline, e.g.
 *   `skillgate 0.1.0: serving 2 skills over stdio from /s (argument); problems: 0 errors, 1 warning`.
 */
export function startLine(config: Config, ready: ReadyMessage): string {
  const roots = config.roots.map((root) => `${oneLineName(root.path)} (${root.from})`).join(", ");
  const skills = counted(ready.skillCount, "skill");
  const problems = `${counted(ready.errorCount, "error")}, ${
    counted(ready.warningCount, "warning")
  }`;
  const hint = ready.errorCount + ready.warningCount > 0 ? " (skillgate list shows them)" : "";
  return `skillgate ${VERSION}: serving ${skills} over stdio from ${roots}; ` +
    `problems: ${problems}${hint}`;
}
