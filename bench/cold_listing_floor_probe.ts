/**
 * Floor probe of the cold first full `skills/list` (issue 13, session s23):
 * the least work a listing with a digest per file needs in Deno here, with
 * none of skillgate's code. It walks a catalog (one `readDirSync` per folder)
 * and, for every regular file, opens it, `fstat`s the handle, reads it whole
 * and hashes it (sha256), then closes it, in one of these set-ups:
 *
 * - `main`: in the main isolate (run it with `--allow-read`, unscoped);
 * - `worker`: in one worker whose read permission is the catalog's root
 *   (Deno's permission check resolves each path it opens);
 * - `worker-any`: in one worker with unscoped read (`read: true`);
 * - `split`: two root-scoped workers, each half of the skill folders;
 * - `gate`/`split-gate`: as `worker`/`split`, plus what skillgate's gate adds
 *   to each file: the open with `O_NOFOLLOW | O_NONBLOCK`, the main thread's
 *   `/proc/self/fd` read of every descriptor (asked in batches of 64 by
 *   message, as the trusted part answers), and an `fstat` after the read.
 *
 * `--stat-only=1` makes it the warm listing's floor instead: the same walk,
 * and an `lstat` of every regular file in place of its open, read and hash
 * (what checking every file's identity against an index cache needs at
 * least; `main` and `split` modes only). The large-catalog bench section runs
 * it in `main` mode beside the cold floor (`split-gate`) for each size.
 *
 * `--batch=N` asks about N descriptors a message in the gate modes (default 64).
 * `--relative=1` opens by paths relative to the root (the working folder).
 * `--open=deno` opens with `Deno.openSync` (and `FsFile.statSync`) instead of
 * `node:fs`. It prints one JSON line: wall ms, files, bytes, the process's CPU
 * and each thread's (from `/proc/self/task/<tid>/stat`, read before the workers
 * end). Warm the catalog's page cache first (`find ROOT -type f | xargs cat`).
 *
 * Usage: `deno run --unstable-worker-options --allow-read --allow-write=... \
 *   bench/cold_listing_floor_probe.ts --root=DIR --mode=worker [--open=node]`
 * (`--allow-all` works too; `main` mode then runs with every permission).
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";

/** What a probe pass did. */
interface PassResult {
  readonly files: number;
  readonly bytes: number;
  readonly refused: number;
  readonly digestXor: number;
}

/** Options of one pass, sent to a worker as its first message. */
interface PassOptions {
  readonly root: string;
  /** Of the skill folders (sorted), take those whose index % `of` is `part`. */
  readonly part: number;
  readonly of: number;
  readonly open: "node" | "deno";
  /** Ask the main thread where each descriptor is (the gate's way). */
  readonly locate: boolean;
  /** Descriptors asked about in one message (the gate's way). @default 64 */
  readonly batch?: number;
  /** Open by paths relative to the working folder (the root) instead of absolute ones. */
  readonly relative?: boolean;
  /** `lstat` each file instead of opening, reading and hashing it (the warm floor). */
  readonly statOnly?: boolean;
}

const BATCH = 64;
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Walks `options.root`'s share of skill folders and hashes every file.
 *
 * @param options Root, share, open flavour, whether to locate.
 * @param locate Answers where each descriptor is (null: cannot tell).
 * @returns Counts and an XOR of the digests' first 4 bytes (the same on
 *   every set-up for the same catalog).
 *
 * Requires read permission on `options.root`.
 */
async function pass(
  options: PassOptions,
  locate: (fds: readonly number[]) => Promise<readonly (string | null)[]>,
): Promise<PassResult> {
  const names = [...Deno.readDirSync(options.root)]
    .filter((entry) => entry.isDirectory)
    .map((entry) => entry.name)
    .sort();
  let files = 0, bytes = 0, refused = 0, digestXor = 0;
  let buffer = new Uint8Array(64 * 1024);
  const pending: string[] = [];
  const hashPath = (path: string): void => {
    let size: number;
    let n = 0;
    if (options.open === "deno") {
      const file = Deno.openSync(path);
      try {
        size = file.statSync().size;
        if (size > buffer.length) buffer = new Uint8Array(size * 2);
        while (n < size) {
          const got = file.readSync(buffer.subarray(n, size));
          if (got === null || got === 0) break;
          n += got;
        }
      } finally {
        file.close();
      }
    } else {
      const fd = openSync(path, FLAGS);
      try {
        size = fstatSync(fd).size;
        if (size > buffer.length) buffer = new Uint8Array(size * 2);
        while (n < size) {
          const got = readSync(fd, buffer, n, size - n, n);
          if (got === 0) break;
          n += got;
        }
      } finally {
        closeSync(fd);
      }
    }
    const digest = createHash("sha256").update(buffer.subarray(0, n)).digest();
    digestXor ^= digest.readUInt32LE(0);
    files++;
    bytes += n;
  };
  const flushLocated = async (): Promise<void> => {
    const paths = pending.splice(0);
    const fds = paths.map((path) => openSync(path, FLAGS));
    const sizes = fds.map((fd) => fstatSync(fd).size);
    const where = await locate(fds);
    for (const [i, fd] of fds.entries()) {
      try {
        if (where[i] !== paths[i]) {
          refused++;
          continue;
        }
        const size = sizes[i] ?? 0;
        if (size > buffer.length) buffer = new Uint8Array(size * 2);
        let n = 0;
        while (n < size) {
          const got = readSync(fd, buffer, n, size - n, n);
          if (got === 0) break;
          n += got;
        }
        const after = fstatSync(fd);
        if (after.size !== size) {
          refused++;
          continue;
        }
        const digest = createHash("sha256").update(buffer.subarray(0, n)).digest();
        digestXor ^= digest.readUInt32LE(0);
        files++;
        bytes += n;
      } finally {
        closeSync(fd);
      }
    }
  };
  const walk = async (dir: string): Promise<void> => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        if (options.statOnly === true) {
          bytes += Deno.lstatSync(path).size;
          files++;
        } else if (!options.locate) hashPath(path);
        else {
          pending.push(path);
          if (pending.length >= (options.batch ?? BATCH)) await flushLocated();
        }
      }
    }
  };
  for (let index = options.part; index < names.length; index += options.of) {
    const name = names[index] ?? "";
    await walk(options.relative === true ? name : `${options.root}/${name}`);
  }
  if (pending.length > 0) await flushLocated();
  return { files, bytes, refused, digestXor };
}

/** CPU seconds (user + system) of each thread of this process, by name and id. */
function threadCpu(): { name: string; tid: string; cpuS: number }[] {
  const ticks = 100;
  const rows: { name: string; tid: string; cpuS: number }[] = [];
  let tasks: Deno.DirEntry[];
  try {
    tasks = [...Deno.readDirSync("/proc/self/task")];
  } catch {
    return rows; // /proc needs --allow-all
  }
  for (const entry of tasks) {
    try {
      const stat = Deno.readTextFileSync(`/proc/self/task/${entry.name}/stat`);
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" ");
      rows.push({
        name,
        tid: entry.name,
        cpuS: (Number(fields[11]) + Number(fields[12])) / ticks,
      });
    } catch {
      // the thread ended
    }
  }
  return rows;
}

async function runWorkers(
  root: string,
  of: number,
  open: "node" | "deno",
  locate: boolean,
  scoped: boolean,
  relative: boolean,
  batch: number,
  statOnly: boolean,
): Promise<PassResult & { threads: ReturnType<typeof threadCpu>; startedMs: number }> {
  const workers = Array.from({ length: of }, () =>
    new Worker(import.meta.url, {
      type: "module",
      name: "probe",
      deno: {
        permissions: {
          read: scoped ? [root] : true,
          write: false,
          net: false,
          env: false,
          run: false,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    }));
  // The clock starts once every worker has loaded (review r18 L6: starting two workers took ~115
  // ms of a floor that skillgate's own listing, its isolates already up, does not pay).
  let startedMs = 0;
  let ready = 0;
  const results = await Promise.all(
    workers.map((worker) =>
      new Promise<PassResult>((resolve, reject) => {
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new Error(event.message));
        };
        worker.onmessage = (event) => {
          const data = event.data;
          if (data.type === "ready") {
            ready++;
            if (ready < workers.length) return;
            startedMs = performance.now();
            for (const [index, each] of workers.entries()) {
              each.postMessage({
                type: "start",
                options: { root, part: index, of, open, locate, relative, batch, statOnly },
              });
            }
          } else if (data.type === "locate") {
            const paths = (data.fds as number[]).map((fd) => {
              try {
                return Deno.readLinkSync(`/proc/self/fd/${fd}`);
              } catch {
                return null;
              }
            });
            worker.postMessage({ type: "located", id: data.id, paths });
          } else if (data.type === "done") resolve(data.result);
        };
      })
    ),
  );
  const threads = threadCpu();
  for (const worker of workers) worker.terminate();
  return {
    files: results.reduce((sum, r) => sum + r.files, 0),
    bytes: results.reduce((sum, r) => sum + r.bytes, 0),
    refused: results.reduce((sum, r) => sum + r.refused, 0),
    digestXor: results.reduce((x, r) => x ^ r.digestXor, 0),
    threads,
    startedMs,
  };
}

if (typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined") {
  // Worker side: one pass, locates asked of the main thread by message.
  const scope = self as unknown as {
    postMessage(message: unknown): void;
    onmessage: ((event: MessageEvent) => void) | null;
  };
  let nextId = 0;
  const waiting = new Map<number, (paths: (string | null)[]) => void>();
  scope.postMessage({ type: "ready" });
  scope.onmessage = (event) => {
    const data = event.data;
    if (data.type === "located") {
      waiting.get(data.id)?.(data.paths);
      waiting.delete(data.id);
    } else if (data.type === "start") {
      void pass(data.options, (fds) =>
        new Promise((resolve) => {
          const id = nextId++;
          waiting.set(id, resolve);
          scope.postMessage({ type: "locate", id, fds });
        })).then((result) => scope.postMessage({ type: "done", result }));
    }
  };
} else if (import.meta.main) {
  const args = Object.fromEntries(
    Deno.args.map((arg) => arg.replace(/^--/, "").split("=", 2) as [string, string]),
  );
  if (args.root === undefined) throw new Error("Give the catalog's folder: --root=DIR");
  const root = Deno.realPathSync(args.root);
  const mode = args.mode ?? "worker";
  const open = args.open === "deno" ? "deno" : "node";
  const relative = args.relative === "1";
  const batch = Number(args.batch ?? BATCH);
  const statOnly = args["stat-only"] === "1";
  if (statOnly && mode.endsWith("gate")) throw new Error("--stat-only=1 takes main or split modes");
  if (relative) Deno.chdir(root);
  const started = performance.now();
  let result: PassResult & { threads?: ReturnType<typeof threadCpu>; startedMs?: number };
  if (mode === "main") {
    result = await pass(
      { root, part: 0, of: 1, open, locate: false, relative, statOnly },
      (fds) => Promise.resolve(fds.map((fd) => Deno.readLinkSync(`/proc/self/fd/${fd}`))),
    );
  } else if (mode === "main-gate") {
    result = await pass(
      { root, part: 0, of: 1, open, locate: true },
      (fds) => Promise.resolve(fds.map((fd) => Deno.readLinkSync(`/proc/self/fd/${fd}`))),
    );
  } else {
    const of = mode.startsWith("split") ? 2 : 1;
    const locate = mode.endsWith("gate");
    result = await runWorkers(
      root,
      of,
      open,
      locate,
      mode !== "worker-any",
      relative,
      batch,
      statOnly,
    );
  }
  const wallMs = Math.round(performance.now() - (result.startedMs ?? started));
  const threads = result.threads ?? threadCpu();
  const processCpuS = threads.reduce((sum, t) => sum + t.cpuS, 0);
  console.log(JSON.stringify({
    mode,
    statOnly,
    open,
    wallMs,
    files: result.files,
    bytes: result.bytes,
    refused: result.refused,
    digestXor: result.digestXor,
    processCpuS: Number(processCpuS.toFixed(2)),
    threads: threads.filter((t) => t.cpuS > 0.05).map((t) => `${t.name}:${t.cpuS.toFixed(2)}`),
    load: Deno.readTextFileSync("/proc/loadavg").split(" ")[0],
  }));
}
