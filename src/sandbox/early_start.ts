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
 * module only installs its message handler). The record holds no secret: a
 * SHA-256 of the command line, working folder and environment (the key, so a
 * start with other inputs creates no worker from it) and the worker's
 * permission option (paths, program paths, variable names). It lives beside
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

/** The record's format; a record of another version is not used. */
export const START_RECORD_VERSION = 1;

/** Largest record read, in bytes. */
export const START_RECORD_MAX_BYTES = 64 * 1024;

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

/** What a record holds: the key and the option (with the cache-home placeholder). */
export interface StartRecord {
  readonly key: string;
  readonly template: string;
}

/** Where this start's record would be written, and its key (set by `startEarlyWorker`). */
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
 * The record's key: SHA-256 of the format, the arguments, the working folder
 * and every environment variable but `XDG_CACHE_HOME` (sorted by name).
 *
 * @param args The command line's arguments.
 * @param cwd The working folder.
 * @param env The environment.
 * @returns 64 lowercase hexadecimal characters.
 */
export async function startRecordKey(
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
): Promise<string> {
  const entries = Object.entries(env).filter(([name]) => name !== "XDG_CACHE_HOME")
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  const text = JSON.stringify([START_RECORD_VERSION, args, cwd, entries]);
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
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
 * {@linkcode START_RECORD_MAX_BYTES}, of this format.
 *
 * @param path The record's path.
 * @returns The record, or null (missing, refused or unreadable: nothing is said).
 *
 * Requires `--allow-read` on the path (the trusted part).
 */
export function readStartRecord(path: string): StartRecord | null {
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
    const { version, key, option } = record as Record<string, unknown>;
    if (version !== START_RECORD_VERSION || typeof key !== "string") return null;
    return typeof option === "string" ? { key, template: option } : null;
  } catch {
    return null;
  }
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
export async function startEarlyWorker(
  mainModule: string = Deno.mainModule,
): Promise<EarlyStart | null> {
  const path = startRecordPath(mainModule);
  if (path === null) return null;
  const env = Deno.env.toObject();
  const key = await startRecordKey(Deno.args, Deno.cwd(), env);
  const record = readStartRecord(path);
  thisStart = { path, key, read: record?.key === key ? record.template : null };
  if (record === null || record.key !== key) return null;
  const optionJson = fromTemplate(record.template, env["XDG_CACHE_HOME"]);
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
 * of the same command (nothing when it is already recorded, or when this
 * start has no record path). Written atomically (a private temporary file,
 * mode 0600, renamed over the record); a failure is ignored.
 *
 * @param heldOption `JSON.stringify` of the adopted worker's option.
 *
 * Requires `--allow-read` and `--allow-write` on the bundle folder (the trusted part).
 */
export function rememberStart(heldOption: string): void {
  if (thisStart === null) return;
  const template = toTemplate(heldOption, Deno.env.get("XDG_CACHE_HOME"));
  if (thisStart.read === template) return;
  const temporary = `${thisStart.path}.${Deno.pid}.tmp`;
  const text = JSON.stringify({
    version: START_RECORD_VERSION,
    key: thisStart.key,
    option: template,
  });
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
