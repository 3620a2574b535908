/**
 * A minimal line-delimited JSON-RPC 2.0 client over a child process's
 * stdin/stdout, the framing of MCP's stdio transport. The benchmark uses it
 * instead of the SDK client so that client-side overhead (schema validation,
 * capability bookkeeping) stays out of the figures: a request's time runs from
 * just before its line is written to the moment the answer's last byte has
 * arrived, before the answer is parsed.
 *
 * @module
 */

/** How to start the child. */
export interface ChildCommand {
  /** Absolute path of the executable, e.g. `Deno.execPath()`. */
  readonly executable: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The child's whole environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string>>;
}

/** One answered request. */
export interface Answer {
  /** The JSON-RPC `result`. */
  readonly result: unknown;
  /** From just before the request was written to the answer's last byte, in ms. */
  readonly elapsedMs: number;
  /** Bytes of the answer line. */
  readonly bytes: number;
}

/** A JSON-RPC error answer. */
export class RpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /**
   * @param code The JSON-RPC error code.
   * @param message The server's message.
   */
  constructor(code: number, message: string) {
    super(message);
    this.name = "RpcError";
    this.code = code;
  }
}

/** A running child that speaks JSON-RPC on stdio; dispose it to end it. */
export interface RpcChild extends AsyncDisposable {
  /** The child's process id. */
  readonly pid: number;
  /** Sends a request and resolves with its answer; rejects with {@linkcode RpcError}. */
  request(method: string, params?: unknown): Promise<Answer>;
  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void>;
  /**
   * Calls `listener` for every notification the server sends from now on,
   * with the time its line arrived (`performance.now()`).
   *
   * @returns A function that removes the listener.
   */
  onNotification(listener: NotificationListener): () => void;
  /** The last few KiB the child wrote to stderr. */
  stderrTail(): string;
  /** Closes stdin, waits up to `graceMs` for the child to exit, then kills it. */
  close(graceMs?: number): Promise<Deno.CommandStatus>;
}

/** A server notification: its method and params. */
export interface Notification {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** Receives a notification and its arrival time in `performance.now()` ms. */
export type NotificationListener = (notification: Notification, arrivedAt: number) => void;

/** Bytes of stderr kept for error messages. */
const STDERR_TAIL_BYTES = 4096;

/**
 * Spawns `command` with piped stdio and returns a client bound to it. The
 * child is spawned synchronously, so a caller that reads the clock just
 * before this call measures from the spawn.
 *
 * @param command Executable, arguments, working folder and environment.
 * @returns The client; every request it sends gets a fresh numeric id.
 *
 * Requires `--allow-run` for the executable.
 */
export function spawnRpcChild(command: ChildCommand): RpcChild {
  const child = new Deno.Command(command.executable, {
    args: [...command.args],
    cwd: command.cwd,
    clearEnv: true,
    env: { ...command.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const pending = new Map<number, {
    startedAt: number;
    resolve: (answer: Answer) => void;
    reject: (error: Error) => void;
  }>();
  let nextId = 1;
  let stderr = "";
  let ended: Error | null = null;
  let stdinClosed = false;
  const listeners = new Set<NotificationListener>();

  const failAll = (error: Error) => {
    ended = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  const onLine = (line: string, arrivedAt: number) => {
    if (line.trim() === "") return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      failAll(new Error(`The child wrote a line that is not JSON: "${line.slice(0, 200)}"`));
      return;
    }
    const id = message["id"];
    if (typeof message["method"] === "string") {
      // A request from the server: refuse it; a notification: hand it to the listeners.
      if (id !== undefined) {
        void send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Not supported" } })
          .catch(() => {});
        return;
      }
      const notification: Notification = {
        method: message["method"] as string,
        params: (message["params"] ?? {}) as Record<string, unknown>,
      };
      for (const listener of listeners) listener(notification, arrivedAt);
      return;
    }
    if (typeof id !== "number") return;
    const waiter = pending.get(id);
    if (waiter === undefined) return;
    pending.delete(id);
    const error = message["error"] as { code?: number; message?: string } | undefined;
    if (error !== undefined) {
      waiter.reject(new RpcError(error.code ?? 0, error.message ?? "Unknown error"));
    } else {
      waiter.resolve({
        result: message["result"],
        elapsedMs: arrivedAt - waiter.startedAt,
        bytes: line.length,
      });
    }
  };

  const reading = (async () => {
    const decoder = new TextDecoder();
    let parts: string[] = [];
    for await (const chunk of child.stdout) {
      const arrivedAt = performance.now();
      let text = decoder.decode(chunk, { stream: true });
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n")) {
        parts.push(text.slice(0, at));
        const line = parts.join("");
        parts = [];
        text = text.slice(at + 1);
        onLine(line, arrivedAt);
      }
      if (text !== "") parts.push(text);
    }
    failAll(new Error(`The child closed its stdout. Its stderr ends with: ${stderr.trim()}`));
  })();
  const readingErrors = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr = (stderr + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
    }
  })();

  async function send(message: unknown): Promise<void> {
    if (stdinClosed) throw new Error("The child's stdin is closed");
    await writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  }

  function request(method: string, params?: unknown): Promise<Answer> {
    if (ended !== null) return Promise.reject(ended);
    const id = nextId++;
    return new Promise<Answer>((resolve, reject) => {
      const startedAt = performance.now();
      pending.set(id, { startedAt, resolve, reject });
      send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })
        .catch((error: unknown) => {
          pending.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }

  async function close(graceMs = 5_000): Promise<Deno.CommandStatus> {
    if (!stdinClosed) {
      stdinClosed = true;
      await writer.close().catch(() => {});
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), graceMs);
    });
    const first = await Promise.race([child.status, timedOut]);
    clearTimeout(timer);
    if (first === "timeout") {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }
    const status = await child.status;
    await Promise.all([reading, readingErrors]);
    return status;
  }

  return {
    pid: child.pid,
    request,
    notify: (method, params) =>
      send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }),
    onNotification: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stderrTail: () => stderr,
    close,
    [Symbol.asyncDispose]: async () => {
      await close();
    },
  };
}
