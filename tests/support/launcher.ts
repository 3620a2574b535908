/**
 * Starting skillgate the way a person or a client does: through the
 * `./skillgate` launcher, from any folder, with a small environment.
 *
 * @module
 */

import { REPO_ROOT } from "./program.ts";

/** The launcher at the root of this checkout. */
export const LAUNCHER = `${REPO_ROOT}skillgate`;

/** What one launcher run gave back. */
export interface LauncherRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * PATH without any folder that holds a `deno`, so the launcher must use (or
 * install) the pinned Deno in `.tools/` as on a machine without Deno.
 *
 * @returns A `:`-separated PATH that still finds sh, npm and node.
 */
export function pathWithoutDeno(): string {
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  return path.split(":").filter((dir) => {
    try {
      Deno.statSync(`${dir}/deno`);
      return false;
    } catch {
      return true;
    }
  }).join(":");
}

/**
 * Runs a launcher to completion with a clean environment (PATH without deno,
 * HOME, plus `env`), stdin closed at once unless text is given.
 *
 * @param launcher The path to run (the launcher, or a symlink to it).
 * @param args Arguments passed through, e.g. `["validate", "./broken-skill"]`.
 * @param options `cwd` (required: the caller's folder), `env` additions,
 *   `stdin` text, `umask` (octal text, e.g. "002"; default: this process's).
 * @returns Exit code, stdout and stderr as text.
 */
export async function runLauncher(
  launcher: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; stdin?: string; umask?: string },
): Promise<LauncherRun> {
  // With a umask: through sh, which sets it and then becomes the launcher.
  const [command, commandArgs] = options.umask === undefined
    ? [launcher, [...args]]
    : ["sh", ["-c", 'umask "$0" && exec "$@"', options.umask, launcher, ...args]];
  const child = new Deno.Command(command, {
    args: commandArgs,
    cwd: options.cwd,
    clearEnv: true,
    env: launcherEnv(options.env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/**
 * This machine's network and cache settings, which npm and Deno need to reach
 * the registry as this process does (a CI machine's proxy or extra CA; without
 * its CA, npm retries TLS for minutes before giving up).
 */
const PASSED_THROUGH =
  /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|DENO_CERT|DENO_DIR|XDG_CACHE_HOME|TMPDIR|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy|npm_config_\w+|NPM_CONFIG_\w+)$/;

/**
 * The environment a launcher run gets: PATH without deno, HOME (npm's and
 * Deno's caches), this machine's network settings (proxy, CA, caches), and
 * `extra`. Nothing else is inherited, as with a client that starts skillgate
 * with a small environment.
 *
 * @param extra Variables added or overriding.
 * @returns The whole environment, for `clearEnv: true`.
 */
export function launcherEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    ...networkEnv(),
    PATH: pathWithoutDeno(),
    HOME: Deno.env.get("HOME") ?? "/tmp",
    ...extra,
  };
}

/**
 * This machine's network and cache settings alone (proxy, extra CA, caches):
 * what a test that installs from the registry passes through its cleared
 * environment, so a machine whose registry traffic goes through a proxy
 * with its own CA works as it does for the user.
 *
 * @returns The variables of {@linkcode PASSED_THROUGH} that are set.
 */
export function networkEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => PASSED_THROUGH.test(name)),
  );
}
