/**
 * Review r16, A5: every part's permission on the sources cache is exactly
 * this configuration's sources' `<key>` folders, so the trusted part makes
 * them before any part starts (`makeSourceFolders`), under the cache's trust
 * rule and without following a link: Deno's permissions are lexical, so a
 * symlink at `<key>` would hand the fetcher write (and the worker read) of
 * wherever it points.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { makeSourceFolders } from "../../src/remote/sources_cache.ts";

const KEYS = ["acme-skills-0123456789abcdef", "other-repo-fedcba9876543210"];

async function withCache(body: (base: string, cache: string) => Promise<void>): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: "source-folders-" });
  try {
    const cache = join(base, "cache");
    await Deno.mkdir(cache, { mode: 0o700 });
    await Deno.chmod(cache, 0o700);
    await body(base, cache);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("makeSourceFolders() makes each source's folder as a real folder no other user may write, and accepts one already made", async () => {
  await withCache(async (_base, cache) => {
    const folders = KEYS.map((key) => join(cache, key));
    await Deno.mkdir(folders[0]!, { mode: 0o755 });
    assert.equal(await makeSourceFolders(folders), null);
    for (const folder of folders) {
      const info = await Deno.lstat(folder);
      assert.ok(info.isDirectory && !info.isSymlink, folder);
      assert.equal((info.mode ?? 0) & 0o022, 0, "no other user may write it");
    }
    assert.deepEqual([...Deno.readDirSync(cache)].map((entry) => entry.name).sort(), KEYS);
  });
});

Deno.test("attack: a source's folder that is a symlink is refused by the trusted part, never followed, the place it points to untouched", async () => {
  await withCache(async (base, cache) => {
    const owner = join(base, "owner-notes");
    await Deno.mkdir(owner);
    await Deno.writeTextFile(join(owner, "thesis.md"), "mine");
    await Deno.symlink(owner, join(cache, KEYS[0]!));
    const problem = await makeSourceFolders(KEYS.map((key) => join(cache, key)));
    assert.ok(problem !== null);
    assert.match(problem, new RegExp(`${KEYS[0]} is not a folder \\(or is a symlink\\)`));
    assert.deepEqual([...Deno.readDirSync(owner)].map((entry) => entry.name), ["thesis.md"]);
  });
});

Deno.test("attack: a source's folder other users may write is refused (the cache's trust rule, per folder)", async () => {
  await withCache(async (_base, cache) => {
    const folder = join(cache, KEYS[1]!);
    await Deno.mkdir(folder);
    await Deno.chmod(folder, 0o777);
    const problem = await makeSourceFolders([folder]);
    assert.equal(problem, `${folder} may be written by other users`);
  });
});
