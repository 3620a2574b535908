/**
 * Computes the worker's Deno permission set from the configuration: the
 * second wall around our own checks. The worker handles all client input, so
 * it gets only what the configuration needs.
 *
 * @module
 */

/** The permission set handed to `new Worker(..., { deno: { permissions } })`. */
export interface WorkerPermissions {
  /** Absolute paths the worker may read: the roots, lexical and real. */
  readonly read: readonly string[];
  /** Absolute executable paths the worker may spawn (none until scripts are granted). */
  readonly run: readonly string[];
  /** Environment variable names the worker may read. */
  readonly env: readonly string[];
  /** Addresses the worker may listen on or connect to (none on stdio). */
  readonly net: readonly string[];
  readonly write: readonly string[];
  readonly sys: readonly string[];
  readonly ffi: readonly string[];
}

/** A permission set plus why each entry is there, keyed by `kind:value`. */
export interface ExplainedPermissions {
  readonly permissions: WorkerPermissions;
  readonly reasons: Readonly<Record<string, string>>;
}

/**
 * Environment names the worker reads. `npm:yaml` reads `LOG_TOKENS` and
 * `LOG_STREAM` on every parse; without them every parse fails with NotCapable.
 */
export const WORKER_ENV_NAMES: readonly string[] = Object.freeze(["LOG_TOKENS", "LOG_STREAM"]);

/** One configured root: its path as configured and its real path when known. */
export interface RootPaths {
  readonly path: string;
  readonly realPath: string | null;
}

/** A program the worker may spawn, and why (see `src/scripts/plan.ts`). */
export interface PermittedProgram {
  /** Absolute literal path, exactly as the runner spawns it. */
  readonly path: string;
  readonly reason: string;
}

/**
 * Builds the worker's permission set. Read covers each root as configured and
 * its real path (a root that is a symlink is read through its real path);
 * run lists exactly `options.run` (the interpreters and directly executed
 * scripts of the scripts granted at start-up, and the namespace wrapper; none
 * when nothing is granted); net is exactly `options.listen` as `host:port`
 * (IPv6 literals bracketed) over HTTP, and empty on stdio; write, sys and ffi
 * are empty.
 *
 * @param roots The roots with their real paths (null when a root cannot be
 *   resolved; it still goes on the list so the worker can report it).
 * @param options `run`: absolute program paths with a reason each. @default none
 *   `listen`: the HTTP listen address (`--host`, `--http`). @default none (stdio)
 *   `indexCache`: the index cache folder, read and written by the worker
 *   alone (exactly that folder; other caches live beside it). @default none
 *   `sourceFolders`: the sources cache's `<key>` folders of this
 *   configuration's remote sources (`sourceKey`), read only: exactly those,
 *   never the whole sources cache, which other configurations' sources share
 *   (review r16, A5). @default none
 * @returns The permissions, frozen, and a reason per entry.
 */
export function computeWorkerPermissions(
  roots: readonly RootPaths[],
  options: {
    readonly run?: readonly PermittedProgram[];
    readonly listen?: { readonly host: string; readonly port: number };
    readonly indexCache?: string | null;
    readonly sourceFolders?: readonly string[];
  } = {},
): ExplainedPermissions {
  const read: string[] = [];
  const write: string[] = [];
  const run: string[] = [];
  const net: string[] = [];
  const reasons: Record<string, string> = {};
  if (options.listen !== undefined) {
    const host = options.listen.host.trim().toLowerCase();
    const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    const address = `${bracketed}:${options.listen.port}`;
    net.push(address);
    reasons[`net:${address}`] = "the HTTP listen address (--host, --http); nothing else";
  }
  for (const program of options.run ?? []) {
    if (run.includes(program.path)) continue;
    run.push(program.path);
    reasons[`run:${program.path}`] = program.reason;
  }
  for (const root of roots) {
    for (const path of [root.path, root.realPath]) {
      if (path === null || read.includes(path)) continue;
      read.push(path);
      reasons[`read:${path}`] = path === root.path
        ? "a configured skill root"
        : `the real path of the skill root "${root.path}"`;
    }
  }
  for (const folder of options.sourceFolders ?? []) {
    if (read.includes(folder)) continue;
    read.push(folder);
    reasons[`read:${folder}`] = "one configured remote source's folder in the sources cache, " +
      "read only: its checked copies (the fetcher writes it); no other source's folder";
  }
  const cache = options.indexCache ?? null;
  if (cache !== null) {
    if (!read.includes(cache)) read.push(cache);
    write.push(cache);
    reasons[`read:${cache}`] = "the index cache (parsed frontmatter and digests by file identity)";
    reasons[`write:${cache}`] = "the index cache, written atomically (temporary file, rename)";
  }
  for (const name of WORKER_ENV_NAMES) {
    reasons[`env:${name}`] = "read by npm:yaml on every parse";
  }
  return Object.freeze({
    permissions: Object.freeze({
      read: Object.freeze(read),
      run: Object.freeze(run),
      env: WORKER_ENV_NAMES,
      net: Object.freeze(net),
      write: Object.freeze(write),
      sys: Object.freeze([]),
      ffi: Object.freeze([]),
    }),
    reasons: Object.freeze(reasons),
  });
}

/**
 * Converts a permission set to the shape `Worker`'s `deno.permissions` option
 * takes: an empty list becomes `false` (nothing), never `true` or "inherit".
 *
 * @param permissions The computed set.
 * @returns The option object for `new Worker`.
 */
export function toWorkerOption(permissions: WorkerPermissions): Deno.PermissionOptionsObject {
  const list = (values: readonly string[]): string[] | false =>
    values.length === 0 ? false : [...values];
  return {
    read: list(permissions.read),
    run: list(permissions.run),
    env: list(permissions.env),
    net: list(permissions.net),
    write: list(permissions.write),
    sys: list(permissions.sys),
    ffi: list(permissions.ffi),
    import: false,
  };
}

/**
 * The digest isolate's permission set (`digest_entry.ts`, issue 13): what the
 * worker reads skills from, read only (each root as configured and real, and
 * the configured remote sources' folders in the sources cache), and nothing else:
 * no write (not even the index cache: the worker stores what it answers), no
 * run, net, env, sys or ffi. Pure.
 *
 * @param roots The roots with their real paths.
 * @param options `sourceFolders`: the configured remote sources' `<key>`
 *   folders in the sources cache (never the whole cache). @default none
 * @returns The permissions and a reason per entry.
 */
export function digestIsolatePermissions(
  roots: readonly RootPaths[],
  options: { readonly sourceFolders?: readonly string[] } = {},
): ExplainedPermissions {
  const base = computeWorkerPermissions(roots, options);
  const reasons: Record<string, string> = {};
  for (const path of base.permissions.read) {
    reasons[`read:${path}`] = "skill files hashed for skills/list digests, each through the " +
      "path gate (" + (base.reasons[`read:${path}`] ?? "a skill folder") + ")";
  }
  return Object.freeze({
    permissions: Object.freeze({ ...base.permissions, env: Object.freeze([]) }),
    reasons: Object.freeze(reasons),
  });
}
