/** The path gate's exact check: the opened descriptor must be the checked real path. */

import assert from "node:assert/strict";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { readBounded } from "../../src/files/bounded_read.ts";
import { type FdLocator, installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { PathRefusedError, resolveSkillFile } from "../../src/files/path_gate.ts";

Deno.test("locateDirectly() names the real file behind an open descriptor", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const file = join(dir, "a.txt");
    await Deno.writeTextFile(file, "x");
    await Deno.symlink(file, join(dir, "link.txt"));
    const fd = openSync(join(dir, "link.txt"), "r");
    try {
      assert.equal(await locateDirectly(fd), file);
    } finally {
      closeSync(fd);
    }
    assert.equal(await locateDirectly(-1), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readBounded() refuses a descriptor the kernel places anywhere but the checked path", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const lying: FdLocator = () => Promise.resolve("/somewhere/else.txt");
  try {
    await Deno.writeTextFile(join(dir, "a.txt"), "inside");
    const file = await resolveSkillFile(dir, "a.txt");
    installFdLocator(lying);
    await assert.rejects(
      () => readBounded(file, { maxBytes: 100 }),
      (error: unknown) => error instanceof PathRefusedError && error.code === "not-a-file",
    );
    installFdLocator(() => Promise.resolve(join(dir, "a.txt")));
    const read = await readBounded(file, { maxBytes: 100 });
    assert.equal(new TextDecoder().decode(read.bytes), "inside");
  } finally {
    installFdLocator(locateDirectly);
    await Deno.remove(dir, { recursive: true });
  }
});
