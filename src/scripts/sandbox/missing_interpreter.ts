/**
 * An `exec` script names its interpreter on its `#!` line. In a sandbox only
 * the system folders, the skill folder, a private /tmp and the granted
 * folders are mounted, so an interpreter elsewhere (`/opt/...`, a home
 * folder, a host /tmp) is missing there and the kernel refuses to start the
 * script: bubblewrap prints `execvp SCRIPT: No such file or directory`,
 * naming the script, which IS mounted, so the missing-mount note
 * (`missing_mount.ts`) finds nothing. This reads the `#!` line and says what
 * is missing, that the sandbox did not mount it, and what to do. A
 * `#!/usr/bin/env NAME` line whose NAME is on none of the sandbox's folders
 * gets the same answer. An interpreter that is there but cannot be run (no
 * execute bit: bubblewrap's `execvp SCRIPT: Permission denied`, or `env`'s
 * "Permission denied" for the name it ran) gets a note saying so.
 *
 * @module
 */

import { isInsideLayout, type SandboxLayout } from "./layout.ts";

/** Bytes of a script read for its `#!` line at most (Linux reads 256). */
export const MAX_SHEBANG_BYTES = 256;

/** A script's `#!` line: the interpreter's path and its one optional argument. */
export interface Shebang {
  /** The interpreter as written (an absolute path, or what the script wrote). */
  readonly interpreter: string;
  /** The single argument after it (`python3` in `#!/usr/bin/env python3`), or null. */
  readonly argument: string | null;
}

/**
 * Reads the `#!` line from the start of a script.
 *
 * @param head The script's first bytes (at most {@linkcode MAX_SHEBANG_BYTES}
 *   are looked at).
 * @returns The interpreter and its argument, or null when the script has no
 *   `#!` line (or an empty one).
 *
 * Source: execve(2), "Interpreter scripts" (`#!interpreter [optional-arg]`,
 * the rest of the line one argument).
 */
export function parseShebang(head: Uint8Array): Shebang | null {
  const bytes = head.subarray(0, MAX_SHEBANG_BYTES);
  if (bytes[0] !== 0x23 || bytes[1] !== 0x21) return null;
  const end = bytes.indexOf(0x0a);
  const line = new TextDecoder("utf-8", { fatal: false })
    .decode(bytes.subarray(2, end === -1 ? bytes.length : end))
    .replace(/\r$/, "")
    .trim();
  if (line === "") return null;
  const space = line.search(/[ \t]/);
  if (space === -1) return { interpreter: line, argument: null };
  const argument = line.slice(space).trim();
  return { interpreter: line.slice(0, space), argument: argument === "" ? null : argument };
}

/**
 * The note a failed sandboxed `exec` run carries when its `#!` interpreter
 * could not be found inside the sandbox.
 *
 * @param stderr The run's stderr (bubblewrap's `execvp` line, or
 *   `/usr/bin/env`'s "No such file or directory" for the name it ran).
 * @param layout The run's sandbox.
 * @param run The skill, the script as declared, and its `#!` line as read
 *   before the run (null: none could be read).
 * @returns One note naming the interpreter, that the sandbox does not mount
 *   it (or that it is missing on this machine), and the fix; or null when
 *   the failure was not that.
 */
export function missingInterpreterNote(
  stderr: string,
  layout: SandboxLayout,
  run: { skill: string; script: string; shebang: Shebang | null },
): string | null {
  const shebang = run.shebang;
  if (shebang === null) return null;
  const head = stderr.slice(0, 4096);
  const clip = (text: string) => text.length > 200 ? `${text.slice(0, 200)}…` : text;
  const rowWith = (folder: string) =>
    `{"skill":${JSON.stringify(run.skill)},"script":${JSON.stringify(run.script)},` +
    `"read":[${JSON.stringify(clip(folder))}]}`;
  const sees = "it sees only the system folders, its skill folder, a private /tmp and the " +
    "folders its grant names";
  const interpreter = clip(shebang.interpreter);
  if (/^bwrap: execvp .*: No such file or directory$/m.test(head)) {
    if (!shebang.interpreter.startsWith("/")) {
      return `The script's #! line names ${JSON.stringify(interpreter)}, which is not an ` +
        "absolute path, so the script could not start. The skill's owner must write the " +
        'interpreter\'s full path (for example "#!/bin/sh" or "#!/usr/bin/env python3")';
    }
    if (!isInsideLayout(layout, shebang.interpreter)) {
      const folder = shebang.interpreter.slice(0, shebang.interpreter.lastIndexOf("/")) || "/";
      return `The script's #! line names the interpreter ${JSON.stringify(interpreter)}, ` +
        `which is outside its sandbox (${sees}), so the sandbox did not mount it and the ` +
        "script could not start. Either the skill's owner points the #! line at an " +
        'interpreter in a system folder (for example "#!/usr/bin/env python3"), or the ' +
        "server's owner adds the interpreter's folder (and any folder it loads from) to the " +
        `script's MCP_SKILL_RUN row: ${rowWith(folder)}`;
    }
    return `The script's #! line names the interpreter ${JSON.stringify(interpreter)}; the ` +
      "sandbox mounts its folder, but no such program is there (it is missing on this " +
      "machine, or a link to a place the sandbox does not mount), so the script could not " +
      "start. The skill's owner must fix the #! line, or the server's owner install it";
  }
  // Present but not runnable (review n9/h5): the script's own execute bit is checked before the
  // run (prepare_run.ts), so the kernel's refusal names its interpreter.
  if (/^bwrap: execvp .*: Permission denied$/m.test(head) && shebang.interpreter.startsWith("/")) {
    return `The script's #! line names the interpreter ${JSON.stringify(interpreter)}, which ` +
      "is in its sandbox but could not be run (Permission denied: it is not executable, or its " +
      "file system does not allow running programs), so the script could not start. The " +
      "skill's owner must point the #! line at a program that runs (for example " +
      '"#!/usr/bin/env python3"), or the server\'s owner make this one executable ' +
      `(chmod +x ${JSON.stringify(interpreter)})`;
  }
  const name = shebang.argument;
  if (/(^|\/)env$/.test(shebang.interpreter) && name !== null && !/\s/.test(name)) {
    const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const denied = new RegExp(`env: ['‘"]?${quoted}['’"]?: Permission denied`, "m");
    if (denied.test(head)) {
      return `The script's #! line runs ${JSON.stringify(clip(name))} through ` +
        `${JSON.stringify(interpreter)}, and the program of that name on the PATH inside its ` +
        "sandbox could not be run (Permission denied: it is not executable), so the script " +
        "could not start. Either the server's owner makes it executable (chmod +x), or the " +
        "skill's owner names another interpreter";
    }
    const missing = new RegExp(`env: ['‘"]?${quoted}['’"]?: No such file or directory`, "m");
    if (missing.test(head)) {
      return `The script's #! line runs ${JSON.stringify(clip(name))} through ` +
        `${JSON.stringify(interpreter)}, and no such program is on the PATH inside its sandbox ` +
        `(${sees}; a PATH folder elsewhere is not mounted), so the script could not start. ` +
        "Either install it in a system folder, or the server's owner adds the folder on " +
        `skillgate's PATH that holds it to the script's MCP_SKILL_RUN row, for example ${
          rowWith("/path/to/its/bin")
        }`;
    }
  }
  return null;
}
