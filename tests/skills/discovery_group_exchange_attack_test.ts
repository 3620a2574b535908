/**
 * Session 10 (h10): discovery read roots and group folders by path
 * (`readdir`), so a process that can write inside a root could exchange a
 * group folder with a symlink to an outside folder (`renameat2` with
 * `RENAME_EXCHANGE`) while it was read and back after: the outside folder's
 * sub-folder names reached warnings (a bad name, a SKILL.md's letter case,
 * skill folders below the depth cap) and candidates (whose SKILL.md the gate
 * then refused). Now every folder discovery reads, and every folder a
 * rebuild reloads, is read through a descriptor the kernel places at exactly
 * its real path; nothing read anywhere else is used. No outside name may
 * appear in discovery's items, a built catalog's skills or problems, or a
 * rebuild's, in any phase of the exchange.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import {
  type FolderReader,
  installFolderReader,
  readFolderDirectly,
} from "../../src/files/fd_listing.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { discoverRoot } from "../../src/skills/discover.ts";
import { rebuildCatalog } from "../../src/skills/rebuild_catalog.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

/**
 * A root whose group folder `team` holds two skills, and beside it
 * `team.link`, a symlink to an outside folder whose every name says PRIVATE:
 * a skill folder, one with an unusable name, one whose SKILL.md has the wrong
 * case, an empty group, and a skill below the depth cap.
 */
async function rootAndOutside(): Promise<Tree> {
  const tree = await makeTree({
    "root/team/alpha/SKILL.md": skillMd("alpha", "Inside alpha"),
    "root/team/beta/SKILL.md": skillMd("beta", "Inside beta"),
    "root/solo/SKILL.md": skillMd("solo", "Inside solo"),
    "outside/PRIVATE-skill/SKILL.md": skillMd("PRIVATE-skill", "Outside"),
    "outside/PRIVATE bad%name/SKILL.md": skillMd("bad", "Outside"),
    "outside/PRIVATE-case/Skill.MD": skillMd("PRIVATE-case", "Outside"),
    "outside/PRIVATE-empty/PRIVATE-note.txt": "outside\n",
    "outside/PRIVATE-g1/PRIVATE-g2/PRIVATE-g3/PRIVATE-deep/SKILL.md": skillMd("deep", "Outside"),
  });
  Deno.symlinkSync(tree.at("outside"), tree.at("root/team.link"));
  return tree;
}

/** Exchanges two paths atomically (`renameat2(RENAME_EXCHANGE)` through FFI). */
function exchanger(): { exchange(a: string, b: string): void; close(): void } {
  const libc = Deno.dlopen("libc.so.6", {
    renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
  });
  const cString = (text: string) => new TextEncoder().encode(`${text}\0`);
  return {
    exchange(a, b) {
      const result = libc.symbols.renameat2(-100, cString(a), -100, cString(b), 2);
      assert.equal(result, 0, `renameat2 exchange of ${a} and ${b}`);
    },
    close: () => libc.close(),
  };
}

function assertNothingOutside(value: unknown, tree: Tree, context: string): void {
  const text = JSON.stringify(value);
  assert.ok(!text.includes("PRIVATE"), `${context}: an outside name appeared: ${text}`);
  assert.ok(!text.includes(tree.at("outside")), `${context}: the outside folder is named`);
}

const root = (tree: Tree) => ({ path: tree.at("root"), from: "argument" as const });

Deno.test({
  name:
    "attack: a group folder exchanged with a link to an outside folder around discovery's folder reads names no outside folder",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    await using tree = await rootAndOutside();
    const team = tree.at("root/team");
    const link = tree.at("root/team.link");
    const swap = exchanger();
    try {
      // Each phase: exchanged between the group's open and its read and back after it ("read");
      // exchanged after the root's read, so the group's open meets the link, and back once
      // discovery is done ("open"); or exchanged at one read and back at the next ("across").
      for (const phase of ["read", "open", "across"] as const) {
        let calls = 0;
        let attackedReads = 0;
        let isExchanged = false;
        const toggle = () => {
          swap.exchange(team, link);
          isExchanged = !isExchanged;
        };
        const reader: FolderReader = async (request) => {
          calls++;
          const isAttacked = Deno.readLinkSync(`/proc/self/fd/${request.fd}`) === team;
          if (isAttacked) attackedReads++;
          if (phase === "read" && isAttacked) toggle();
          if (phase === "across" && calls % 2 === 1) toggle();
          try {
            return await readFolderDirectly(request);
          } finally {
            if (phase === "read" && isExchanged) toggle();
            if (phase === "open" && calls === 1) toggle();
          }
        };
        installFolderReader(reader);
        try {
          const found = await discoverRoot(root(tree));
          if (isExchanged) toggle();
          assert.ok(calls > 1, `${phase}: discovery read its folders through the reader`);
          assertNothingOutside(found, tree, phase);
          if (phase === "read") {
            assert.equal(attackedReads, 1, "the group was read through its descriptor");
            assert.ok(
              found.items.some((item) =>
                item.kind === "problem" && item.problem.path === team &&
                item.problem.detail.includes("changed while it was read")
              ),
              `the group's change is reported: ${JSON.stringify(found.items)}`,
            );
          }
          const catalog = await buildCatalog([root(tree)], DEFAULT_CAPS);
          if (isExchanged) toggle();
          assertNothingOutside([catalog.skills, catalog.problems], tree, `${phase}, build`);
          // A rebuild reloads skills in place (each folder read again) and rescans the roots.
          const rebuilt = await rebuildCatalog(catalog, [team, tree.at("root/team/alpha")], {
            caps: DEFAULT_CAPS,
          });
          if (isExchanged) toggle();
          assertNothingOutside([rebuilt.catalog.skills, rebuilt.catalog.problems], tree, phase);
        } finally {
          installFolderReader(readFolderDirectly);
        }
      }
      // Undisturbed, the group's skills are found.
      const names = (await buildCatalog([root(tree)], DEFAULT_CAPS)).skills.map((s) => s.name);
      assert.deepEqual(names, ["alpha", "beta", "solo"]);
    } finally {
      swap.close();
    }
  },
});

Deno.test({
  name:
    "attack: a group folder exchanged with a link to an outside folder in a tight loop by another process never puts an outside name in discovery, a build or a rebuild",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    installFolderReader(readFolderDirectly);
    await using tree = await rootAndOutside();
    const exchangerProcess = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-ffi",
        new URL("../support/folder_exchanger.ts", import.meta.url).pathname,
        tree.at("root/team"),
        tree.at("root/team.link"),
        "8000",
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const done = exchangerProcess.output();
    let isRunning = true;
    void done.finally(() => isRunning = false);
    let rounds = 0;
    let changedSeen = 0;
    try {
      while (isRunning && rounds < 400) {
        rounds++;
        const found = await discoverRoot(root(tree));
        assertNothingOutside(found, tree, `discovery ${rounds}`);
        if (JSON.stringify(found).includes("changed while")) changedSeen++;
        if (rounds % 10 === 0) {
          const catalog = await buildCatalog([root(tree)], DEFAULT_CAPS);
          assertNothingOutside([catalog.skills, catalog.problems], tree, `build ${rounds}`);
          const rebuilt = await rebuildCatalog(catalog, [tree.at("root/team")], {
            caps: DEFAULT_CAPS,
          });
          assertNothingOutside(
            [rebuilt.catalog.skills, rebuilt.catalog.problems],
            tree,
            `rebuild ${rounds}`,
          );
        }
      }
    } finally {
      const output = await done;
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    }
    assert.ok(rounds > 0, "discovered at least once during the exchanges");
    // Not asserted (timing): how often discovery met an exchange. Printed for the record.
    console.log(`${rounds} discoveries during the exchanges; ${changedSeen} saw a folder change`);
  },
});
