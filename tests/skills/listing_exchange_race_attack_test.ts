/**
 * Review r10: the listing read each folder by path (`readdir`), then checked
 * it with an `lstat` after its walk. A process that can write inside a root
 * exchanges a skill's sub-folder with a symlink to an outside folder
 * (`renameat2` with `RENAME_EXCHANGE`) just before the `readdir` and back
 * before the check: the check passes, and the outside folder's file names,
 * sizes and mtimes were listed as the skill's. Now each folder is opened
 * no-follow and read through its descriptor, and its location must be
 * exactly the folder's real path; no outside name, size or mtime may ever be
 * listed, in any phase of the exchange, nor be named in a problem.
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
import { type FileListing, listSkillFiles } from "../../src/skills/_list_files.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { discoverRoot, type SkillCandidate } from "../../src/skills/discover.ts";
import type { SkillFile } from "../../src/skills/skill.ts";
import { makeTree, skillMd, type Tree } from "./_tree.ts";

const OUTSIDE_SIZE = 777;
const OUTSIDE_MTIME_MS = Date.UTC(2001, 0, 1);

/**
 * A root whose skill `s` has several sub-folders (so folder reads fall in
 * every phase of an exchange) and, beside each, a link to an outside folder
 * holding files named PRIVATE-... of size 777 and mtime 2001-01-01.
 */
async function rootAndOutside(): Promise<Tree> {
  const entries: Record<string, string | { symlink: string }> = {
    "root/s/SKILL.md": skillMd("s", "Inside"),
    "root/s/notes.md": "inside notes\n",
    "outside/refs/PRIVATE-key-name.txt": "x".repeat(OUTSIDE_SIZE),
    "outside/refs/guide.md": "y".repeat(OUTSIDE_SIZE),
    "outside/refs/PRIVATE-sub/PRIVATE-deeper.txt": "z".repeat(OUTSIDE_SIZE),
  };
  for (const folder of ["a", "b", "references"]) {
    entries[`root/s/${folder}/guide.md`] = `inside ${folder}\n`;
    entries[`root/s/${folder}/deeper/more.md`] = `more ${folder}\n`;
  }
  const tree = await makeTree(entries);
  for (const path of ["refs/PRIVATE-key-name.txt", "refs/guide.md"]) {
    const date = new Date(OUTSIDE_MTIME_MS);
    Deno.utimeSync(tree.at(`outside/${path}`), date, date);
  }
  for (const folder of ["a", "b", "references"]) {
    Deno.symlinkSync(tree.at("outside/refs"), tree.at(`root/s/${folder}.link`));
  }
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

async function candidateOf(tree: Tree): Promise<SkillCandidate> {
  const found = await discoverRoot({ path: tree.at("root"), from: "argument" });
  const candidate =
    found.items.flatMap((item) => item.kind === "candidate" ? [item.candidate] : [])[0];
  assert.ok(candidate !== undefined);
  return candidate;
}

function assertNothingOutside(listing: FileListing, tree: Tree, context: string): void {
  const text = JSON.stringify(listing);
  assert.ok(!text.includes("PRIVATE"), `${context}: an outside name was listed: ${text}`);
  assert.ok(!text.includes(tree.at("outside")), `${context}: an outside path is named`);
  for (const file of listing.files) {
    assert.notEqual(file.size, OUTSIDE_SIZE, `${context}: an outside size was listed`);
    assert.notEqual(file.mtimeMs, OUTSIDE_MTIME_MS, `${context}: an outside mtime was listed`);
  }
}

const skillMdEntry: SkillFile = { path: "SKILL.md", size: 1, mtimeMs: null };

Deno.test({
  name:
    "attack: a sub-folder exchanged with a link to an outside folder around each folder read lists no outside name, size or mtime",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    await using tree = await rootAndOutside();
    const candidate = await candidateOf(tree);
    const swap = exchanger();
    try {
      for (const folder of ["a", "b", "references"]) {
        const real = tree.at(`root/s/${folder}`);
        const link = tree.at(`root/s/${folder}.link`);
        // Each phase: exchanged between the attacked folder's open and its read and back after
        // it ("read"); exchanged after its parent's read, so its open meets the link, and back
        // once the listing is done ("open"); or exchanged at one read and back at the next,
        // whatever folder ("across": the opens and reads in between all see the link).
        for (const phase of ["read", "open", "across"] as const) {
          let calls = 0;
          let isExchanged = false;
          const toggle = () => {
            swap.exchange(real, link);
            isExchanged = !isExchanged;
          };
          const readFolder: FolderReader = async (request) => {
            calls++;
            const isAttacked = Deno.readLinkSync(`/proc/self/fd/${request.fd}`) === real;
            if (phase === "read" && isAttacked) toggle();
            if (phase === "across" && calls % 2 === 1) toggle();
            try {
              return await readFolderDirectly(request);
            } finally {
              if (phase === "read" && isExchanged) toggle();
              if (phase === "open" && calls === 1) toggle();
            }
          };
          const listing = await listSkillFiles(candidate, skillMdEntry, DEFAULT_CAPS, {
            readFolder,
          });
          if (isExchanged) toggle();
          assert.ok(calls > 1, "more than one folder was read");
          assertNothingOutside(listing, tree, `${folder}, ${phase}`);
          assert.ok(listing.files.some((file) => file.path === "notes.md"), "notes.md listed");
          if (phase !== "across") {
            // Its open met the link ("open"), or the folder it holds sits under the link's name
            // while it is read ("read": the exchange moved it): its location is not its path, so
            // nothing of it is listed, and the change is reported.
            assert.ok(
              !listing.files.some((file) => file.path.startsWith(`${folder}/`)),
              `${phase}: ${JSON.stringify(listing.files.map((file) => file.path))}`,
            );
            assert.ok(listing.problems.some((p) => p.path === real), `${folder} reported`);
          }
        }
      }
    } finally {
      swap.close();
    }
  },
});

Deno.test({
  name:
    "attack: a sub-folder exchanged with a link to an outside folder in a tight loop by another process never lists an outside name, size or mtime",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    installFolderReader(readFolderDirectly);
    await using tree = await rootAndOutside();
    const candidate = await candidateOf(tree);
    // The r8 swapper exchanges `references` with `references.link` (to OUTSIDE/refs) 200 times
    // a round, for the time given, and leaves the folder in place.
    await Deno.remove(tree.at("root/s/references.link"));
    const swapper = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-ffi",
        new URL("../support/r8_swapper.ts", import.meta.url).pathname,
        tree.at("root"),
        tree.at("outside"),
        "6000",
        "+s",
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const done = swapper.output();
    let isRunning = true;
    void done.finally(() => isRunning = false);
    let listings = 0;
    let changedSeen = 0;
    try {
      while (isRunning && listings < 2_000) {
        const listing = await listSkillFiles(candidate, skillMdEntry, DEFAULT_CAPS);
        assertNothingOutside(listing, tree, `listing ${listings}`);
        if (listing.problems.some((p) => p.detail.includes("changed while"))) changedSeen++;
        listings++;
        // The whole build's way too: discovery, SKILL.md through the gate, the listing.
        if (listings % 20 === 0) {
          const catalog = await buildCatalog([{ path: tree.at("root"), from: "argument" }], {
            ...DEFAULT_CAPS,
          });
          const text = JSON.stringify([catalog.skills, catalog.problems]);
          assert.ok(!text.includes("PRIVATE"), `a built catalog listed an outside name: ${text}`);
        }
      }
    } finally {
      const output = await done;
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    }
    assert.ok(listings > 0, "listed at least once during the exchanges");
    // Not asserted (timing): how often a listing met an exchange. Printed for the record.
    console.log(`${listings} listings during the exchanges; ${changedSeen} saw a folder change`);
  },
});
