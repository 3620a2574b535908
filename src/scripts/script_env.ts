/**
 * A script's environment, built from an allowlist only: the fixed host names,
 * `MCP_DATA_DIR` when the host set one, exactly the names granted to this
 * script, and the UTF-8 settings for Python. Nothing is inherited.
 *
 * @module
 */

import type { InterpreterName } from "./declaration.ts";

/** Names every script receives when skillgate has them. */
export const BASE_ENV_NAMES: readonly string[] = Object.freeze([
  "PATH",
  "HOME",
  "LANG",
  "TZ",
  "TMPDIR",
]);

/** Proxy names that, set on a failed run, earn the result a `networkNote`. */
export const PROXY_ENV_NAMES: readonly string[] = Object.freeze([
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
]);

/** A script's environment and its names (names only are ever shown). */
export interface ScriptEnv {
  readonly env: Readonly<Record<string, string>>;
  /** The names in `env`, sorted. */
  readonly names: readonly string[];
}

/**
 * Builds a script's environment.
 *
 * @param values Values captured at start-up (base names and every granted
 *   name); a name without a value is left out.
 * @param options `granted`: names granted to this script; `dataDir`: the
 *   host's data folder or null; `interpreter`: adds `PYTHONUTF8=1` and
 *   `PYTHONIOENCODING=utf-8` for `python3`; `sandboxTmp`: in a sandbox, its
 *   private temporary folder, which becomes `HOME` and `TMPDIR` (the host's
 *   home is not there). @default null
 * @returns The environment and its sorted names.
 *
 * Source: issue 4, "Runner" (environment only from an allowlist).
 */
export function buildScriptEnv(
  values: Readonly<Record<string, string>>,
  options: {
    granted: readonly string[];
    dataDir: string | null;
    interpreter: InterpreterName;
    sandboxTmp?: string | null;
  },
): ScriptEnv {
  const env: Record<string, string> = {};
  for (const name of [...BASE_ENV_NAMES, ...options.granted]) {
    const value = values[name];
    if (value !== undefined && Object.hasOwn(values, name)) env[name] = value;
  }
  if (options.dataDir !== null) env.MCP_DATA_DIR = options.dataDir;
  if (options.sandboxTmp !== undefined && options.sandboxTmp !== null) {
    env.HOME = options.sandboxTmp;
    env.TMPDIR = options.sandboxTmp;
  }
  if (options.interpreter === "python3") {
    env.PYTHONUTF8 = "1";
    env.PYTHONIOENCODING = "utf-8";
  }
  return { env: Object.freeze(env), names: Object.freeze(Object.keys(env).sort()) };
}
