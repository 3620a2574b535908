/**
 * Review r5: Deno 2.9.6 reports a file's change time in whole seconds
 * (`Deno.stat().ctime`, `fstat().ctimeMs`: the nanoseconds are dropped), and
 * an owner can put the modification time back (`utime`). An in-place edit that
 * keeps the size, made in the same second as the version a digest was read at,
 * therefore keeps every field of that version (device, inode, size, mtime,
 * ctime). The index cache never stores such a racy version (`RACY_WINDOW_MS`);
 * the in-memory digest cache must not either, or the digest of the earlier
 * bytes is listed for the new ones for as long as the process runs.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createDigestCache } from "../../src/mcp/skills_extension/digest_cache.ts";
import type { SkillFile } from "../../src/skills/skill.ts";
import { makeTree } from "./_tree.ts";

/** The version a listing takes of a file (`_list_files.ts`: one stat). */
function listed(path: string, rel: string): SkillFile {
  const info = Deno.statSync(path);
  return {
    path: rel,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? null,
    ctimeMs: info.ctime?.getTime() ?? null,
    dev: info.dev,
    ino: info.ino,
  };
}

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** Waits until at least 700 ms of the current wall-clock second are left. */
async function startOfSecond(): Promise<void> {
  while (Date.now() % 1000 > 300) {
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
  }
}

Deno.test("attack: an in-place edit in the same second as the hashed version (size kept, mtime put back) is not answered the earlier digest", async () => {
  await using tree = await makeTree({ "notes/data.txt": "AAAA-original" });
  const skillDir = await Deno.realPath(tree.at("notes"));
  const file = `${skillDir}/data.txt`;
  // No index cache attached: every digest is kept in memory (`--no-index-cache`).
  const cache = createDigestCache();
  // The edit must land in the second the hashed version's ctime names; under load a try can
  // miss it, so a few tries, each checking that precondition exactly.
  let attempt = 0;
  for (; attempt < 8; attempt++) {
    await startOfSecond();
    await Deno.writeTextFile(file, "AAAA-original");
    const before = listed(file, "data.txt");
    const first = await cache.digest(skillDir, before);
    assert.equal(first.digest, sha256("AAAA-original"));
    const handle = await Deno.open(file, { write: true });
    await handle.write(new TextEncoder().encode("BBBB-replaced"));
    handle.close();
    const info = Deno.statSync(file);
    await Deno.utime(file, info.atime ?? new Date(), new Date(before.mtimeMs!));
    const after = listed(file, "data.txt");
    if (JSON.stringify(after) !== JSON.stringify(before)) continue;
    // Every field of the version is the same, the bytes are not: the listing after the edit
    // (a live refresh lists the same version) must get the digest of what is there now.
    const again = await cache.digest(skillDir, after);
    assert.equal(await Deno.readTextFile(file), "BBBB-replaced");
    assert.equal(again.digest, sha256("BBBB-replaced"), "the earlier bytes' digest was listed");
    break;
  }
  assert.ok(attempt < 8, "no try kept every field of the version (clock or file system differ)");
});
