/**
 * The start record (issue 13): `serve` creates the worker before the rest of
 * the trusted part has even loaded, with the permission set the last start
 * of the same command computed. The trusted part's modules, the
 * configuration and the roots take ~20-30 ms after Deno starts; the worker's
 * own modules take ~100 ms; so the earlier it is created, the earlier it
 * answers.
 *
 * Why it is safe: the record only decides how early a worker is created,
 * never what it may do once serving. The worker receives nothing until the
 * trusted part computed its set as always: it is kept only when the set it
 * was created with is exactly the computed one (`adoptEarlyWorker`, the rule
 * of the predicted worker), else ended before it received anything, and a
 * worker that received nothing reads, writes and runs nothing (its entry
 * module only installs its message handler). The record (mode 0600, readable
 * only by its owner) holds an unsalted SHA-256 of the command line, working
 * folder and whole environment (the key, so a start with other inputs creates
 * no worker from it; values are hashed in, never written) and the worker's
 * permission option (paths, program paths, variable names), for each of the
 * last {@linkcode START_RECORD_MAX_ENTRIES} command lines (two clients that
 * start skillgate with different command lines, in turn, each find their
 * own). It lives beside
 * the bundle's `main.js` (`.bundle/<hash>/start-record.json`), which the
 * launcher lets run only while the folder and all it holds are this user's
 * alone; the record itself is used only when it is a regular file of this
 * user that no one else may write, at most 64 KiB. Sources runs (no bundle)
 * have no record.
 *
 * `$XDG_CACHE_HOME` is left out of the key and written into the record as a
 * placeholder (the index cache folder lies under it by default), so a start
 * with another cache folder (a fresh one: an empty index cache) still
 * creates its worker early; with the current value put back, the option
 * must still equal the computed set exactly, or the worker is ended unused.
 *
 * The process is prepared (environment scrub, non-dumpable, inherited
 * descriptors) before that worker exists: the scrub must not race a second
 * thread.
 *
 * @module
 */

import { type PreparedProcess, prepareScriptProcess } from "./process_prep.ts";
import { createWorkerFromOption, heldWorkerOption } from "./worker_isolate.ts";
import { toWorkerOption, type WorkerPermissions } from "./worker_permissions.ts";
import { isolateEntryUrl } from "../entry_points.ts";

/** The record's format; a record of another version is not used (2: several command lines). */
export const START_RECORD_VERSION = 2;

/** Largest record read or written, in bytes. */
export const START_RECORD_MAX_BYTES = 64 * 1024;

/**
 * Most command lines a record holds: the most recently recorded first; a
 * new one drops the oldest (a record with more is not used).
 */
export const START_RECORD_MAX_ENTRIES = 8;

/** The record's file name, beside the bundle's `main.js`. */
export const START_RECORD_FILE = "start-record.json";

/** Stands for `$XDG_CACHE_HOME` in a recorded option (no path holds a NUL). */
const CACHE_HOME_MARK = "\\u0000XDG_CACHE_HOME\\u0000";

/** The worker option's keys, in `toWorkerOption`'s order. */
const OPTION_KEYS = ["read", "run", "env", "net", "write", "sys", "ffi", "import"] as const;

/** A worker created from the start record, and the process preparation done before it. */
export interface EarlyStart {
  readonly worker: Worker;
  readonly prepared: PreparedProcess;
}

/** One command line's entry: the key and the option (with the cache-home placeholder). */
export interface StartRecord {
  readonly key: string;
  readonly template: string;
}

/**
 * Where this start's record would be written, its key, the template the
 * record held for it (null: none) (set by `startEarlyWorker`).
 */
let thisStart:
  | { readonly path: string; readonly key: string; readonly read: string | null }
  | null = null;

/**
 * The record's path for a main module: beside a bundle's `main.js`; null
 * for any other main module (sources, a compiled binary).
 *
 * @param mainModule @default `Deno.mainModule`.
 * @returns An absolute path, or null.
 */
export function startRecordPath(mainModule: string = Deno.mainModule): string | null {
  if (!mainModule.startsWith("file:///") || !mainModule.endsWith("/main.js")) return null;
  return decodeURIComponent(new URL(START_RECORD_FILE, mainModule).pathname);
}

/**
 * The text the record's key hashes: the format, the arguments, the working
 * folder and every environment variable but `XDG_CACHE_HOME` (sorted by name).
 *
 * @param args The command line's arguments.
 * @param cwd The working folder.
 * @param env The environment.
 * @returns JSON text.
 */
export function startRecordKeyText(
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
): string {
  const entries = Object.entries(env).filter(([name]) => name !== "XDG_CACHE_HOME")
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return JSON.stringify([START_RECORD_VERSION, args, cwd, entries]);
}

/**
 * The record's key: the SHA-256 of {@linkcode startRecordKeyText}, computed
 * synchronously (`crypto.subtle` is asynchronous, and an await before the
 * worker's creation cost 6-90 ms on a loaded machine: the main thread parks
 * and waits to be scheduled again; a few KiB hash here in well under 1 ms).
 *
 * @param args The command line's arguments.
 * @param cwd The working folder.
 * @param env The environment.
 * @returns 64 lowercase hexadecimal characters.
 */
export function startRecordKey(
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
): string {
  return sha256HexSync(new TextEncoder().encode(startRecordKeyText(args, cwd, env)));
}

/**
 * SHA-256's round constants (FIPS 180-4, 4.2.2), as signed 32-bit words: the
 * hash below keeps every word in int32 arithmetic (`| 0`), which V8's
 * interpreter runs without boxing to heap numbers.
 */
const SHA256_K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);

/**
 * SHA-256 (FIPS 180-4) of bytes, synchronously, in plain JavaScript: for
 * the start record's key only (a few KiB once per start, on the main thread
 * before the worker is created, so its time is on every start's path).
 *
 * It runs once per process, in V8's interpreter (never long enough to be
 * optimised), so it is written for that: the eight working variables are
 * locals in int32 arithmetic, rotations are inline expressions, big-endian
 * words are assembled from bytes by hand; no closure call, array
 * destructuring or DataView access per round (issue 13: the earlier form took
 * ~1.9 ms for a 0.5 KiB key and ~3 ms for 8 KiB on this machine at load 11,
 * this one ~0.6 and ~1.8; bench/results/issue13.md, section s9-h3).
 *
 * @param bytes The message.
 * @returns 64 lowercase hexadecimal characters.
 *
 * Source: FIPS 180-4, section 6.2.
 */
export function sha256HexSync(bytes: Uint8Array): string {
  const total = Math.ceil((bytes.length + 9) / 64) * 64;
  const padded = new Uint8Array(total);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  // The message length in bits, big-endian in the last 8 bytes (2^53 bits at most here).
  const bits = bytes.length * 8;
  const high = Math.floor(bits / 0x1_0000_0000);
  for (let i = 0; i < 4; i++) {
    padded[total - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    padded[total - 4 + i] = (bits >>> (24 - 8 * i)) & 0xff;
  }
  const w = new Int32Array(64);
  let h0 = 0x6a09e667 | 0;
  let h1 = 0xbb67ae85 | 0;
  let h2 = 0x3c6ef372 | 0;
  let h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0;
  let h5 = 0x9b05688c | 0;
  let h6 = 0x1f83d9ab | 0;
  let h7 = 0x5be0cd19 | 0;
  for (let offset = 0; offset < total; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const at = offset + i * 4;
      w[i] = (padded[at]! << 24) | (padded[at + 1]! << 16) | (padded[at + 2]! << 8) |
        padded[at + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + s1 + ((e & f) ^ (~e & g)) + SHA256_K[i]! + w[i]!) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  let hex = "";
  for (const word of [h0, h1, h2, h3, h4, h5, h6, h7]) {
    hex += (word >>> 0).toString(16).padStart(8, "0");
  }
  return hex;
}

/** `XDG_CACHE_HOME` as JSON string text, when it is an absolute path other than `/`. */
function cacheHomeText(cacheHome: string | undefined): string | null {
  if (cacheHome === undefined || !cacheHome.startsWith("/") || cacheHome === "/") return null;
  return JSON.stringify(cacheHome.replace(/\/+$/, "")).slice(1, -1);
}

/**
 * A worker option's JSON with every path that is `$XDG_CACHE_HOME` or lies
 * under it written with the placeholder.
 *
 * @param optionJson `JSON.stringify` of the option.
 * @param cacheHome `XDG_CACHE_HOME`, if set.
 * @returns The template (the JSON itself when the variable is unset or not absolute).
 */
export function toTemplate(optionJson: string, cacheHome: string | undefined): string {
  const home = cacheHomeText(cacheHome);
  if (home === null) return optionJson;
  return optionJson.split(`"${home}/`).join(`"${CACHE_HOME_MARK}/`)
    .split(`"${home}"`).join(`"${CACHE_HOME_MARK}"`);
}

/**
 * A template with the current `$XDG_CACHE_HOME` put back.
 *
 * @param template From {@linkcode toTemplate}.
 * @param cacheHome `XDG_CACHE_HOME`, if set.
 * @returns The option's JSON; null when it needs the variable and it is unset or not absolute.
 */
export function fromTemplate(template: string, cacheHome: string | undefined): string | null {
  if (!template.includes(CACHE_HOME_MARK)) return template;
  const home = cacheHomeText(cacheHome);
  return home === null ? null : template.split(CACHE_HOME_MARK).join(home);
}

/**
 * Reads a start record: used only when it is a regular file (not a link),
 * of this user, that neither its group nor others may write, of at most
 * {@linkcode START_RECORD_MAX_BYTES}, of this format, holding 1 to
 * {@linkcode START_RECORD_MAX_ENTRIES} entries with distinct string keys and
 * string options (one malformed entry refuses the whole record).
 *
 * @param path The record's path.
 * @returns The entries, most recently recorded first, or null (missing,
 *   refused or unreadable: nothing is said).
 *
 * Requires `--allow-read` on the path (the trusted part).
 */
export function readStartRecord(path: string): readonly StartRecord[] | null {
  try {
    const seen = Deno.lstatSync(path);
    if (!seen.isFile || seen.size > START_RECORD_MAX_BYTES) return null;
    using file = Deno.openSync(path, { read: true });
    const info = file.statSync();
    const uid = Deno.uid();
    if (
      !info.isFile || uid === null || info.uid !== uid || info.mode === null ||
      (info.mode & 0o022) !== 0 || info.size > START_RECORD_MAX_BYTES ||
      info.ino !== seen.ino || info.dev !== seen.dev
    ) return null;
    const bytes = new Uint8Array(info.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = file.readSync(bytes.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    const record = JSON.parse(new TextDecoder().decode(bytes.subarray(0, filled))) as unknown;
    if (typeof record !== "object" || record === null) return null;
    const { version, entries } = record as Record<string, unknown>;
    if (
      version !== START_RECORD_VERSION || !Array.isArray(entries) || entries.length === 0 ||
      entries.length > START_RECORD_MAX_ENTRIES
    ) return null;
    const read: StartRecord[] = [];
    for (const entry of entries as unknown[]) {
      if (typeof entry !== "object" || entry === null) return null;
      const { key, option } = entry as Record<string, unknown>;
      if (typeof key !== "string" || typeof option !== "string") return null;
      if (read.some((earlier) => earlier.key === key)) return null;
      read.push({ key, template: option });
    }
    return read;
  } catch {
    return null;
  }
}

/**
 * The record's text with this command line's entry first, then the other
 * entries in their order, at most {@linkcode START_RECORD_MAX_ENTRIES} and
 * {@linkcode START_RECORD_MAX_BYTES} (the oldest dropped until it fits).
 *
 * @param entry This command line's key and template.
 * @param others The record's entries as read (any entry with the same key is replaced).
 * @returns JSON text, or null when the entry alone is over the size cap.
 */
export function startRecordText(
  entry: StartRecord,
  others: readonly StartRecord[],
): string | null {
  const kept = [entry, ...others.filter((other) => other.key !== entry.key)]
    .slice(0, START_RECORD_MAX_ENTRIES);
  const encoder = new TextEncoder();
  while (kept.length > 0) {
    const text = JSON.stringify({
      version: START_RECORD_VERSION,
      entries: kept.map(({ key, template }) => ({ key, option: template })),
    });
    if (encoder.encode(text).length <= START_RECORD_MAX_BYTES) return text;
    if (kept.length === 1) return null;
    kept.pop();
  }
  return null;
}

/**
 * A worker permission option as `toWorkerOption` writes it: each key `false`
 * or a list of strings, `import` false, nothing else.
 *
 * @param value Parsed JSON.
 * @returns Whether it is one.
 */
export function isWorkerOption(value: unknown): value is Deno.PermissionOptionsObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  if (entries.length !== OPTION_KEYS.length) return false;
  return entries.every(([name, granted], index) =>
    name === OPTION_KEYS[index] && (granted === false || (name !== "import" &&
      Array.isArray(granted) && granted.length > 0 &&
      granted.every((item) => typeof item === "string")))
  );
}

/**
 * Creates the serving worker from this command's start record, when there is
 * one for exactly these arguments, working folder and environment (but
 * `XDG_CACHE_HOME`), after preparing the process. Call it first thing in
 * `main.ts`, before the rest of the trusted part loads.
 *
 * @param mainModule @default `Deno.mainModule` (no record unless bundled).
 * @returns The worker and the preparation, or null (no usable record).
 *
 * Requires the trusted part's permissions (`--allow-all`) and `--unstable-worker-options`.
 */
export function startEarlyWorker(mainModule: string = Deno.mainModule): EarlyStart | null {
  const path = startRecordPath(mainModule);
  if (path === null) return null;
  const env = Deno.env.toObject();
  const key = startRecordKey(Deno.args, Deno.cwd(), env);
  const template = readStartRecord(path)?.find((entry) => entry.key === key)?.template ?? null;
  thisStart = { path, key, read: template };
  if (template === null) return null;
  const optionJson = fromTemplate(template, env["XDG_CACHE_HOME"]);
  if (optionJson === null) return null;
  let option: unknown;
  try {
    option = JSON.parse(optionJson);
  } catch {
    return null;
  }
  if (!isWorkerOption(option)) return null;
  // Before the first second thread: the scrub writes this process's memory.
  const prepared = prepareScriptProcess();
  try {
    return { worker: createWorkerFromOption(isolateEntryUrl("worker"), option), prepared };
  } catch {
    return null;
  }
}

/**
 * Decides `serve`'s early worker once the set is predicted: the start
 * record's worker when it holds exactly the predicted rights (it then serves
 * only if they are the computed ones, `adoptEarlyWorker`); otherwise that
 * worker is ended (it received nothing) and, when there is a prediction, one
 * is created with it. The process is prepared once, before the first worker:
 * when the record's worker exists it already was.
 *
 * @param recorded From {@linkcode startEarlyWorker}.
 * @param predicted The predicted set, or null (no early worker).
 * @param make `create`: a worker with a set (`createWorkerIsolate`);
 *   `prepare`: the process preparation (`prepareScriptProcess`).
 * @returns The early worker (or null) and the preparation, if done.
 */
export function chooseEarlyWorker(
  recorded: EarlyStart | null,
  predicted: WorkerPermissions | null,
  make: {
    readonly create: (permissions: WorkerPermissions) => Worker;
    readonly prepare: () => PreparedProcess;
  },
): { readonly early: Worker | null; readonly prepared: PreparedProcess | undefined } {
  if (
    recorded !== null && predicted !== null &&
    heldWorkerOption(recorded.worker) === JSON.stringify(toWorkerOption(predicted))
  ) return { early: recorded.worker, prepared: recorded.prepared };
  recorded?.worker.terminate();
  if (predicted === null) return { early: null, prepared: recorded?.prepared };
  const prepared = recorded?.prepared ?? make.prepare();
  return { early: make.create(predicted), prepared };
}

/**
 * Records the option the serving worker was adopted with, for the next start
 * of the same command: this command line's entry becomes the record's first,
 * the others are kept (read again now, so a start of another command line
 * meanwhile is kept too), the oldest dropped past
 * {@linkcode START_RECORD_MAX_ENTRIES}. Nothing is written when the entry is
 * already recorded, or when this start has no record path. Written
 * atomically (a private temporary file, mode 0600, renamed over the record);
 * a failure is ignored. (Two starts that write at the same moment may drop
 * each other's new entry: the next start of that command line then creates
 * its worker after the configuration, as without a record, and writes it.)
 *
 * @param heldOption `JSON.stringify` of the adopted worker's option.
 *
 * Requires `--allow-read` and `--allow-write` on the bundle folder (the trusted part).
 */
export function rememberStart(heldOption: string): void {
  if (thisStart === null) return;
  const template = toTemplate(heldOption, Deno.env.get("XDG_CACHE_HOME"));
  if (thisStart.read === template) return;
  const text = startRecordText(
    { key: thisStart.key, template },
    readStartRecord(thisStart.path) ?? [],
  );
  if (text === null) return;
  const temporary = `${thisStart.path}.${Deno.pid}.tmp`;
  try {
    Deno.writeTextFileSync(temporary, text, { mode: 0o600, createNew: true });
    Deno.renameSync(temporary, thisStart.path);
    thisStart = { ...thisStart, read: template };
  } catch {
    try {
      Deno.removeSync(temporary);
    } catch {
      // Nothing was written.
    }
  }
}
