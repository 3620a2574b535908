/**
 * A second process for the index cache's sharing test: opens the cache
 * folder given, stores digests for `count` shared keys (each tagged with
 * this writer's byte) and writes the cache, `rounds` times.
 * Usage: `_index_cache_writer.ts DIR TAG_BYTE COUNT ROUNDS`.
 *
 * @module
 */

import { openIndexCache } from "../../src/skills/index_cache.ts";

const [dir, tagText, countText, roundsText] = Deno.args;
const tag = Number(tagText);
const count = Number(countText);
for (let round = 0; round < Number(roundsText); round++) {
  const cache = openIndexCache(dir ?? null, {
    rootsKey: "shared-roots",
    now: () => Date.now() + 60_000,
  });
  for (let i = 0; i < count; i++) {
    cache.rememberDigest("/skills/shared", `file-${i}.md`, {
      dev: 1,
      ino: i,
      size: 10,
      mtimeMs: 1_000,
      ctimeMs: 1_000,
    }, { digest: `sha256:${tag.toString(16).padStart(2, "0").repeat(32)}`, size: 10 });
  }
  cache.flush();
}
