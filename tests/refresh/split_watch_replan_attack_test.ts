/**
 * A split watch (a root one folder of which cannot be watched) must keep
 * seeing edits after it is planned again (r7, session 6: 3 of 39 edits never
 * served at 6,000 skills). Deno (2.9.6) shares one inotify instance per
 * process: closing, or failing to open, a watcher over a folder removes that
 * folder's watches from every live watcher over it, which then sees nothing
 * there again. So a re-plan must never probe, open-and-close or close a
 * watcher over what a live watcher covers.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import type { WatchOpener } from "../../src/refresh/watch_plan.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";
import { REPO_ROOT } from "../support/program.ts";
import type { RefreshReport } from "../../src/refresh/live_refresh.ts";
import { holdWatcherThread } from "./_hold_watcher.ts";

/** The uid and gid of `nobody`: a user who cannot read a folder of mode 000. */
const OTHER_USER = 65534;

/** One watcher as opened: its paths and whether recursively. */
interface Watch {
  readonly paths: readonly string[];
  readonly recursive: boolean;
}

/** Whether one watch's folders and another's share an inotify watch (a folder both cover). */
function isOverlapping(a: Watch, b: Watch): boolean {
  const covers = (watch: Watch, path: string) =>
    watch.paths.some((at) => at === path || (watch.recursive && path.startsWith(`${at}/`)));
  return a.paths.some((path) => covers(b, path)) || b.paths.some((path) => covers(a, path));
}

/**
 * Real Deno watchers, refused as Deno refuses a recursive watch over
 * `locked` (and `locked` itself), each close and refusal checked against the
 * watchers live then: one that overlaps a live one is recorded in `blinding`.
 */
function trackedOpener(locked: string): { open: WatchOpener; blinding: string[] } {
  const live = new Set<Watch>();
  const blinding: string[] = [];
  const check = (watch: Watch, what: string) => {
    for (const other of live) {
      if (other !== watch && isOverlapping(watch, other)) {
        blinding.push(`${what} ${watch.paths.length} path(s) while a live watcher covers them`);
        return;
      }
    }
  };
  const open: WatchOpener = (paths, options) => {
    const watch: Watch = { paths: [paths].flat(), recursive: options.recursive };
    for (const path of watch.paths) {
      if (locked === path || (options.recursive && locked.startsWith(`${path}/`))) {
        check(watch, "failed to open");
        throw new Deno.errors.PermissionDenied(
          `Permission denied (os error 13) about ["${locked}"]`,
        );
      }
    }
    const watcher = Deno.watchFs(paths, options);
    live.add(watch);
    const close = watcher.close.bind(watcher);
    watcher.close = () => {
      live.delete(watch);
      check(watch, "closed");
      close();
    };
    return watcher;
  };
  return { open, blinding };
}

Deno.test("attack: planning a split watch again (a skill folder added to the root) never closes or fails a watcher over what a live one watches, and a sibling's edits are still seen", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "other/SKILL.md": skillMd("other"),
    "sibling/SKILL.md": skillMd("sibling", "Before"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  const tracked = trackedOpener(tree.at("locked"));
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: tracked.open,
  });
  assert.deepEqual(refresh.unwatched, [
    { root: tree.path, folder: "locked", why: "PermissionDenied" },
  ]);
  const deadline = Date.now() + 20_000;
  const waitFor = async (isDone: () => boolean, what: string) => {
    while (!isDone()) {
      assert.ok(Date.now() < deadline, what);
      await new Promise((ok) => setTimeout(ok, 25));
    }
  };
  // A new folder under the flat-watched root: the watch is planned again.
  await Deno.mkdir(tree.at("added"));
  await Deno.writeTextFile(tree.at("added/SKILL.md"), skillMd("added"));
  await waitFor(() => store.current().byName.get("added") !== undefined, "added never served");
  for (const text of ["One", "Two", "Three"]) {
    await Deno.writeTextFile(tree.at("sibling/SKILL.md"), skillMd("sibling", text));
    await waitFor(
      () => store.current().byName.get("sibling")?.description === text,
      `the sibling's edit "${text}" was never refreshed`,
    );
  }
  await Deno.writeTextFile(tree.at("added/SKILL.md"), skillMd("added", "Edited"));
  await waitFor(
    () => store.current().byName.get("added")?.description === "Edited",
    "an edit in the added skill was never refreshed",
  );
  assert.deepEqual(tracked.blinding, []);
});

Deno.test("a folder removed from a split root: edits of the other siblings in its batch watcher are still served by their events (no re-plan, no rescan)", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "other/SKILL.md": skillMd("other"),
    "removed/SKILL.md": skillMd("removed"),
    "sibling/SKILL.md": skillMd("sibling", "Before"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  const tracked = trackedOpener(tree.at("locked"));
  let opens = 0;
  /** Each description first served, and whether by a full rescan (the check's, not an event's). */
  const servedBy = new Map<string, boolean>();
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: (paths, options) => {
      opens++;
      return tracked.open(paths, options);
    },
    onRefresh: (report) => {
      for (const name of ["sibling", "other"]) {
        const key = `${name}:${store.current().byName.get(name)?.description}`;
        if (!servedBy.has(key)) servedBy.set(key, report.isFullRescan);
      }
    },
  });
  const opensAtStart = opens;
  const deadline = Date.now() + 20_000;
  const waitFor = async (isDone: () => boolean, what: string) => {
    while (!isDone()) {
      assert.ok(Date.now() < deadline, what);
      await new Promise((ok) => setTimeout(ok, 25));
    }
  };
  await Deno.remove(tree.at("removed"), { recursive: true });
  await waitFor(() => store.current().byName.get("removed") === undefined, "removed still served");
  // Past the split root's rescan check (1 s after the last event), so it cannot serve the edits.
  await new Promise((ok) => setTimeout(ok, 1_500));
  for (const [name, text] of [["sibling", "One"], ["other", "Two"], ["sibling", "Three"]]) {
    await Deno.writeTextFile(tree.at(`${name}/SKILL.md`), skillMd(name!, text));
    await waitFor(
      () => servedBy.has(`${name}:${text}`),
      `the edit "${text}" of ${name} was never refreshed`,
    );
    assert.equal(servedBy.get(`${name}:${text}`), false, `"${text}" served by a rescan only`);
  }
  assert.equal(opens, opensAtStart, "a removed folder opened watchers again");
  assert.deepEqual(refresh.unwatched, [
    { root: tree.path, folder: "locked", why: "PermissionDenied" },
  ]);
  assert.deepEqual(tracked.blinding, []);
});

Deno.test("a skill folder renamed in a split root: edits in it and in its siblings are still served", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "moved/SKILL.md": skillMd("moved"),
    "sibling/SKILL.md": skillMd("sibling"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  const tracked = trackedOpener(tree.at("locked"));
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: tracked.open,
  });
  const deadline = Date.now() + 20_000;
  const waitFor = async (isDone: () => boolean, what: string) => {
    while (!isDone()) {
      assert.ok(Date.now() < deadline, what);
      await new Promise((ok) => setTimeout(ok, 25));
    }
  };
  await Deno.rename(tree.at("moved"), tree.at("renamed"));
  await waitFor(() => store.current().byName.get("moved") === undefined, "moved still served");
  // The name follows the folder's (a skill's name must match its folder's).
  for (const [name, text] of [["renamed", "One"], ["sibling", "Two"], ["renamed", "Three"]]) {
    await Deno.writeTextFile(tree.at(`${name}/SKILL.md`), skillMd(name!, text));
    await waitFor(
      () => store.current().byName.get(name!)?.description === text,
      `the edit "${text}" in ${name} was never refreshed`,
    );
  }
  assert.deepEqual(tracked.blinding, []);
});

Deno.test("attack: a skill folder removed from a split root, then made again under its name: later edits in it are still served", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "remade/SKILL.md": skillMd("remade"),
    "sibling/SKILL.md": skillMd("sibling"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  const tracked = trackedOpener(tree.at("locked"));
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: tracked.open,
  });
  const deadline = Date.now() + 20_000;
  const waitFor = async (isDone: () => boolean, what: string) => {
    while (!isDone()) {
      assert.ok(Date.now() < deadline, what);
      await new Promise((ok) => setTimeout(ok, 25));
    }
  };
  await Deno.remove(tree.at("remade"), { recursive: true });
  await waitFor(() => store.current().byName.get("remade") === undefined, "still served");
  await Deno.mkdir(tree.at("remade"));
  await Deno.writeTextFile(tree.at("remade/SKILL.md"), skillMd("remade", "Remade"));
  await waitFor(
    () => store.current().byName.get("remade")?.description === "Remade",
    "the folder made again was never served",
  );
  // Past the split root's rescan check (1 s after the last event): an edit needs its own event.
  await new Promise((ok) => setTimeout(ok, 1_500));
  await Deno.writeTextFile(tree.at("remade/SKILL.md"), skillMd("remade", "Edited"));
  await waitFor(
    () => store.current().byName.get("remade")?.description === "Edited",
    "an edit in the folder made again was never served",
  );
  assert.deepEqual(tracked.blinding, []);
});

Deno.test("attack: a skill folder removed from a split root and made again under its name within one batch: later edits in it are still served", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "remade/SKILL.md": skillMd("remade"),
    "sibling/SKILL.md": skillMd("sibling"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  const tracked = trackedOpener(tree.at("locked"));
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: tracked.open,
  });
  const deadline = Date.now() + 20_000;
  const waitFor = async (isDone: () => boolean, what: string) => {
    while (!isDone()) {
      assert.ok(Date.now() < deadline, what);
      await new Promise((ok) => setTimeout(ok, 25));
    }
  };
  // The watcher's thread held meanwhile: the removal and the new folder come as one batch, in
  // which the root lists "remade" before and after (ext4 may even give it the same inode).
  const release = await holdWatcherThread(tree.at(".hold"));
  try {
    await Deno.remove(tree.at("remade"), { recursive: true });
    await Deno.mkdir(tree.at("remade"));
    await Deno.writeTextFile(tree.at("remade/SKILL.md"), skillMd("remade", "Remade"));
  } finally {
    await release();
  }
  await waitFor(
    () => store.current().byName.get("remade")?.description === "Remade",
    "the folder made again was never served",
  );
  // Past the split root's rescan check (1 s after the last event): an edit needs its own event.
  await new Promise((ok) => setTimeout(ok, 1_500));
  await Deno.writeTextFile(tree.at("remade/SKILL.md"), skillMd("remade", "Edited"));
  await waitFor(
    () => store.current().byName.get("remade")?.description === "Edited",
    "an edit in the folder made again within one batch was never served",
  );
  assert.deepEqual(tracked.blinding, []);
});

Deno.test("attack: a skill folder moved out of a split root: its edits where it went are not read as changes in the root, and siblings' edits are still served", async () => {
  await using tree = await makeTree({
    "root/locked/SKILL.md": skillMd("locked"),
    "root/moving/SKILL.md": skillMd("moving"),
    "root/sibling/SKILL.md": skillMd("sibling", "Before"),
    "away/.keep": "",
  });
  const root = tree.at("root");
  const store = createCatalogStore(
    await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
  );
  const tracked = trackedOpener(tree.at("root/locked"));
  const reports: RefreshReport[] = [];
  await using _refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: tracked.open,
    onRefresh: (report) => void reports.push(report),
  });
  const deadline = Date.now() + 20_000;
  const waitFor = async (isDone: () => boolean, what: string) => {
    while (!isDone()) {
      assert.ok(Date.now() < deadline, what);
      await new Promise((ok) => setTimeout(ok, 25));
    }
  };
  await Deno.rename(tree.at("root/moving"), tree.at("away/moving"));
  await waitFor(() => store.current().byName.get("moving") === undefined, "moving still served");
  for (const text of ["One", "Two", "Three"]) {
    await Deno.writeTextFile(tree.at("away/moving/SKILL.md"), skillMd("moving", text));
  }
  // Its old watch reports these (if at all) before the sibling's edit: seen by then.
  const siblingPath = tree.at("root/sibling/SKILL.md");
  await Deno.writeTextFile(siblingPath, skillMd("sibling", "After"));
  await waitFor(
    () => reports.some((report) => report.changedPaths.includes(siblingPath)),
    "the sibling's edit was never refreshed",
  );
  assert.equal(store.current().byName.get("sibling")?.description, "After");
  const stale = reports.flatMap((report) =>
    report.changedPaths.filter((path) => path.startsWith(`${root}/moving/`))
  );
  assert.deepEqual(stale, [], "edits outside the root were read as changes in it");
  assert.deepEqual(tracked.blinding, []);
});

Deno.test({
  name:
    "attack: a root split by an unreadable folder (real watcher, as a user who cannot read it) serves and notifies 10 edits in a row to a sibling skill after a re-plan",
  // Root reads every folder: as root the harness runs as nobody (setpriv), else as this user.
  ignore: Deno.uid() === 0 && !Deno.statSync("/usr/bin/setpriv").isFile,
  fn: async () => {
    const parent = await Deno.makeTempDir({ prefix: "skillgate-split-" });
    try {
      const root = `${parent}/skills`;
      const names = ["locked", "other", "sibling"];
      for (const name of names) {
        await Deno.mkdir(`${root}/${name}`, { recursive: true });
        await Deno.writeTextFile(`${root}/${name}/SKILL.md`, skillMd(name));
      }
      const asOther = Deno.uid() === 0;
      if (asOther) {
        await Deno.mkdir(`${parent}/deno-dir`);
        for (const path of [parent, root, `${parent}/deno-dir`]) {
          await Deno.chown(path, OTHER_USER, OTHER_USER);
        }
        for (const name of names) {
          await Deno.chown(`${root}/${name}`, OTHER_USER, OTHER_USER);
          await Deno.chown(`${root}/${name}/SKILL.md`, OTHER_USER, OTHER_USER);
        }
      }
      await Deno.chmod(`${root}/locked`, 0o000);
      const deno = [
        `${REPO_ROOT}.tools/node_modules/deno/deno`,
        "run",
        "--config",
        `${REPO_ROOT}deno.json`,
        "--cached-only",
        "--allow-all",
        // The watch isolate (every watcher of live refresh) is a Worker with its own permissions.
        "--unstable-worker-options",
        `${REPO_ROOT}tests/refresh/_split_watch_harness.ts`,
        root,
        "sibling",
        "10",
      ];
      const setpriv = ["/usr/bin/setpriv", `--reuid=${OTHER_USER}`, `--regid=${OTHER_USER}`];
      const argv = asOther ? [...setpriv, "--clear-groups", ...deno] : deno;
      const output = await new Deno.Command(argv[0]!, {
        args: argv.slice(1),
        env: asOther ? { DENO_DIR: `${parent}/deno-dir`, HOME: parent, NO_COLOR: "1" } : {},
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.ok(output.success, stderr);
      const result = JSON.parse(new TextDecoder().decode(output.stdout));
      assert.deepEqual(result, {
        unwatched: [{ root, folder: "locked", why: "PermissionDenied" }],
        isAdded: true,
        served: Array(10).fill(true),
      });
      // One line names the folder, once, relative to its root.
      assert.equal(stderr.match(/live refresh misses the folder "locked" in /g)?.length, 1, stderr);
    } finally {
      await Deno.chmod(`${parent}/skills/locked`, 0o755).catch(() => {});
      await Deno.remove(parent, { recursive: true });
    }
  },
});
