/**
 * s15 hX: a root (an asked folder) that is not where it resolved when the
 * watch arms it. A sub-folder gone is told by its watched parent's events;
 * a root has none, so the tree and the service must say it (`Gone`), never
 * answer a watch that holds nothing. Real inotify, real folders; the libc
 * the tree calls is the real one, wrapped where a move must land between
 * two of its calls.
 */

import assert from "node:assert/strict";
import { type TreeHarness, treeHarness } from "./_tree_harness.ts";
import type { Libc } from "../../../src/refresh/inotify/libc.ts";
import { GONE_WHY } from "../../../src/refresh/inotify/watch_tree.ts";
import { startWatchService } from "../../../src/refresh/inotify/watch_service.ts";
import type { FromWatchIsolate, ToWatchIsolate } from "../../../src/refresh/watch_messages.ts";

/**
 * Drops `h`'s first subscription and its reports, then subscribes its root again and settles,
 * with `h.libc[name]` wrapped meanwhile: `before` gets each call's arguments ahead of the real
 * call. The real function is put back after, even on a throw.
 */
function resubscribeWrapped<Name extends "addWatch" | "openAt">(
  h: TreeHarness,
  name: Name,
  before: (...args: Parameters<Libc[Name]>) => void,
): void {
  h.tree.unsubscribe(1);
  h.reports.length = 0;
  const libc = h.libc as { -readonly [K in keyof Libc]: Libc[K] };
  const real = libc[name] as (...args: Parameters<Libc[Name]>) => number;
  libc[name] = ((...args: Parameters<Libc[Name]>) => {
    before(...args);
    return real(...args);
  }) as Libc[Name];
  try {
    h.tree.subscribe(1, h.root, h.root);
    h.settle();
  } finally {
    libc[name] = real as Libc[Name];
  }
}

Deno.test("attack (s15 hX): a root removed before the tree's walk opens it is said Gone, not walked silently", async () => {
  await using h = await treeHarness();
  h.tree.unsubscribe(1);
  h.reports.length = 0;
  Deno.removeSync(h.root, { recursive: true });
  h.tree.subscribe(1, h.root, h.root);
  h.settle();
  assert.deepEqual(h.reports, [
    { type: "lost", path: h.root, detail: `.:${GONE_WHY}` },
    { type: "walked", path: h.root, detail: "" },
  ]);
  assert.deepEqual(h.watched(), []);
});

Deno.test("attack (s15 hX): a root moved away between the tree's open and its location check (another folder made in its place) is said Gone; nothing is watched", async () => {
  await using h = await treeHarness();
  let isMoved = false;
  resubscribeWrapped(h, "addWatch", (_fd, at) => {
    if (!isMoved && Deno.readLinkSync(at) === h.root) {
      isMoved = true;
      Deno.renameSync(h.root, `${h.outside}/moved-root`);
      Deno.mkdirSync(h.root);
    }
  });
  assert.ok(isMoved, "the root moved at the worst moment");
  assert.deepEqual(h.reports, [
    { type: "lost", path: h.root, detail: `.:${GONE_WHY}` },
    { type: "walked", path: h.root, detail: "" },
  ]);
  assert.deepEqual(h.watched(), [], "neither the moved folder nor the new one is watched");
});

Deno.test("attack (s15 hX): a sub-folder removed before its step opens it is not said (its watched parent's events tell it)", async () => {
  await using h = await treeHarness();
  let isRemoved = false;
  resubscribeWrapped(h, "openAt", (_dirFd, name) => {
    if (name === "sub" && !isRemoved) {
      isRemoved = true;
      Deno.removeSync(`${h.root}/skills/a/sub`);
    }
  });
  assert.ok(isRemoved, "the sub-folder went at the worst moment");
  assert.deepEqual(h.reports.filter((report) => report.type === "lost"), []);
  assert.ok(
    h.reports.some((report) => report.type === "change" && report.path.endsWith("/skills/a/sub")),
    "the parent's event names it",
  );
  assert.ok(h.watched().includes(`${h.root}/skills/a`));
});

/** Asks `paths` of a service over a port and returns its `opened` answer. */
async function ask(
  options: { afterResolve: (path: string) => void },
  allowed: string,
  message: ToWatchIsolate,
): Promise<FromWatchIsolate & { type: "opened" }> {
  const service = startWatchService(options);
  assert.ok(service, "inotify is used here");
  const channel = new MessageChannel();
  const detach = service.attach(channel.port2, [allowed]);
  try {
    return await new Promise((resolve) => {
      channel.port1.onmessage = (event: MessageEvent<FromWatchIsolate>) => {
        if (event.data.type === "opened") resolve(event.data);
      };
      channel.port1.postMessage(message);
    });
  } finally {
    detach();
    channel.port1.close();
    await service.close();
  }
}

Deno.test("attack (s15 hX): the service answers a folder asked for (open-plan, recursive open-one) that went after it resolved as lost Gone; a listed file that went gets no watch and no loss", async (t) => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-hX-service-" }));
  try {
    for (
      const [name, message] of [
        ["open-plan", { type: "open-plan", id: 1, paths: [], knownError: null }],
        ["recursive open-one", { type: "open-one", id: 1, paths: [], recursive: true }],
      ] as const
    ) {
      await t.step(`${name}: a folder removed between resolve and check`, async () => {
        const folder = `${base}/${name.replace(" ", "-")}`;
        Deno.mkdirSync(folder);
        const opened = await ask(
          { afterResolve: (path) => path === folder && Deno.removeSync(folder) },
          base,
          { ...message, paths: [folder] },
        );
        assert.deepEqual(opened.lost, [{ root: folder, folder: ".", why: GONE_WHY }]);
      });
    }
    await t.step(
      "flat open-one (the skill-file list): a file removed between resolve and check",
      async () => {
        const file = `${base}/SKILL.md`;
        Deno.writeTextFileSync(file, "x");
        const opened = await ask(
          { afterResolve: (path) => path === file && Deno.removeSync(file) },
          base,
          { type: "open-one", id: 1, paths: [file], recursive: false },
        );
        assert.deepEqual(opened.lost, []);
      },
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("attack (s15 hX): a folder asked for that is missing before the resolve is Gone only where its own entry is missing inside the roots; a dangling link, a path through a link out or under a missing parent stay NotCapable", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-hX-missing-" }));
  try {
    const missingRoot = `${base}/missing-root`;
    const first = await ask({ afterResolve: () => {} }, missingRoot, {
      type: "open-plan",
      id: 1,
      paths: [missingRoot, `${missingRoot}/missing-folder`],
      knownError: null,
    });
    assert.deepEqual(first.lost, [
      { root: missingRoot, folder: ".", why: GONE_WHY },
      { root: `${missingRoot}/missing-folder`, folder: ".", why: "NotCapable" },
    ]);
    const root = `${base}/root`;
    Deno.mkdirSync(root);
    Deno.mkdirSync(`${base}/outside`);
    Deno.symlinkSync(`${base}/outside/missing`, `${root}/dangling`);
    Deno.symlinkSync(`${base}/outside`, `${root}/out`);
    const second = await ask({ afterResolve: () => {} }, root, {
      type: "open-plan",
      id: 1,
      paths: [`${root}/gone`, `${root}/dangling`, `${root}/out/missing`],
      knownError: null,
    });
    assert.deepEqual(second.lost, [
      { root: `${root}/gone`, folder: ".", why: GONE_WHY },
      { root: `${root}/dangling`, folder: ".", why: "NotCapable" },
      { root: `${root}/out/missing`, folder: ".", why: "NotCapable" },
    ]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("attack (s15 hX): a watched root swapped by two renames (moved away, another renamed into its place) is watched again at once; the moved-away folder is not", async () => {
  await using h = await treeHarness();
  h.reports.length = 0;
  Deno.mkdirSync(`${h.outside}/new-root/skills/c`, { recursive: true });
  Deno.renameSync(h.root, `${h.outside}/old-root`);
  Deno.renameSync(`${h.outside}/new-root`, h.root);
  h.settle();
  assert.deepEqual(h.watched(), [h.root, `${h.root}/skills`, `${h.root}/skills/c`]);
  assert.ok(
    h.reports.some((r) => r.type === "change" && r.path === h.root && r.detail === "remove"),
  );
  assert.deepEqual(h.reports.filter((r) => r.type === "lost"), []);
  Deno.writeTextFileSync(`${h.root}/skills/c/SKILL.md`, "x");
  h.settle();
  assert.ok(
    h.reports.some((r) => r.type === "change" && r.path === `${h.root}/skills/c/SKILL.md`),
    "an edit in the new root is reported",
  );
});

Deno.test("attack (s15 hX): a watched root removed whole is walked again at once and, none there, said Gone", async () => {
  await using h = await treeHarness();
  h.reports.length = 0;
  Deno.removeSync(h.root, { recursive: true });
  h.settle();
  assert.deepEqual(h.watched(), []);
  assert.deepEqual(h.reports.filter((r) => r.type === "lost"), [
    { type: "lost", path: h.root, detail: `.:${GONE_WHY}` },
  ]);
});

Deno.test("the folder / asked flat (the owner files' nearest existing folder when every one above them is missing) is watched, not lost with EBADF", async () => {
  await using h = await treeHarness();
  h.reports.length = 0;
  h.tree.subscribe(2, "/", "/", true);
  h.settle();
  assert.deepEqual(h.reports.filter((report) => report.type === "lost"), []);
  assert.ok(h.watched().includes("/"), `/ is watched: ${JSON.stringify(h.watched())}`);
  h.tree.unsubscribe(2);
});
