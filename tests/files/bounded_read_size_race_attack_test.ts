/**
 * Review r5 of issue 13 (s10): `readBounded` no longer asks a second `pread`
 * when the first one comes short exactly at the open handle's `fstat` size.
 * The one moment between that `fstat` and the read is the descriptor-location
 * check, so a locator that changes the file there lets each race be replayed
 * exactly: a file that grows, shrinks or is rewritten after the handle's size
 * was taken must still be reported cut when it goes on, never return more
 * than the cap plus nothing, and never yield bytes of another file.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readBounded, readWhole } from "../../src/files/bounded_read.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { resolveSkillFile } from "../../src/files/path_gate.ts";

const decoder = new TextDecoder();

/** A temp skill folder (real path) removed on dispose. */
async function tempSkill(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_r5_" }));
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** Runs `body` with a locator that first does `change` (between the handle's fstat and the read). */
async function withChangeAfterFstat<T>(change: () => void, body: () => Promise<T>): Promise<T> {
  let changed = 0;
  installFdLocator((fd) => {
    if (changed++ === 0) change();
    return locateDirectly(fd);
  });
  try {
    return await body();
  } finally {
    installFdLocator(locateDirectly);
  }
}

Deno.test("attack: a file grown between the open's fstat and the read is reported cut, never whole", async () => {
  await using skill = await tempSkill();
  const path = join(skill.dir, "a.txt");
  await Deno.writeTextFile(path, "hello");
  const file = await resolveSkillFile(skill.dir, "a.txt");
  const read = await withChangeAfterFstat(
    () => Deno.writeTextFileSync(path, " and more", { append: true }),
    () => readBounded(file, { maxBytes: 1024 }),
  );
  assert.equal(decoder.decode(read.bytes), "hello");
  assert.equal(read.sizeBytes, 5);
  assert.equal(read.isTruncated, true, "the file went on past the handle's size");
});

Deno.test("attack: a file grown at an offset between fstat and the read is reported cut", async () => {
  await using skill = await tempSkill();
  const path = join(skill.dir, "a.txt");
  await Deno.writeTextFile(path, "0123456789");
  const file = await resolveSkillFile(skill.dir, "a.txt");
  const read = await withChangeAfterFstat(
    () => Deno.writeTextFileSync(path, "ABC", { append: true }),
    () => readBounded(file, { offsetBytes: 7, maxBytes: 100 }),
  );
  assert.equal(decoder.decode(read.bytes), "789");
  assert.equal(read.isTruncated, true);
});

Deno.test("attack: a file truncated between fstat and the read gives only the bytes still there", async () => {
  await using skill = await tempSkill();
  const path = join(skill.dir, "a.txt");
  await Deno.writeTextFile(path, "0123456789");
  const file = await resolveSkillFile(skill.dir, "a.txt");
  const read = await withChangeAfterFstat(
    () => Deno.truncateSync(path, 3),
    () => readBounded(file, { maxBytes: 100 }),
  );
  assert.equal(decoder.decode(read.bytes), "012");
  assert.equal(read.sizeBytes, 10);
  assert.equal(read.isTruncated, false);
  const whole = await withChangeAfterFstat(
    () => Deno.truncateSync(path, 1),
    () => readWhole(file, 100),
  );
  assert.equal(decoder.decode(whole), "0", "readWhole never returns bytes past the end");
});

Deno.test("attack: a file replaced by rename between fstat and the read still gives the opened file's bytes", async () => {
  await using skill = await tempSkill();
  const path = join(skill.dir, "a.txt");
  await Deno.writeTextFile(path, "original");
  await Deno.writeTextFile(join(skill.dir, "other.txt"), "SECRET-REPLACEMENT-LONGER");
  const file = await resolveSkillFile(skill.dir, "a.txt");
  // The handle stays on the opened inode; the kernel then names it "... (deleted)", and the
  // location check refuses: either way no byte of the replacement is returned.
  const outcome = await withChangeAfterFstat(
    () => Deno.renameSync(join(skill.dir, "other.txt"), path),
    () => readBounded(file, { maxBytes: 100 }).then((read) => decoder.decode(read.bytes), String),
  );
  assert.ok(!outcome.includes("SECRET"), outcome);
});
