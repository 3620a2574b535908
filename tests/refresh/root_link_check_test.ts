/**
 * Session 16: a root reached through a symlink that is re-pointed (a
 * deploy's `current` link) gives no event (its watch is on the folder it led
 * to), and the serving worker may read only what the roots led to at start.
 * `startRootLinkCheck` resolves such roots again and tells each move once;
 * live refresh then reads the root again and discovery names the restart.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  type MovedRoot,
  movedRootLine,
  type RootLinkCheck,
  type RootLinkCheckOptions,
  startRootLinkCheck,
} from "../../src/refresh/root_link_check.ts";

/** Starts a check whose moves are collected, in order, in `moves`. */
function collectMoves(
  options: Omit<RootLinkCheckOptions, "onMoved">,
): { moves: MovedRoot[]; check: RootLinkCheck } {
  const moves: MovedRoot[] = [];
  const check = startRootLinkCheck({ ...options, onMoved: (moved) => moves.push(moved) });
  return { moves, check };
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

Deno.test("startRootLinkCheck() tells each move of a linked root once, and never checks a plain root", async () => {
  const leads = new Map([["/srv/current", "/srv/v1"], ["/plain", "/plain"]]);
  const asked: string[] = [];
  const { moves, check } = collectMoves({
    roots: ["/srv/current", "/plain"],
    intervalMs: 10,
    realPath: (path) => {
      asked.push(path);
      return leads.get(path) ?? null;
    },
    canRead: (path) => path === "/srv/v1",
    isFolder: () => true,
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(moves.length, 0, "nothing moved");
    leads.set("/srv/current", "/srv/v2");
    await until("the move told", () => moves.length === 1);
    assert.deepEqual(moves[0], {
      path: "/srv/current",
      wasReal: "/srv/v1",
      nowReal: "/srv/v2",
      isReadable: false,
      isFolder: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(moves.length, 1, "told once");
    leads.delete("/srv/current");
    await until("the dangling link told", () => moves.length === 2);
    assert.equal(moves[1]?.nowReal, null);
    assert.equal(
      asked.filter((path) => path === "/plain").length,
      1,
      "a plain root: once, at start",
    );
  } finally {
    check.stop();
  }
});

Deno.test("movedRootLine() says where the root leads and that a place outside the start's needs a restart", () => {
  const base = { path: "/srv/current", wasReal: "/srv/v1", isFolder: true };
  assert.match(
    movedRootLine({ ...base, nowReal: "/srv/v2", isReadable: false }),
    /"\/srv\/current" now leads to "\/srv\/v2" \(it led to "\/srv\/v1"\).*restart skillgate to serve it/,
  );
  assert.match(movedRootLine({ ...base, nowReal: "/srv/v1/sub", isReadable: true }), /read again/);
  assert.match(movedRootLine({ ...base, nowReal: null, isReadable: false }), /leads nowhere now/);
});

Deno.test("startRootLinkCheck() tells at once a linked root that already leads where this isolate may not read (moved before the watch)", async () => {
  const { moves, check } = collectMoves({
    roots: ["/srv/current"],
    intervalMs: 60_000,
    realPath: () => "/srv/v2",
    canRead: () => false,
    isFolder: () => true,
  });
  try {
    await until("the early move told", () => moves.length === 1);
    assert.deepEqual(moves[0], {
      path: "/srv/current",
      wasReal: null,
      nowReal: "/srv/v2",
      isReadable: false,
      isFolder: true,
    });
    assert.match(movedRootLine(moves[0]!), /not where it led when this server started/);
  } finally {
    check.stop();
  }
});

Deno.test("attack: a root link re-pointed at a file is not told that a restart serves it", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "r16-root-link-file-" }));
  try {
    await Deno.mkdir(`${dir}/v1`);
    await Deno.writeTextFile(`${dir}/afile`, "not a folder");
    await Deno.symlink("v1", `${dir}/current`);
    const { moves, check } = collectMoves({
      roots: [`${dir}/current`],
      intervalMs: 10,
      canRead: (path) => path === `${dir}/v1`,
    });
    try {
      await Deno.remove(`${dir}/current`);
      await Deno.symlink("afile", `${dir}/current`);
      await until("the move told", () => moves.length === 1);
      assert.equal(moves[0]?.isFolder, false);
      const line = movedRootLine(moves[0]!);
      assert.match(line, /not served until it leads to a folder/);
      assert.doesNotMatch(line, /restart skillgate/);
    } finally {
      check.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a root link re-pointed (rm, then ln) in the instant the check starts is still told; one that became a plain folder is read again, once", async () => {
  // CI s17: the check resolved the root between `rm current` and `ln -s v2 current`, got nothing,
  // and never looked again, so the owner was never told that a restart serves the new place.
  // Review r18 L1: `rm current; mkdir current` in that instant was dropped without a word, and the
  // old target's skills stayed served.
  const leads = new Map<string, string>();
  const asked: string[] = [];
  const { moves, check } = collectMoves({
    roots: ["/srv/current", "/srv/other"],
    intervalMs: 10,
    realPath: (path) => {
      asked.push(path);
      return leads.get(path) ?? null;
    },
    canRead: (path) => path === "/srv/v1" || path === "/srv/other",
    isFolder: () => true,
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(moves.length, 0, "nothing told while both lead nowhere");
    leads.set("/srv/current", "/srv/v2");
    await until("the re-point told", () => moves.length === 1);
    assert.deepEqual(moves[0], {
      path: "/srv/current",
      wasReal: null,
      nowReal: "/srv/v2",
      isReadable: false,
      isFolder: true,
    });
    assert.match(movedRootLine(moves[0]!), /now leads to "\/srv\/v2".*restart skillgate/);
    leads.set("/srv/other", "/srv/other");
    await until("the plain folder told", () => moves.length === 2);
    assert.deepEqual(moves[1], {
      path: "/srv/other",
      wasReal: null,
      nowReal: "/srv/other",
      isReadable: true,
      isFolder: true,
    });
    assert.match(
      movedRootLine(moves[1]!),
      /"\/srv\/other" is a plain folder now \(it led nowhere a moment ago\); it is read again/,
    );
    const plainAsked = asked.filter((path) => path === "/srv/other").length;
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(
      asked.filter((path) => path === "/srv/other").length,
      plainAsked,
      "a plain folder is resolved no more",
    );
    leads.set("/srv/current", "/srv/v1");
    await until("the return told", () => moves.length === 3);
    assert.equal(moves[2]?.isReadable, true);
    assert.match(movedRootLine(moves[2]!), /it is read again/);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(moves.length, 3, "each move told once");
  } finally {
    check.stop();
  }
});

Deno.test("startRootLinkCheck() stops its timer once every root left is plain", async () => {
  let looks = 0;
  const leads = new Map<string, string>();
  const check = startRootLinkCheck({
    roots: ["/plain-later"],
    onMoved: () => {},
    intervalMs: 5,
    realPath: (path) => {
      looks++;
      return leads.get(path) ?? null;
    },
    canRead: () => true,
    isFolder: () => true,
  });
  try {
    await until("a few looks", () => looks >= 3);
    leads.set("/plain-later", "/plain-later");
    const before = looks;
    await until("the folder seen", () => looks > before);
    const settled = looks;
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(looks, settled, "no look after the last root turned out plain");
  } finally {
    check.stop();
  }
});

Deno.test("movedRootLine() does not say a root that led nowhere and now leads where the server may read was moved from its start", () => {
  const line = movedRootLine({
    path: "/srv/current",
    wasReal: null,
    nowReal: "/srv/v1",
    isReadable: true,
    isFolder: true,
  });
  assert.match(line, /it led nowhere before\); it is read again/);
  assert.doesNotMatch(line, /not where it led/);
});

Deno.test("a root re-pointed before the check started is told at its first look, against where it led at the server's start", async () => {
  // CI s17, review r18 L1/L2: the check's own look at its start could meet the link mid-`rm`/`ln`
  // and take the wrong baseline; where the root led when the worker's read set was computed is
  // exact.
  const { moves, check } = collectMoves({
    roots: ["/srv/current", "/srv/same", "/plain", "/gone-at-start"],
    realsAtStart: new Map<string, string | null>([
      ["/srv/current", "/srv/v1"],
      ["/srv/same", "/srv/v1"],
      ["/plain", "/plain"],
      ["/gone-at-start", null],
    ]),
    intervalMs: 60_000,
    realPath: (path) =>
      path === "/srv/current" ? "/srv/v2" : path === "/srv/same" ? "/srv/v1" : null,
    canRead: (path) => path === "/srv/v1",
    isFolder: () => true,
  });
  try {
    await until("the early move told", () => moves.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual(moves, [{
      path: "/srv/current",
      wasReal: "/srv/v1",
      nowReal: "/srv/v2",
      isReadable: false,
      isFolder: true,
    }], "only the re-pointed root, with where it led at start; the unmoved one says nothing");
    assert.match(movedRootLine(moves[0]!), /it led to "\/srv\/v1"\).*restart skillgate/);
  } finally {
    check.stop();
  }
});

Deno.test("a root that was a link at the server's start and is a plain folder now is read again", async () => {
  const { moves, check } = collectMoves({
    roots: ["/srv/current"],
    realsAtStart: new Map([["/srv/current", "/srv/v1"]]),
    intervalMs: 60_000,
    realPath: (path) => path,
    canRead: (path) => path === "/srv/v1" || path === "/srv/current",
    isFolder: () => true,
  });
  try {
    await until("the move told", () => moves.length === 1);
    assert.deepEqual(moves[0], {
      path: "/srv/current",
      wasReal: "/srv/v1",
      nowReal: "/srv/current",
      isReadable: true,
      isFolder: true,
    });
    assert.match(
      movedRootLine(moves[0]!),
      /"\/srv\/current" is a plain folder now \(it led to "\/srv\/v1"\); it is read again/,
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(moves.length, 1, "told once, then checked no more (review r18b L2)");
  } finally {
    check.stop();
  }
});

Deno.test("a root that was a plain folder at the server's start and is a link by the time the check starts is checked (review r18b M1)", async () => {
  // A first deploy (`mv current v1; ln -s v1 current`) between the start-up check and live
  // refresh: its later re-points must be told, as before start-time baselines.
  const leads = new Map([["/srv/current", "/srv/v1"]]);
  const { moves, check } = collectMoves({
    roots: ["/srv/current"],
    realsAtStart: new Map([["/srv/current", "/srv/current"]]),
    intervalMs: 10,
    realPath: (path) => leads.get(path) ?? null,
    canRead: (path) => path === "/srv/current",
    isFolder: () => true,
  });
  try {
    await until("the first move told", () => moves.length === 1);
    assert.deepEqual(moves[0], {
      path: "/srv/current",
      wasReal: "/srv/current",
      nowReal: "/srv/v1",
      isReadable: false,
      isFolder: true,
    });
    leads.set("/srv/current", "/srv/v2");
    await until("the re-point told", () => moves.length === 2);
    assert.equal(moves[1]?.wasReal, "/srv/v1");
    assert.equal(moves[1]?.nowReal, "/srv/v2");
  } finally {
    check.stop();
  }
});

Deno.test("a look that meets a re-pointed link between rm and ln keeps where it led for the next line (review r18b L1)", async () => {
  let answers = ["/srv/v1", null, "/srv/v2", null, "/srv/v2"] as (string | null)[];
  const { moves, check } = collectMoves({
    roots: ["/srv/current"],
    realsAtStart: new Map([["/srv/current", "/srv/v1"]]),
    intervalMs: 5,
    realPath: () => {
      const [first, ...rest] = answers;
      if (rest.length > 0) answers = rest;
      return first ?? null;
    },
    canRead: (path) => path === "/srv/v1",
    isFolder: () => true,
  });
  try {
    await until("four moves told", () => moves.length === 4);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual(moves.map((moved) => [moved.wasReal, moved.nowReal]), [
      ["/srv/v1", null],
      ["/srv/v1", "/srv/v2"],
      ["/srv/v2", null],
      ["/srv/v2", "/srv/v2"],
    ]);
    assert.match(movedRootLine(moves[1]!), /now leads to "\/srv\/v2" \(it led to "\/srv\/v1"\)/);
    assert.match(movedRootLine(moves[3]!), /leads to "\/srv\/v2" again; restart skillgate/);
  } finally {
    check.stop();
  }
});
