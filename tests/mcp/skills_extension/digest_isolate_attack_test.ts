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

Deno.test("attack: a version the digest isolate read inside the racy window is held neither by the index cache nor in memory, however late the worker stores it", async () => {
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
    // Nor held in memory (review r5's rule for the worker's own reads): a same-tick rewrite
    // would otherwise be answered these bytes' digest for the rest of the process.
    assert.equal(answer.isListed, false, "no skill entry may be memoized from a racy read");
    assert.equal(digests.holds(dir, listed), false);
    assert.equal(digests.listedDigest(dir, listed), null);
  } finally {
    attachIndexCache(null);
  }
});

/**
 * Hashes every file of a tree of skills in a fresh process, the digest
 * isolate's way (`isolate`: `hashThroughGate`) or the worker's listing
 * (`worker`: `skillEntries`), and prints how far its peak RSS rose, in MiB.
 */
const PEAK_PROBE = `
import { hashThroughGate } from "${new URL(
  "../../../src/mcp/skills_extension/digest_files.ts",
  import.meta.url,
)}";
import { skillEntries } from "${new URL(
  "../../../src/mcp/skills_extension/entries.ts",
  import.meta.url,
)}";
import { createDigestCache } from "${new URL(
  "../../../src/mcp/skills_extension/digest_cache.ts",
  import.meta.url,
)}";
import { buildCatalog } from "${new URL("../../../src/skills/catalog.ts", import.meta.url)}";
import { DEFAULT_CAPS } from "${new URL("../../../src/caps.ts", import.meta.url)}";
const [mode, root] = Deno.args;
const peakMiB = () =>
  Number(/VmHWM:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))?.[1]) / 1024;
const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
const before = peakMiB();
let hashed = 0;
if (mode === "isolate") {
  const files = catalog.skills.flatMap((skill) =>
    skill.files.map((file) => ({ dir: skill.realDir, path: file.path }))
  );
  hashed = (await hashThroughGate(files)).filter((seen) => seen !== null).length;
} else {
  const entries = await skillEntries(catalog.skills, createDigestCache());
  hashed = entries.flatMap((entry) => entry.resources).length;
}
console.log(JSON.stringify({ hashed, riseMiB: peakMiB() - before }));
`;

Deno.test({
  name:
    "attack: sparse 16 MB files in many skills (no disk cost) are never all held at once by the digest isolate or the worker",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const SKILLS = 80;
    await using tree = await makeTree(
      Object.fromEntries(
        Array.from({ length: SKILLS }, (_, index) => {
          const name = `big-${String(index).padStart(2, "0")}`;
          return [
            [`${name}/SKILL.md`, `---\nname: ${name}\ndescription: Big ${index}\n---\n`],
            [`${name}/data.bin`, ""],
          ];
        }).flat(),
      ),
    );
    // Each just under the extension's 16 MiB per skill, so every skill is listed and hashed.
    for (let index = 0; index < SKILLS; index++) {
      await Deno.truncate(tree.at(`big-${String(index).padStart(2, "0")}/data.bin`), 16_000_000);
    }
    await using probeDir = await makeTree({ "peak_probe.ts": PEAK_PROBE });
    for (const mode of ["isolate", "worker"]) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--cached-only",
          "--config",
          new URL("../../../deno.json", import.meta.url).pathname,
          probeDir.at("peak_probe.ts"),
          mode,
          tree.path,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      const { hashed, riseMiB } = JSON.parse(new TextDecoder().decode(output.stdout));
      assert.equal(hashed, SKILLS * 2, mode);
      // Read whole: 80 files of 15 MiB at once (~1.2 GiB). In chunks: one 256 KiB buffer.
      assert.ok(riseMiB < 256, `${mode}: peak RSS rose by ${riseMiB.toFixed(0)} MiB`);
    }
  },
});
