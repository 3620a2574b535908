/**
 * Overwrites this process's original environment block, so that a script
 * running as the same user cannot read skillgate's secrets from
 * `/proc/<ppid>/environ`. That file shows the bytes `execve` laid out
 * (between `env_start` and `env_end` of `/proc/self/stat`), whatever the
 * process did to its environment later.
 *
 * Two steps, in this order: re-home every variable (set it to its own value,
 * so libc copies it to the heap and nothing reads the original block any
 * more), then zero the block through `/proc/self/mem` and read
 * `/proc/self/environ` back. Values stay readable through `Deno.env`.
 *
 * What it cannot do: the values still live in this process's memory (reading
 * them needs ptrace rights over skillgate), and the environment of the
 * program that started skillgate (an MCP client) is out of its reach.
 *
 * @module
 */

import type { EnvironStatus } from "../scripts/plan.ts";

/** What the scrub reads and writes, injectable for tests. */
export interface ScrubIo {
  readonly os: string;
  /** Text of `/proc/self/stat`. */
  readonly readStat: () => string;
  /** Every variable (re-homed by setting each to itself). */
  readonly entries: () => [string, string][];
  readonly setEnv: (name: string, value: string) => void;
  /** Writes bytes into this process's memory at an address. */
  readonly writeMemory: (address: number, bytes: Uint8Array) => void;
  /** Bytes of `/proc/self/environ`. */
  readonly readEnviron: () => Uint8Array;
}

/**
 * Reads `env_start` and `env_end` (fields 50 and 51) from a `/proc/<pid>/stat` line.
 *
 * @param stat The file's text; fields are counted after the last `)`.
 * @returns The block's address range, or null when the line has none usable.
 */
export function parseEnvRange(stat: string): { start: number; end: number } | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const fields = stat.slice(close + 2).trim().split(" ");
  const start = Number(fields[47]);
  const end = Number(fields[48]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start) {
    return null;
  }
  return { start, end };
}

/**
 * Scrubs the original environment block. Never throws: a failure is a status.
 *
 * @param io The process's `/proc` and environment (default: the real ones).
 * @returns `{scrubbed, method: "proc-self-mem" | "none", note}`.
 *
 * Requires `--allow-all` (Deno demands it for any `/proc` access) and
 * `--allow-env`. Linux only.
 *
 * Source: issue 4, "Secrets"; the security-first anchor's boot-time scrub.
 */
export function scrubEnviron(io: ScrubIo = realIo()): EnvironStatus {
  if (io.os !== "linux") {
    return {
      scrubbed: false,
      method: "none",
      note: `No /proc environment block to scrub on ${io.os}`,
    };
  }
  try {
    const range = parseEnvRange(io.readStat());
    if (range === null) {
      return { scrubbed: false, method: "none", note: "/proc/self/stat has no usable env_start" };
    }
    for (const [name, value] of io.entries()) io.setEnv(name, value);
    io.writeMemory(range.start, new Uint8Array(range.end - range.start));
    if (io.readEnviron().some((byte) => byte !== 0)) {
      return { scrubbed: false, method: "none", note: "/proc/self/environ still reads back" };
    }
    return {
      scrubbed: true,
      method: "proc-self-mem",
      note: `skillgate's original environment block (${range.end - range.start} bytes) was ` +
        "overwritten at start-up; scripts cannot read it from /proc",
    };
  } catch (error) {
    return {
      scrubbed: false,
      method: "none",
      note: `The environment block could not be overwritten (${
        error instanceof Error ? error.name : "Error"
      })`,
    };
  }
}

function realIo(): ScrubIo {
  return {
    os: Deno.build.os,
    readStat: () => Deno.readTextFileSync("/proc/self/stat"),
    entries: () => Object.entries(Deno.env.toObject()),
    setEnv: (name, value) => Deno.env.set(name, value),
    writeMemory: (address, bytes) => {
      using file = Deno.openSync("/proc/self/mem", { read: true, write: true });
      file.seekSync(address, Deno.SeekMode.Start);
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    },
    readEnviron: () => Deno.readFileSync("/proc/self/environ"),
  };
}
