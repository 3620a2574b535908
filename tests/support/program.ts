/**
 * Starts the real program the way a client does: `deno run` with exactly the
 * trusted flags `make run` and `make compile` use, on stdio, connected to the
 * SDK client.
 *
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";
import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";
import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  StdioClientTransport,
} from "./sdk_client.ts";

/** The repository's root folder. */
export const REPO_ROOT = fromFileUrl(new URL("../../", import.meta.url));
/** The argv that starts skillgate with `args`, as `make run` would. */
export function programCommand(args: readonly string[], entry = "main.ts"): string[] {
  return ["run", ...trustedRunFlags(), `${REPO_ROOT}${entry}`, ...args];
}

/**
 * The whole environment a started program gets: PATH and HOME from this
 * process (so `deno` and its cache are found), plus `extra`. Nothing else is
 * inherited, as with a client that starts skillgate with a clean environment.
 * `XDG_CONFIG_HOME` points at a folder that does not exist unless `extra`
 * sets it, so the tester's own `~/.config/skillgate/config.json` never
 * changes what a test sees.
 *
 * @param extra Variables added or overriding PATH and HOME.
 * @returns The environment, for `Deno.Command`'s `env` with `clearEnv: true`.
 */
export function programEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    XDG_CONFIG_HOME: "/nonexistent/skillgate-tests-config",
    ...extra,
  };
}

/** A connected client; dispose it to close the session and end the server. */
export interface Connected extends AsyncDisposable {
  readonly client: Client;
  readonly stderr: () => string;
  /** The started program's process id (null once it ended). */
  readonly pid: () => number | null;
  /** Calls a tool and returns its structured JSON (throws on a protocol error). */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * Starts skillgate over stdio and connects the SDK client to it.
 *
 * @param args Program arguments, e.g. `["serve", root]`.
 * @param options Extra environment variables, the entry module, the client's
 *   capabilities (e.g. `{ elicitation: {} }`) and a hook that runs before
 *   connecting (to set request handlers such as the elicitation handler).
 * @returns The connected client.
 */
export async function connectStdio(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    entry?: string;
    capabilities?: ClientCapabilities;
    beforeConnect?: (client: Client) => void;
  } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: programCommand(args, options.entry),
    env: programEnv(options.env),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client(
    { name: "skillgate-tests", version: "1.0.0" },
    options.capabilities === undefined ? {} : { capabilities: options.capabilities },
  );
  options.beforeConnect?.(client);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    pid: () => transport.pid,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    [Symbol.asyncDispose]: async () => {
      await client.close();
    },
  };
}

/**
 * Runs skillgate to completion with the given args and stdin, capturing output.
 *
 * @param args Program arguments.
 * @param options stdin text and extra environment.
 * @returns Exit code, stdout and stderr as text (also when the program ends
 *   before reading all of stdin).
 */
export async function runProgram(
  args: readonly string[],
  options: { stdin?: string; env?: Record<string, string>; entry?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: programCommand(args, options.entry),
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(options.env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  try {
    if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  } catch (error) {
    // The program may end before reading all of its input (e.g. on an oversized message).
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/**
 * Copies a folder tree into a fresh temporary folder (`cp -R`), made writable.
 *
 * @param source The folder to copy.
 * @returns The temporary parent; the copy is at `<parent>/<basename(source)>`.
 */
export async function copyToTemp(source: string): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-test-" });
  const copy = await new Deno.Command("cp", { args: ["-R", source, dir] }).output();
  if (!copy.success) throw new Error(`cp failed: ${new TextDecoder().decode(copy.stderr)}`);
  await new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).output();
  return {
    dir,
    [Symbol.asyncDispose]: async () => {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
