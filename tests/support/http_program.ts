/**
 * Starts the real program over Streamable HTTP on a free loopback port, the
 * way an owner does (`deno run` with the trusted flags, `--http=PORT`), and
 * stops it with SIGTERM when disposed. Used by the HTTP end-to-end tests and
 * by the benchmark's HTTP section.
 *
 * @module
 */

import { programCommand, programEnv, REPO_ROOT } from "./program.ts";

/** A running HTTP server process. */
export interface HttpProgram extends AsyncDisposable {
  /** The program's process id (e.g. for reading its memory from `/proc`). */
  readonly pid: number;
  readonly port: number;
  /** `http://127.0.0.1:PORT`. */
  readonly base: string;
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** What the program wrote to stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and waits for the exit; returns the exit code. */
  stop(): Promise<number>;
}

/**
 * A port that was free a moment ago (bound on 127.0.0.1:0, then released).
 *
 * @returns The port number.
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts `skillgate ARGS --http=PORT` and waits (ceiling 60 s) until it
 * prints its ready line.
 *
 * @param args Program arguments, e.g. `["serve", root, "--stateless"]`.
 * @param options `env`: extra environment variables; `fileLimit`: start it
 *   under `ulimit -n N` (soft and hard limit of open descriptors, set by `sh`
 *   before it execs Deno, which cannot raise it again); `port`: the port to
 *   listen on (a caller that talks to it before the ready line, e.g. polls
 *   `/readyz`, picks it with {@linkcode freePort}). @default a free port
 * @returns The running program.
 * @throws {Error} When the program exits or stays silent before it is ready.
 */
export async function startHttpProgram(
  args: readonly string[],
  options: { env?: Record<string, string>; fileLimit?: number; port?: number } = {},
): Promise<HttpProgram> {
  const port = options.port ?? freePort();
  const argv = [Deno.execPath(), ...programCommand([...args, `--http=${port}`])];
  const limited = options.fileLimit === undefined
    ? argv
    : ["/bin/sh", "-c", `ulimit -n ${options.fileLimit} && exec "$@"`, "sh", ...argv];
  const child = new Deno.Command(limited[0] as string, {
    args: limited.slice(1),
    cwd: REPO_ROOT,
    clearEnv: true,
    env: programEnv(options.env),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const ready = Promise.withResolvers<void>();
  const drained = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      if (stderr.includes("over Streamable HTTP at")) ready.resolve();
    }
    ready.reject(new Error(`skillgate exited before it was ready:\n${stderr}`));
  })();
  const ceiling = setTimeout(
    () => ready.reject(new Error("skillgate was not ready in 60 s")),
    60_000,
  );
  let status: Deno.CommandStatus | null = null;
  const stop = async () => {
    if (status === null) {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      status = await child.status;
      await drained;
    }
    return status.code;
  };
  try {
    await ready.promise;
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(ceiling);
  }
  const base = `http://127.0.0.1:${port}`;
  return {
    pid: child.pid,
    port,
    base,
    url: `${base}/mcp`,
    stderr: () => stderr,
    stop,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}

/**
 * Sends one raw HTTP/1.1 request over TCP, so headers a `fetch` would not let
 * us forge (`Host`) reach the server as written.
 *
 * @param port The server's port on 127.0.0.1.
 * @param head The request line and headers, without the final blank line.
 * @param body The body, if any (Content-Length is added).
 * @returns The status code and the whole response text.
 */
export async function rawRequest(
  port: number,
  head: string,
  body = "",
): Promise<{ status: number; text: string }> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const bytes = new TextEncoder().encode(body);
    const request = `${head}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
    await connection.write(new TextEncoder().encode(request));
    if (bytes.length > 0) await connection.write(bytes);
    let text = "";
    const buffer = new Uint8Array(16 * 1024);
    const decoder = new TextDecoder();
    while (true) {
      const read = await connection.read(buffer);
      if (read === null) break;
      text += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? "0");
    return { status, text };
  } finally {
    connection.close();
  }
}

/**
 * Polls `http://127.0.0.1:PORT/PATH` every 5 ms until it answers 200 (a
 * server still starting answers 503, or does not listen yet).
 *
 * @param port The server's port.
 * @param path The path to poll (`/readyz`: the catalog complete).
 * @param deadline When to give up, in ms since the epoch.
 * @throws {Error} When `deadline` passes first.
 *
 * Requires `--allow-net` to 127.0.0.1.
 */
export async function until200(port: number, path: string, deadline: number): Promise<void> {
  for (;;) {
    if (Date.now() > deadline) throw new Error(`${path} did not turn 200`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
