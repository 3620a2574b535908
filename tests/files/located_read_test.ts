// Issue 13 (s13): the digest isolate reads a listed file by the gate's located open
// (`readLocatedInChunks`): no resolve walk before the open; the open handle's version; the
// descriptor's location decides. Every swap the resolve would have caught must be refused here
// too, and no outside byte may ever reach `consume`.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { FileTooLargeError, readLocatedInChunks } from "../../src/files/bounded_read.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { PathRefusedError } from "../../src/files/path_gate.ts";

/** `base/skill/{a.txt, sub/b.txt}` ("inside") and `base/outside/{a.txt, sub/b.txt}` ("SECRET"). */
async function tree(): Promise<{ base: string; skill: string; outside: string } & AsyncDisposable> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_located_" }));
  const skill = join(base, "skill");
  const outside = join(base, "outside");
  for (const dir of [skill, outside]) {
    await Deno.mkdir(join(dir, "sub"), { recursive: true });
    const text = dir === skill ? "inside" : "SECRET";
    await Deno.writeTextFile(join(dir, "a.txt"), text);
    await Deno.writeTextFile(join(dir, "sub", "b.txt"), text);
  }
  return {
    base,
    skill,
    outside,
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

/** Reads through the located open; returns what `consume` saw, or the error. */
async function readAll(
  dir: string,
  relPath: string,
  maxBytes = 1024,
): Promise<
  { text: string; error: unknown; read: Awaited<ReturnType<typeof readLocatedInChunks>> | null }
> {
  const chunks: Uint8Array[] = [];
  try {
    const read = await readLocatedInChunks(dir, relPath, maxBytes, (chunk) => {
      chunks.push(chunk.slice());
    });
    return { text: new TextDecoder().decode(concat(chunks)), error: null, read };
  } catch (error) {
    return { text: new TextDecoder().decode(concat(chunks)), error, read: null };
  }
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

const refusedAs = (code: PathRefusedError["code"]) => (error: unknown) =>
  error instanceof PathRefusedError && error.code === code;

Deno.test("readLocatedInChunks() reads a file whole under its open handle's version", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  for (const relPath of ["a.txt", "sub/b.txt"]) {
    const { text, error, read } = await readAll(t.skill, relPath);
    assert.equal(error, null);
    assert.equal(text, "inside");
    const info = Deno.lstatSync(join(t.skill, relPath));
    assert.deepEqual(read, {
      dev: info.dev,
      ino: info.ino,
      size: info.size,
      mtimeMs: info.mtime?.getTime() ?? null,
      ctimeMs: info.ctime?.getTime() ?? null,
      bytesRead: 6,
    });
  }
  // The bytes handed over are the file's: the same digest as hashing it directly.
  const hash = createHash("sha256");
  await readLocatedInChunks(t.skill, "a.txt", 1024, (chunk) => hash.update(chunk));
  assert.equal(hash.digest("hex"), createHash("sha256").update("inside").digest("hex"));
});

Deno.test("attack: a file swapped for a symlink to outside is refused by readLocatedInChunks() and no outside byte is read", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  await Deno.remove(join(t.skill, "a.txt"));
  await Deno.symlink(join(t.outside, "a.txt"), join(t.skill, "a.txt"));
  const { text, error } = await readAll(t.skill, "a.txt");
  assert.ok(error instanceof PathRefusedError, String(error));
  assert.equal(text, "");
  assert.ok(!String((error as Error).message).includes(t.base), "no host path in the message");
});

Deno.test("attack: a folder swapped for a symlink to outside is refused by readLocatedInChunks() (the kernel names where it led)", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  await Deno.rename(join(t.skill, "sub"), join(t.skill, "sub-old"));
  await Deno.symlink(join(t.outside, "sub"), join(t.skill, "sub"));
  const { text, error } = await readAll(t.skill, "sub/b.txt");
  assert.ok(error instanceof PathRefusedError, String(error));
  assert.equal(text, "");
});

Deno.test("readLocatedInChunks() serves a symlink to a served file inside the skill, as the gate does", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  await Deno.symlink("sub", join(t.skill, "linked-dir"));
  await Deno.symlink("a.txt", join(t.skill, "linked.txt"));
  for (const relPath of ["linked-dir/b.txt", "linked.txt"]) {
    const { text, error } = await readAll(t.skill, relPath);
    assert.equal(error, null);
    assert.equal(text, "inside");
  }
});

Deno.test("attack: a skill folder that is a symlink to outside is refused by readLocatedInChunks()", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  const link = join(t.base, "linked-skill");
  await Deno.symlink(t.outside, link);
  const { text, error } = await readAll(link, "a.txt");
  assert.ok(error instanceof PathRefusedError, String(error));
  assert.equal(text, "");
});

Deno.test("attack: a file swapped for a FIFO is refused by readLocatedInChunks() without blocking", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  await Deno.remove(join(t.skill, "a.txt"));
  const made = await new Deno.Command("mkfifo", { args: [join(t.skill, "a.txt")] }).output();
  assert.ok(made.success);
  const { error } = await readAll(t.skill, "a.txt");
  assert.ok(refusedAs("not-a-file")(error), String(error));
});

Deno.test("readLocatedInChunks() refuses paths the served-name rules refuse, and files over the cap", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  for (const relPath of ["../outside/a.txt", "/etc/passwd", "sub/../a.txt", ""]) {
    const { error } = await readAll(t.skill, relPath);
    assert.ok(refusedAs("bad-path")(error), `${relPath}: ${error}`);
  }
  const { error } = await readAll(t.skill, "a.txt", 3);
  assert.ok(error instanceof FileTooLargeError);
  const missing = await readAll(t.skill, "none.txt");
  assert.ok(refusedAs("not-found")(missing.error), String(missing.error));
  await assert.rejects(() => readLocatedInChunks("relative/dir", "a.txt", 10, () => {}), TypeError);
});

Deno.test("attack: where the locator answers null, readLocatedInChunks() takes the full gate, which refuses a folder swapped for a symlink", async () => {
  await using t = await tree();
  installFdLocator(() => Promise.resolve(null));
  try {
    const plain = await readAll(t.skill, "sub/b.txt");
    assert.equal(plain.error, null);
    assert.equal(plain.text, "inside");
    await Deno.rename(join(t.skill, "sub"), join(t.skill, "sub-old"));
    await Deno.symlink(join(t.outside, "sub"), join(t.skill, "sub"));
    const swapped = await readAll(t.skill, "sub/b.txt");
    assert.ok(swapped.error instanceof PathRefusedError, String(swapped.error));
    assert.equal(swapped.text, "");
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("attack: a file swapped for a symlink to outside in a loop while readLocatedInChunks() reads it never yields outside bytes", async () => {
  await using t = await tree();
  installFdLocator(locateDirectly);
  const target = join(t.skill, "sub");
  let isSwapping = true;
  const swapper = (async () => {
    for (let round = 0; isSwapping && round < 2_000; round++) {
      await Deno.rename(target, join(t.skill, "sub-real")).catch(() => {});
      await Deno.symlink(join(t.outside, "sub"), target).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 0));
      await Deno.remove(target).catch(() => {});
      await Deno.rename(join(t.skill, "sub-real"), target).catch(() => {});
    }
  })();
  for (let i = 0; i < 300; i++) {
    const { text, error } = await readAll(t.skill, "sub/b.txt");
    assert.ok(!text.includes("SECRET"), "outside bytes were read");
    if (error === null) {
      assert.equal(text, "inside");
    } else assert.ok(error instanceof PathRefusedError, String(error));
  }
  isSwapping = false;
  await swapper;
});
