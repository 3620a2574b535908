/**
 * The index cache's file door (`_index_file.ts`): a cache file is read whole
 * into one buffer sized by its `fstat` (s18: Deno's `readFileSync` cost 55-65
 * ms for a 10,000-skill catalog's 7.3 MB parse file, on the warm start's
 * path), and anything but a regular file is refused as before.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readIndexFile } from "../../src/skills/_index_file.ts";

Deno.test("readIndexFile() returns a cache file's exact bytes, whatever its size", async () => {
  const dir = await Deno.makeTempDir({ prefix: "s18-index-file-" });
  try {
    for (const size of [0, 1, 4_095, 65_537, 3 * 1024 * 1024 + 7]) {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 31 + size) % 251;
      const path = `${dir}/file-${size}`;
      await Deno.writeFile(path, bytes);
      const read = readIndexFile(path);
      assert.ok(read instanceof Uint8Array, `size ${size}: bytes`);
      assert.equal(read.length, size);
      assert.deepEqual(read, bytes, `size ${size}: the same bytes`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readIndexFile() refuses a symlink or a folder as foreign, and a missing file is null", async () => {
  const dir = await Deno.makeTempDir({ prefix: "s18-index-file-" });
  try {
    await Deno.writeTextFile(`${dir}/secret`, "not the cache's");
    await Deno.symlink(`${dir}/secret`, `${dir}/link`);
    await Deno.mkdir(`${dir}/folder`);
    assert.equal(readIndexFile(`${dir}/link`), "foreign");
    assert.equal(readIndexFile(`${dir}/folder`), "foreign");
    assert.equal(readIndexFile(`${dir}/missing`), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
