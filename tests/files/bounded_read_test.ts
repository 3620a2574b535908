import assert from "node:assert/strict";
import { join } from "node:path";
import { FileTooLargeError, readBounded, readWhole } from "../../src/files/bounded_read.ts";
import {
  PathRefusedError,
  type ResolvedFile,
  resolveSkillFile,
} from "../../src/files/path_gate.ts";

const MIB = 1024 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A temp skill folder (real path) removed on dispose. */
async function tempSkill(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_read_" }));
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

async function writeAndResolve(dir: string, name: string, text: string): Promise<ResolvedFile> {
  await Deno.writeTextFile(join(dir, name), text);
  return await resolveSkillFile(dir, name);
}

async function refusalOf(promise: Promise<unknown>): Promise<PathRefusedError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  if (!(error instanceof PathRefusedError)) throw new Error(`Expected a refusal, got ${error}`);
  return error;
}

Deno.test("readBounded() returns a small file whole and untruncated", async () => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "a.txt", "hello");
  const read = await readBounded(file, { maxBytes: 1024 });
  assert.equal(decoder.decode(read.bytes), "hello");
  assert.deepEqual([read.offsetBytes, read.sizeBytes, read.isTruncated], [0, 5, false]);
});

Deno.test("readBounded() cuts at maxBytes and flags the truncation", async (t) => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "a.txt", "0123456789");
  const cases: [number, number, string, boolean][] = [
    // [offsetBytes, maxBytes, expected text, isTruncated]
    [0, 4, "0123", true],
    [0, 10, "0123456789", false],
    [0, 9, "012345678", true],
    [0, 0, "", true],
    [3, 4, "3456", true],
    [6, 4, "6789", false],
    [9, 4, "9", false],
    [10, 4, "", false],
    [10, 0, "", false],
  ];
  for (const [offsetBytes, maxBytes, text, isTruncated] of cases) {
    await t.step(`offset ${offsetBytes}, max ${maxBytes}`, async () => {
      const read = await readBounded(file, { offsetBytes, maxBytes });
      assert.equal(decoder.decode(read.bytes), text);
      assert.equal(read.isTruncated, isTruncated);
      assert.equal(read.offsetBytes, offsetBytes);
      assert.equal(read.sizeBytes, 10);
    });
  }
});

Deno.test("readBounded() refuses an offset past the end and bad counts with RangeError", async () => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "a.txt", "abc");
  await assert.rejects(() => readBounded(file, { offsetBytes: 4, maxBytes: 1 }), {
    name: "RangeError",
    message: `Offset 4 is past the end of "a.txt" (3 bytes)`,
  });
  for (const bad of [-1, 1.5, Number.NaN, Infinity, 2 ** 53]) {
    await assert.rejects(() => readBounded(file, { maxBytes: bad }), RangeError);
    await assert.rejects(() => readBounded(file, { offsetBytes: bad, maxBytes: 1 }), RangeError);
  }
});

Deno.test("readBounded() on a sparse 256 MiB file returns only maxBytes", async () => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "sparse.bin", "head");
  await Deno.truncate(join(skill.dir, "sparse.bin"), 256 * MIB);
  const read = await readBounded(file, { maxBytes: MIB });
  assert.equal(read.bytes.length, MIB);
  assert.equal(read.sizeBytes, 256 * MIB);
  assert.equal(read.isTruncated, true);
  assert.equal(decoder.decode(read.bytes.subarray(0, 4)), "head");
  const tail = await readBounded(file, { offsetBytes: 256 * MIB - 10, maxBytes: MIB });
  assert.deepEqual([tail.bytes.length, tail.isTruncated], [10, false]);
});

Deno.test("readBounded() refuses a file swapped for another between resolve and open", async () => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "a.txt", "original");
  // Written first, then renamed over: both exist at once, so the inode differs.
  await Deno.writeTextFile(join(skill.dir, "b.txt"), "swapped");
  await Deno.rename(join(skill.dir, "b.txt"), join(skill.dir, "a.txt"));
  const error = await refusalOf(readBounded(file, { maxBytes: 100 }));
  assert.equal(error.code, "not-a-file");
  assert.equal(error.message, `File "a.txt" changed after it was checked`);
});

Deno.test("readBounded() refuses a file swapped for a FIFO without blocking", async () => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "a.txt", "original");
  const fifo = join(skill.dir, "fifo");
  assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  await Deno.rename(fifo, join(skill.dir, "a.txt"));
  const error = await refusalOf(readBounded(file, { maxBytes: 100 }));
  assert.equal(error.code, "not-a-file");
});

Deno.test("readBounded() refuses a file swapped for a symlink out of the skill", async () => {
  await using skill = await tempSkill();
  await using outside = await tempSkill();
  await Deno.writeTextFile(join(outside.dir, "secret.txt"), "TOP SECRET");
  const file = await writeAndResolve(skill.dir, "a.txt", "original");
  await Deno.symlink(join(outside.dir, "secret.txt"), join(skill.dir, "link"));
  await Deno.rename(join(skill.dir, "link"), join(skill.dir, "a.txt"));
  const error = await refusalOf(readBounded(file, { maxBytes: 100 }));
  assert.equal(error.code, "not-a-file");
  assert.ok(!error.message.includes(outside.dir) && !error.message.includes(skill.dir));
});

Deno.test("readBounded() reports a file deleted after resolve as not-found", async () => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "a.txt", "x");
  await Deno.remove(join(skill.dir, "a.txt"));
  const error = await refusalOf(readBounded(file, { maxBytes: 100 }));
  assert.equal(error.code, "not-found");
  assert.equal(error.message, `File "a.txt" does not exist`);
});

Deno.test("readBounded() and readWhole() refuse a fabricated ResolvedFile", async () => {
  const fake = {
    relPath: "passwd",
    realPath: "/etc/passwd",
    size: 1,
    mtimeMs: null,
    dev: 0,
    ino: 0,
  } as unknown as ResolvedFile;
  await assert.rejects(() => readBounded(fake, { maxBytes: 10 }), TypeError);
  await assert.rejects(() => readWhole(fake, 10), TypeError);
});

Deno.test("readWhole() returns the exact bytes up to and including the cap", async () => {
  await using skill = await tempSkill();
  const bytes = encoder.encode("exactly twenty bytes");
  await Deno.writeFile(join(skill.dir, "a.bin"), bytes);
  const file = await resolveSkillFile(skill.dir, "a.bin");
  assert.deepEqual(await readWhole(file, 20), bytes);
  assert.deepEqual(await readWhole(file, 1000), bytes);
  const empty = await writeAndResolve(skill.dir, "empty.txt", "");
  assert.equal((await readWhole(empty, 0)).length, 0);
});

Deno.test("readWhole() refuses a file over the cap with FileTooLargeError", async () => {
  await using skill = await tempSkill();
  const file = await writeAndResolve(skill.dir, "big.txt", "x".repeat(21));
  const error = await readWhole(file, 20).then(() => null, (e: unknown) => e);
  assert.ok(error instanceof FileTooLargeError);
  assert.ok(error instanceof RangeError);
  assert.deepEqual([error.relPath, error.sizeBytes, error.maxBytes], ["big.txt", 21, 20]);
  assert.equal(error.message, `File "big.txt" is 21 bytes, over the cap of 20 bytes`);
  await Deno.truncate(join(skill.dir, "big.txt"), 256 * MIB);
  await assert.rejects(() => readWhole(file, MIB), FileTooLargeError);
});
