import assert from "node:assert/strict";
import { join } from "node:path";
import { FileTooLargeError, readWhole, readWholeInChunks } from "../../src/files/bounded_read.ts";
import { PathRefusedError, resolveSkillFile } from "../../src/files/path_gate.ts";

/** A temp skill folder (real path) and an outside folder, removed on dispose. */
async function tempDirs(): Promise<{ dir: string; outside: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_chunks_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_chunks_out_" }));
  return {
    dir,
    outside,
    [Symbol.asyncDispose]: async () => {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

Deno.test("readWholeInChunks() hands exactly readWhole()'s bytes, in order, in bounded chunks", async () => {
  await using dirs = await tempDirs();
  const bytes = new Uint8Array(600 * 1024 + 7).map((_, index) => (index * 31) % 251);
  await Deno.writeFile(join(dirs.dir, "a.bin"), bytes);
  const file = await resolveSkillFile(dirs.dir, "a.bin");
  const chunks: Uint8Array[] = [];
  const size = await readWholeInChunks(
    file,
    16 * 1024 * 1024,
    (chunk) => chunks.push(chunk.slice()),
  );
  assert.equal(size, bytes.length);
  assert.ok(chunks.length >= 3 && chunks.every((chunk) => chunk.length <= 256 * 1024));
  const joined = new Uint8Array(size);
  chunks.reduce((at, chunk) => (joined.set(chunk, at), at + chunk.length), 0);
  assert.deepEqual(joined, await readWhole(await resolveSkillFile(dirs.dir, "a.bin"), size));
  await Deno.writeFile(join(dirs.dir, "empty"), new Uint8Array());
  const empty = await resolveSkillFile(dirs.dir, "empty");
  assert.equal(await readWholeInChunks(empty, 0, () => assert.fail("no chunk")), 0);
});

Deno.test("attack: readWholeInChunks() refuses a file over the cap and one swapped for a link to outside, handing no byte", async () => {
  await using dirs = await tempDirs();
  await Deno.writeTextFile(join(dirs.dir, "big.txt"), "x".repeat(100));
  const big = await resolveSkillFile(dirs.dir, "big.txt");
  await assert.rejects(
    readWholeInChunks(big, 99, () => assert.fail("no chunk")),
    FileTooLargeError,
  );
  await Deno.writeTextFile(join(dirs.outside, "secret.txt"), "outside secret");
  await Deno.writeTextFile(join(dirs.dir, "a.txt"), "inside");
  const file = await resolveSkillFile(dirs.dir, "a.txt");
  await Deno.remove(join(dirs.dir, "a.txt"));
  await Deno.symlink(join(dirs.outside, "secret.txt"), join(dirs.dir, "a.txt"));
  await assert.rejects(
    readWholeInChunks(file, 1024, () => assert.fail("no chunk of outside bytes")),
    PathRefusedError,
  );
});
