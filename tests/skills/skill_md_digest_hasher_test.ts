// Issue 13: a small catalog's cold build hashes SKILL.md with crypto.subtle (node:crypto is not
// loaded before the first answer); after SUBTLE_DIGESTS_MAX digests it switches to node:crypto.
// Both must give the very digest SEP-2640 defines, for any bytes, on either side of the switch.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256Hex, SUBTLE_DIGESTS_MAX } from "../../src/skills/_read_skill_md.ts";

Deno.test("sha256Hex() gives node:crypto's SHA-256 before and after it switches hashers", async () => {
  // A fresh instance of the module: its count of crypto.subtle digests starts at zero.
  const fresh = await import("../../src/skills/_read_skill_md.ts?hasher-test");
  const hex = fresh.sha256Hex as typeof sha256Hex;
  const sizes = [0, 1, 55, 56, 63, 64, 65, 4_096, 70_000];
  for (let index = 0; index < SUBTLE_DIGESTS_MAX + sizes.length * 2; index++) {
    const bytes = new Uint8Array(sizes[index % sizes.length]!);
    for (let at = 0; at < bytes.length; at++) bytes[at] = (at * 31 + index) & 0xff;
    const expected = createHash("sha256").update(bytes).digest("hex");
    assert.equal(await hex(bytes), expected, `digest ${index} (${bytes.length} bytes)`);
  }
  // The subarray of a larger buffer is hashed, not the buffer behind it.
  const backing = new Uint8Array(100).fill(7);
  const view = backing.subarray(10, 20);
  assert.equal(await sha256Hex(view), createHash("sha256").update(view).digest("hex"));
});
