/**
 * How a client starts this same program: the words the banner and `--help`
 * put after `claude mcp add skills --`.
 *
 * @module
 */

/**
 * The command that starts skillgate, without roots.
 *
 * @param where `execPath`: the running executable (`Deno.execPath()`);
 *   `checkout`: the folder holding `main.ts` (and the `skillgate` launcher),
 *   absolute, without a trailing slash.
 * @returns `[<compiled binary>, "serve"]` when skillgate runs as a compiled
 *   binary (the executable is not named `deno`), else
 *   `[<checkout>/skillgate, "serve"]`: the launcher, which installs Deno when
 *   needed and keeps the caller's working directory.
 */
export function launchWords(where: { execPath: string; checkout: string }): string[] {
  const isCompiled = !/(^|\/)deno$/.test(where.execPath);
  if (isCompiled) return [where.execPath, "serve"];
  return [`${where.checkout}/skillgate`, "serve"];
}
