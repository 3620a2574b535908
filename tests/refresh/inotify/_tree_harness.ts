/**
 * A real inotify watch tree over temporary folders, for the anchored-watch
 * attack tests: a root and an outside folder (same file system, so folders
 * move between them), every report recorded.
 *
 * @module
 */

import {
  createWatchTree,
  type WatchTree,
  type WatchTreeOptions,
} from "../../../src/refresh/inotify/watch_tree.ts";
import { type Libc, openLibc } from "../../../src/refresh/inotify/libc.ts";

/** One report of the tree. */
export interface Report {
  readonly type: "change" | "rescan" | "lost" | "walked";
  readonly path: string;
  readonly detail: string;
}

/** The harness; dispose it to close the descriptor and remove the folders. */
export interface TreeHarness extends AsyncDisposable {
  readonly tree: WatchTree;
  readonly libc: Libc;
  /** The root's real path (watched as subscriber 1, reported under `root`). */
  readonly root: string;
  /** A folder outside the root, holding `secret-dir/secret-sub` and `secret.txt`. */
  readonly outside: string;
  readonly reports: Report[];
  /** Libc calls made so far, by name (the counting wrapper's). */
  readonly calls: Map<string, number>;
  /** Reads and handles events and runs walk steps until neither is left. */
  settle(): void;
  /** Every watched folder's real path. */
  watched(): string[];
}

/**
 * Makes the folders (`root/skills/a/sub`, `root/skills/b`, and the outside
 * secrets) and a tree subscribed to the root, walked.
 *
 * @param options Tree options (bounds, the after-check hook).
 */
export async function treeHarness(options: WatchTreeOptions = {}): Promise<TreeHarness> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "sg-inotify-" }));
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/skills/a/sub`, { recursive: true });
  await Deno.mkdir(`${root}/skills/b`, { recursive: true });
  await Deno.mkdir(`${outside}/secret-dir/secret-sub`, { recursive: true });
  await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
  const real = openLibc();
  if (real === null) throw new Error("no libc");
  const calls = new Map<string, number>();
  const count = <T extends (...args: never[]) => unknown>(name: string, fn: T): T =>
    ((...args: never[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return fn(...args);
    }) as T;
  const libc: Libc = {
    ...real,
    openAt: count("openAt", real.openAt),
    addWatch: count("addWatch", real.addWatch),
    rmWatch: count("rmWatch", real.rmWatch),
  };
  const fd = libc.inotifyInit();
  const reports: Report[] = [];
  const tree = createWatchTree(libc, fd, {
    change: (_, kind, path) => reports.push({ type: "change", path, detail: kind }),
    rescan: (_, path) => reports.push({ type: "rescan", path, detail: "" }),
    lost: (_, path, folder, why) =>
      reports.push({ type: "lost", path, detail: `${folder}:${why}` }),
    walked: (_, path) => reports.push({ type: "walked", path, detail: "" }),
  }, options);
  const settle = () => {
    for (let rounds = 0; rounds < 10_000; rounds++) {
      const read = tree.drain();
      const more = tree.step(64);
      if (!more && read === 0 && tree.drain() === 0 && !tree.hasWork) return;
    }
    throw new Error("the tree did not settle");
  };
  tree.subscribe(1, root, root);
  settle();
  return {
    tree,
    libc,
    root,
    outside,
    reports,
    calls,
    settle,
    watched: () => [...tree.watchedFolders().values()].sort(),
    async [Symbol.asyncDispose]() {
      tree.clear();
      libc.close(fd);
      real.unload();
      await Deno.remove(base, { recursive: true });
    },
  };
}

/**
 * Whether anything the tree reported or watches names the outside folder or
 * one of its secrets.
 */
export function leaksOutside(harness: TreeHarness): string[] {
  const leaks = harness.reports
    .filter((report) => /secret/.test(report.path) || report.path.startsWith(harness.outside))
    .map((report) => `${report.type} ${report.path}`);
  for (const path of harness.watched()) {
    if (!(path === harness.root || path.startsWith(`${harness.root}/`))) {
      leaks.push(`watch ${path}`);
    }
  }
  return leaks;
}
