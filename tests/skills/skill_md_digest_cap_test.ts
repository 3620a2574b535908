// Review r1 (issue 13): the catalog build stores SKILL.md's digest from the bytes its gated read
// took. That read stops at the cap plus one byte: a digest of cut bytes must never be stored,
// and the listing must give the whole file's digest whatever its size against the cap.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import {
  attachIndexCache,
  createDigestCache,
} from "../../src/mcp/skills_extension/digest_cache.ts";
import { skillEntries } from "../../src/mcp/skills_extension/entries.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { openIndexCache } from "../../src/skills/index_cache.ts";
import { makeTree, skillMd } from "./_tree.ts";

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
/** A clock far enough ahead that files written by the test are past the racy window. */
const later = () => Date.now() + 60_000;
const MAX_SKILL_MD_BYTES = 400;

Deno.test("attack: a SKILL.md at, just over and far over the read cap never gets a digest of its cut bytes", async () => {
  const texts = new Map<string, string>();
  for (const extra of [-1, 0, 1, 2, 3, 800]) {
    const name = `cap${extra < 0 ? "m1" : extra}`;
    const head = skillMd(name, "Near the cap", "");
    const text = head + "x".repeat(MAX_SKILL_MD_BYTES + extra - head.length);
    assert.equal(new TextEncoder().encode(text).length, MAX_SKILL_MD_BYTES + extra);
    texts.set(name, text);
  }
  await using tree = await makeTree(
    Object.fromEntries([...texts].map(([name, text]) => [`${name}/SKILL.md`, text])),
  );
  await using cacheDir = await makeTree({});
  const caps = { ...DEFAULT_CAPS, maxSkillMdBytes: MAX_SKILL_MD_BYTES };
  const cache = openIndexCache(cacheDir.path, { rootsKey: "r1-cap", now: later });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], caps, {
    indexCache: cache,
  });
  assert.equal(catalog.skills.length, texts.size);
  let storedWhole = 0;
  for (const skill of catalog.skills) {
    const listed = skill.files.find((file) => file.path === "SKILL.md");
    assert.ok(listed?.dev !== undefined && listed.ino !== undefined);
    const stored = cache.lookupDigest(skill.realDir, "SKILL.md", {
      dev: listed.dev,
      ino: listed.ino,
      size: listed.size,
      mtimeMs: listed.mtimeMs,
      ctimeMs: listed.ctimeMs ?? null,
    });
    const whole = texts.get(skill.name) as string;
    if (stored !== null) {
      assert.equal(
        stored.digest,
        sha256(whole),
        `${skill.name}: stored digest is the whole file's`,
      );
      storedWhole++;
    }
  }
  // Up to the cap plus one byte the build's read is whole, so those digests come from it.
  assert.equal(storedWhole, 3);
  attachIndexCache(cache);
  try {
    const entries = await skillEntries(catalog.skills, createDigestCache());
    catalog.skills.forEach((skill, index) => {
      const listedMd = entries[index]?.resources.find((item) => item.uri.endsWith("/SKILL.md"));
      assert.equal(listedMd?.digest, sha256(texts.get(skill.name) as string), skill.name);
    });
  } finally {
    attachIndexCache(null);
  }
});
