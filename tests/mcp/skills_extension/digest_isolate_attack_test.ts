/**
 * Review r4's attacks on the digest isolate's answers as the serving worker
 * stores them (`digest_cache.ts`, `hashElsewhere`; issue 13).
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  attachIndexCache,
  createDigestCache,
} from "../../../src/mcp/skills_extension/digest_cache.ts";
import type { DigestSeen } from "../../../src/mcp/skills_extension/digest_messages.ts";
import { openIndexCache } from "../../../src/skills/index_cache.ts";
import type { SkillFile } from "../../../src/skills/skill.ts";
import { makeTree } from "../../skills/_tree.ts";

Deno.test("attack: a version the digest isolate read inside the racy window is not kept by the index cache, however late the worker stores it", async () => {
  await using tree = await makeTree({ "alpha/notes.md": "notes\n" });
  await using cacheDir = await makeTree({});
  // The real clock: the index cache judges a version racy when it is asked to store it.
  const index = openIndexCache(cacheDir.path, { rootsKey: "t", warn: () => {} });
  const dir = Deno.realPathSync(tree.at("alpha"));
  const info = Deno.lstatSync(`${dir}/notes.md`);
  // A version changed 5 s ago, that the isolate read 100 ms after that change: a rewrite of
  // the same size in the same clock tick as the change keeps every field of the version (on
  // this kernel one same-size rewrite in about seven right after a read did), so the digest of
  // those bytes may not be kept across restarts. The worker stores the answer seconds later
  // (a large build keeps it busy): by then the version looks settled.
  const ctimeMs = Date.now() - 5_000;
  const listed: SkillFile = {
    path: "notes.md",
    size: info.size,
    mtimeMs: ctimeMs,
    dev: info.dev,
    ino: info.ino,
    ctimeMs,
  };
  const seen: DigestSeen = {
    dev: info.dev,
    ino: info.ino,
    size: info.size,
    mtimeMs: ctimeMs,
    ctimeMs,
    digest: `sha256:${createHash("sha256").update("notes\n").digest("hex")}`,
    bytes: info.size,
    readAtMs: ctimeMs + 100,
  };
  attachIndexCache(index);
  try {
    const digests = createDigestCache();
    assert.equal(digests.hashElsewhere(dir, listed, Promise.resolve(seen)), true);
    const answer = await digests.digestListed(dir, listed);
    assert.equal(answer.found.digest, seen.digest);
    assert.equal(digests.hashed, 0, "the isolate's answer was used");
    assert.equal(
      index.lookupDigest(dir, "notes.md", { ...listed, dev: info.dev, ino: info.ino, ctimeMs }),
      null,
      "a digest of a version read inside the racy window is not stored for the next start",
    );
  } finally {
    attachIndexCache(null);
  }
});
