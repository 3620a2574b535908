/**
 * s15 hX: a skill root removed (or swapped for a file) while its watch is
 * armed, and made again at once. The real inotify service (main thread,
 * `directStarter`) with its test seam `afterResolve`: the root goes right
 * after the service resolved its path and before its folder check (or, for
 * a root already checked and queued, before the tree's walk opens it), and
 * is made again before live refresh reads the answer. Before, the service
 * answered such a root as it answers a listed file (no watch, no loss), and
 * the root return check found a folder there: the root stayed unwatched in
 * silence, its skills as they were at start, its edits never served.
 * (A linked skill's real folder inside its root, watched as its own path,
 * was covered on main by its root's walk, which finds it made again: kept
 * as a test of the same attack.)
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { startLiveRefresh } from "../../src/refresh/live_refresh.ts";
import { directStarter, type WatchIsolateStarter } from "../../src/refresh/watch_isolate.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { createCatalogStore } from "../../src/skills/catalog_store.ts";
import type { CatalogStore } from "../../src/skills/catalog_store.ts";
import { skillMd } from "../skills/_tree.ts";

/** Longest wait for a change to be served, in ms (a bound, never a pause that asserts). */
const CEILING_MS = 15_000;

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out after ${CEILING_MS} ms waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

const description = (store: CatalogStore, name: string) =>
  store.current().byName.get(name)?.description;

/**
 * Runs `body` with `base`, a fresh temporary folder (its real path, `prefix` first in its name),
 * and removes it after, even on a throw.
 */
async function withBase(prefix: string, body: (base: string) => Promise<void>): Promise<void> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  try {
    await body(base);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

/** Writes `root`/one/SKILL.md ("Before") and returns a store of the catalog built on `root`. */
async function oneSkillStore(root: string): Promise<CatalogStore> {
  Deno.mkdirSync(`${root}/one`, { recursive: true });
  Deno.writeTextFileSync(`${root}/one/SKILL.md`, skillMd("one", "Before"));
  return createCatalogStore(await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS));
}

/** Starts live refresh on `store` (default caps, tools mode, 50 ms quiet) watched through `starter`. */
function startRefresh(store: CatalogStore, starter: WatchIsolateStarter) {
  return startLiveRefresh(store, {
    caps: DEFAULT_CAPS,
    isToolDescriptionMode: false,
    quietMs: 50,
    watchIsolate: { starter },
  });
}

/** Writes `file` as skill `name` described "Edited" and waits until `store` serves that. */
async function assertEditServed(
  store: CatalogStore,
  file: string,
  name: string,
  what: string,
): Promise<void> {
  Deno.writeTextFileSync(file, skillMd(name, "Edited"));
  await until(what, () => description(store, name) === "Edited");
}

/**
 * Waits until `store` serves skill `name` as made again ("Made again"), then writes `file` as it
 * "Edited" and waits until that is served; `where` ("root", "folder") names what came back.
 */
async function assertMadeAgainThenEdit(
  store: CatalogStore,
  file: string,
  name: string,
  where: string,
): Promise<void> {
  await until(`the ${where} made again read`, () => description(store, name) === "Made again");
  await assertEditServed(store, file, name, `the edit in the ${where} made again`);
}

/** Runs `body` with console.error pushing its lines to `lines`; console.error is put back after. */
async function withConsoleErrorTo(lines: string[], body: () => Promise<void>): Promise<void> {
  const consoleError = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.join(" "));
  try {
    await body();
  } finally {
    console.error = consoleError;
  }
}

/** How the root is taken away at the seam (it is made again, with the skill, just after). */
const TAKE_AWAY = {
  "removed": (root: string) => Deno.removeSync(root, { recursive: true }),
  "swapped for a file": (root: string) => {
    Deno.removeSync(root, { recursive: true });
    Deno.writeTextFileSync(root, "not a folder");
  },
} as const;

for (const [how, takeAway] of Object.entries(TAKE_AWAY)) {
  Deno.test(`attack (s15 hX): a root ${how} between the watch's resolve and its folder check, made again at once: its skill as made again and a later edit are served`, async () => {
    await withBase("skillgate-hX-armed-", async (base) => {
      const root = `${base}/root`;
      let isTaken = false;
      const store = await oneSkillStore(root);
      const starter = directStarter([root], {
        afterResolve(path) {
          if (isTaken || path !== root) return;
          isTaken = true;
          takeAway(root);
          // Made again before live refresh reads the answer (the service answers first).
          queueMicrotask(() => {
            if (how !== "removed") Deno.removeSync(root); // the file that took its place
            Deno.mkdirSync(`${root}/one`, { recursive: true });
            Deno.writeTextFileSync(`${root}/one/SKILL.md`, skillMd("one", "Made again"));
          });
        },
      });
      await using refresh = await startRefresh(store, starter);
      assert.ok(isTaken, "the seam took the root away at the worst moment");
      await assertMadeAgainThenEdit(store, `${root}/one/SKILL.md`, "one", "root");
      assert.deepEqual(refresh.unwatched, []);
    });
  });
}

Deno.test("attack (s15 hX): a root checked and queued, removed before the tree's walk opens it and made again at once: its edits are served", async () => {
  await withBase("skillgate-hX-walk-", async (base) => {
    // Watched in this order (sorted): `a-root` is checked and queued, then `b-root` resolved.
    const [first, second] = [`${base}/a-root`, `${base}/b-root`];
    let isTaken = false;
    for (const [root, name] of [[first, "one"], [second, "two"]] as const) {
      Deno.mkdirSync(`${root}/${name}`, { recursive: true });
      Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, skillMd(name, "Before"));
    }
    const store = createCatalogStore(
      await buildCatalog(
        [{ path: first, from: "argument" }, { path: second, from: "argument" }],
        DEFAULT_CAPS,
      ),
    );
    const starter = directStarter([first, second], {
      afterResolve(path) {
        if (isTaken || path !== second) return;
        isTaken = true;
        Deno.removeSync(first, { recursive: true });
        queueMicrotask(() => {
          Deno.mkdirSync(`${first}/one`, { recursive: true });
          Deno.writeTextFileSync(`${first}/one/SKILL.md`, skillMd("one", "Made again"));
        });
      },
    });
    await using refresh = await startRefresh(store, starter);
    assert.ok(isTaken, "the seam took the root away at the worst moment");
    await assertMadeAgainThenEdit(store, `${first}/one/SKILL.md`, "one", "root");
    // The other root was watched all along.
    await assertEditServed(store, `${second}/two/SKILL.md`, "two", "the edit in the other root");
    assert.deepEqual(refresh.unwatched, []);
  });
});

Deno.test("attack (s15 hX): a linked skill's real folder (watched as its own path) removed between resolve and check, made again at once: its skill as made again and a later edit are served", async () => {
  await withBase("skillgate-hX-linked-", async (base) => {
    const root = `${base}/root`;
    const real = `${root}/.store/linked`;
    let isTaken = false;
    Deno.mkdirSync(real, { recursive: true });
    Deno.writeTextFileSync(`${real}/SKILL.md`, skillMd("linked", "Before"));
    Deno.symlinkSync(".store/linked", `${root}/linked`);
    const store = createCatalogStore(
      await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS),
    );
    assert.equal(store.current().byName.get("linked")?.realDir, real);
    const starter = directStarter([root], {
      afterResolve(path) {
        if (isTaken || path !== real) return;
        isTaken = true;
        Deno.removeSync(real, { recursive: true });
        queueMicrotask(() => {
          Deno.mkdirSync(real);
          Deno.writeTextFileSync(`${real}/SKILL.md`, skillMd("linked", "Made again"));
        });
      },
    });
    await using refresh = await startRefresh(store, starter);
    assert.ok(isTaken, "the seam took the folder away at the worst moment");
    assert.ok(refresh.watched.includes(real), "the real folder is watched as its own path");
    await assertMadeAgainThenEdit(store, `${real}/SKILL.md`, "linked", "folder");
    assert.deepEqual(refresh.unwatched, []);
  });
});

/**
 * A starter that relays the watch protocol between live refresh and
 * `inner`'s service, calling `onAsk` with each request before the service
 * gets it and `onAnswer` with each answer before live refresh gets it.
 */
function relayStarter(
  inner: WatchIsolateStarter,
  onAsk: (message: { type: string }) => void,
  onAnswer: (message: { type: string }) => void,
): WatchIsolateStarter {
  const ports: MessagePort[] = [];
  return {
    start(port, onEnded) {
      const relay = new MessageChannel();
      port.onmessage = (event) => {
        onAsk(event.data);
        relay.port1.postMessage(event.data);
      };
      relay.port1.onmessage = (event) => {
        onAnswer(event.data);
        port.postMessage(event.data);
      };
      ports.push(port, relay.port1);
      inner.start(relay.port2, onEnded);
    },
    stop() {
      for (const port of ports.splice(0)) port.close();
      return inner.stop();
    },
  };
}

Deno.test("attack (s15 hX): a root removed between live refresh's ask and the service's resolve, made again before the answer is read: its skill as made again and a later edit are served", async () => {
  await withBase("skillgate-hX-ask-", async (base) => {
    const root = `${base}/root`;
    let isTaken = false;
    let isBack = false;
    const lines: string[] = [];
    const store = await oneSkillStore(root);
    const starter = relayStarter(directStarter([root]), (message) => {
      if (isTaken || message.type !== "open-plan") return;
      isTaken = true;
      Deno.removeSync(root, { recursive: true });
    }, (message) => {
      if (isBack || !isTaken || message.type !== "opened") return;
      isBack = true;
      Deno.mkdirSync(`${root}/one`, { recursive: true });
      Deno.writeTextFileSync(`${root}/one/SKILL.md`, skillMd("one", "Made again"));
    });
    await withConsoleErrorTo(lines, async () => {
      await using refresh = await startRefresh(store, starter);
      assert.ok(isBack, "the root went before the service resolved it, and came back");
      await assertMadeAgainThenEdit(store, `${root}/one/SKILL.md`, "one", "root");
      assert.deepEqual(refresh.unwatched, []);
      assert.deepEqual(lines.filter((line) => /live refresh/.test(line)), []);
    });
  });
});

Deno.test("attack (s15 hX): a watched root swapped at once (moved away, a new one renamed into its place): the new root's skills and a later edit are served", async () => {
  await withBase("skillgate-hX-swap-", async (base) => {
    const root = `${base}/root`;
    const store = await oneSkillStore(root);
    await using refresh = await startRefresh(store, directStarter([root]));
    Deno.mkdirSync(`${base}/new/one`, { recursive: true });
    Deno.writeTextFileSync(`${base}/new/one/SKILL.md`, skillMd("one", "Swapped in"));
    Deno.renameSync(root, `${base}/old`);
    Deno.renameSync(`${base}/new`, root);
    await until("the swapped-in root read", () => description(store, "one") === "Swapped in");
    await assertEditServed(store, `${root}/one/SKILL.md`, "one", "the edit in the swapped-in root");
    assert.deepEqual(refresh.unwatched, []);
  });
});

Deno.test("attack (s15 hX): a listed file removed between the skill-file watcher's ask and the service's resolve is no loss: nothing said, the watch not split, edits served", async () => {
  await withBase("skillgate-hX-file-", async (base) => {
    const root = `${base}/root`;
    let isTaken = false;
    const lines: string[] = [];
    Deno.mkdirSync(`${root}/one`, { recursive: true });
    Deno.writeTextFileSync(`${root}/one/notes.md`, "notes");
    const store = await oneSkillStore(root);
    const starter = relayStarter(directStarter([root]), (message) => {
      const ask = message as { type: string; recursive?: boolean; paths?: string[] };
      if (isTaken || ask.type !== "open-one" || ask.recursive !== false) return;
      if (!ask.paths?.includes(`${root}/one/notes.md`)) return;
      isTaken = true;
      Deno.removeSync(`${root}/one/notes.md`);
    }, () => {});
    await withConsoleErrorTo(lines, async () => {
      await using refresh = await startRefresh(store, starter);
      assert.ok(isTaken, "the file went before the service resolved it");
      assert.deepEqual(refresh.unwatched, []);
      await assertEditServed(store, `${root}/one/SKILL.md`, "one", "the edit");
      assert.deepEqual(lines.filter((line) => /live refresh/.test(line)), []);
    });
  });
});
