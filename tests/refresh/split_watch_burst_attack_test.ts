/**
 * A root split by a folder it cannot watch must serve every edit of a
 * sibling, bursts included (r7 and s15, session 6: 3 of 39 and 6 of 96 edits
 * never served at 6,000 skills as nobody). Deno 2.9.6's event filter opens
 * every watched path of every watcher for each event (each open an IN_OPEN
 * event for the kernel queue), so a split root's thousands of watched folders
 * overflow `fs.inotify.max_queued_events` during a burst and edits arriving
 * meanwhile are dropped without a trace. Live refresh rescans a split root
 * once a burst is over, so a dropped event costs time, never the edit.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import type { WatchOpener } from "../../src/refresh/watch_plan.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import { makeTree, skillMd, type TreeEntry } from "../skills/_tree.ts";
import { REPO_ROOT } from "../support/program.ts";

/** The uid and gid of `nobody`: a user who cannot read a folder of mode 000. */
const OTHER_USER = 65534;

/** Skill folders beside the unreadable one in the real-watcher attack. */
const SIBLINGS = 3_000;

/**
 * Real Deno watchers, refused as Deno refuses a recursive watch over
 * `locked` (none when null), whose events for `dropped` never come (as when the kernel queue
 * overflowed while they happened).
 */
function droppingOpener(locked: string | null, dropped: string): WatchOpener {
  return (paths, options) => {
    for (const path of [paths].flat()) {
      if (locked === null) break;
      if (locked === path || (options.recursive && locked.startsWith(`${path}/`))) {
        throw new Deno.errors.PermissionDenied(
          `Permission denied (os error 13) about ["${locked}"]`,
        );
      }
    }
    const watcher = Deno.watchFs(paths, options);
    async function* events(): AsyncGenerator<Deno.FsEvent> {
      for await (const event of watcher) {
        const paths = event.paths.filter((path) => path !== dropped);
        if (paths.length > 0) yield { ...event, paths };
      }
    }
    return {
      close: () => watcher.close(),
      [Symbol.dispose]: () => watcher.close(),
      [Symbol.asyncIterator]: events,
    } as unknown as Deno.FsWatcher;
  };
}

Deno.test("split root: an edit whose watcher event was lost in a burst is still served (the rescan after the burst)", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "seen/SKILL.md": skillMd("seen", "Before"),
    "unseen/SKILL.md": skillMd("unseen", "Before"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: droppingOpener(tree.at("locked"), tree.at("unseen/SKILL.md")),
  });
  assert.deepEqual(refresh.unwatched.map((lost) => lost.folder), ["locked"]);
  // The burst: one edit the watcher reports, one it lost.
  await Deno.writeTextFile(tree.at("seen/SKILL.md"), skillMd("seen", "After"));
  await Deno.writeTextFile(tree.at("unseen/SKILL.md"), skillMd("unseen", "After"));
  const deadline = Date.now() + 20_000;
  while (store.current().byName.get("unseen")?.description !== "After") {
    assert.ok(Date.now() < deadline, "the edit whose event was lost was never served");
    await new Promise((ok) => setTimeout(ok, 25));
  }
  assert.equal(store.current().byName.get("seen")?.description, "After");
});

Deno.test("a watch of 300 symlinked skills' folders (not split): an edit whose event was lost in a burst is still served", async () => {
  const entries: Record<string, TreeEntry> = {};
  for (let i = 0; i < 300; i++) {
    const name = `s${String(i).padStart(3, "0")}`;
    entries[`.store/${name}/SKILL.md`] = skillMd(name, "Before");
    entries[name] = { symlink: `.store/${name}` };
  }
  await using tree = await makeTree(entries);
  const rescanLoads: number[] = [];
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: droppingOpener(null, tree.at(".store/s200/SKILL.md")),
    onRefresh: (report) => void (report.isFullRescan && rescanLoads.push(report.loaded)),
  });
  assert.equal(refresh.watched.length, 301);
  assert.deepEqual(refresh.unwatched, []);
  await Deno.writeTextFile(tree.at(".store/s100/SKILL.md"), skillMd("s100", "After"));
  await Deno.writeTextFile(tree.at(".store/s200/SKILL.md"), skillMd("s200", "After"));
  const deadline = Date.now() + 20_000;
  // The report follows the swap: waited for too (else an empty list, a race).
  while (store.current().byName.get("s200")?.description !== "After" || rescanLoads.length === 0) {
    assert.ok(Date.now() < deadline, "the edit whose event was lost was never served");
    await new Promise((ok) => setTimeout(ok, 25));
  }
  assert.equal(store.current().byName.get("s100")?.description, "After");
  // The check reads again only what changed (r9: given each linked folder, it re-read all 300).
  assert.ok(rescanLoads.length > 0 && rescanLoads.every((loaded) => loaded <= 2), `${rescanLoads}`);
});

Deno.test("split root: with no event, nothing is rescanned (the check follows bursts, it does not poll)", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "sibling/SKILL.md": skillMd("sibling"),
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  let refreshes = 0;
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: droppingOpener(tree.at("locked"), tree.at("none")),
    onRefresh: () => refreshes++,
  });
  assert.equal(refresh.unwatched.length, 1);
  // Longer than the quiet time before a split root's check (1 s): no event, no refresh.
  await new Promise((ok) => setTimeout(ok, 1_500));
  assert.equal(refreshes, 0);
});

Deno.test({
  name:
    "attack: a burst of 20 edits to different siblings of an unreadable folder among 3,000 skill folders (real watcher, as a user who cannot read it) is served in full",
  // Root reads every folder: as root the harness runs as nobody (setpriv), else as this user.
  ignore: Deno.uid() === 0 && !Deno.statSync("/usr/bin/setpriv").isFile,
  fn: async () => {
    const parent = await Deno.makeTempDir({ prefix: "skillgate-split-burst-" });
    const root = `${parent}/skills`;
    const asOther = Deno.uid() === 0;
    try {
      const names = ["locked"];
      for (let i = 0; i < SIBLINGS; i++) names.push(`s${String(i).padStart(4, "0")}`);
      for (const name of names) {
        Deno.mkdirSync(`${root}/${name}`, { recursive: true });
        Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillMd(name));
        if (asOther) {
          Deno.chownSync(`${root}/${name}`, OTHER_USER, OTHER_USER);
          Deno.chownSync(`${root}/${name}/SKILL.md`, OTHER_USER, OTHER_USER);
        }
      }
      if (asOther) {
        Deno.mkdirSync(`${parent}/deno-dir`);
        for (const path of [parent, root, `${parent}/deno-dir`]) {
          Deno.chownSync(path, OTHER_USER, OTHER_USER);
        }
      }
      Deno.chmodSync(`${root}/locked`, 0o000);
      const deno = [
        `${REPO_ROOT}.tools/node_modules/deno/deno`,
        "run",
        "--config",
        `${REPO_ROOT}deno.json`,
        "--cached-only",
        "--allow-all",
        // The watch isolate (every watcher of live refresh) is a Worker with its own permissions.
        "--unstable-worker-options",
        `${REPO_ROOT}tests/refresh/_split_burst_harness.ts`,
        root,
        "20",
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
      assert.deepEqual(result, { unwatched: ["locked"], edits: 20, unserved: [] });
    } finally {
      await Deno.chmod(`${root}/locked`, 0o755).catch(() => {});
      await Deno.remove(parent, { recursive: true });
    }
  },
});

Deno.test("attack: a file written every 300 ms in a split root does not turn the check into a poll (each forced check waits twice as long)", async () => {
  await using tree = await makeTree({
    "locked/SKILL.md": skillMd("locked"),
    "busy/SKILL.md": skillMd("busy"),
    "busy/log.txt": "0\n",
  });
  const store = createCatalogStore(
    await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS),
  );
  let rescans = 0;
  await using refresh = await startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchFs: droppingOpener(tree.at("locked"), tree.at("none")),
    onRefresh: (report) => void (report.isFullRescan && rescans++),
  });
  assert.equal(refresh.unwatched.length, 1);
  // 40 writes 300 ms apart (12 s or more): a check every 3 s would be 4; doubling gives 2 (3 s, 9 s).
  for (let i = 1; i <= 40; i++) {
    await Deno.writeTextFile(tree.at("busy/log.txt"), `${i}\n`);
    await new Promise((ok) => setTimeout(ok, 300));
  }
  assert.ok(rescans >= 1, "no check ran under the stream");
  assert.ok(rescans <= 3, `${rescans} rescans under one stream`);
});
