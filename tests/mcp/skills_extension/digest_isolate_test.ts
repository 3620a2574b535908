import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { isolateEntryUrl } from "../../../src/entry_points.ts";
import {
  createDigestCache,
  type DigestCache,
} from "../../../src/mcp/skills_extension/digest_cache.ts";
import {
  createDigestHelper,
  type DigestHelper,
  type DigestParentPort,
} from "../../../src/mcp/skills_extension/digest_helper.ts";
import {
  type DigestReplyMessage,
  parseDigestJob,
  parseDigestReply,
} from "../../../src/mcp/skills_extension/digest_messages.ts";
import {
  extensionView,
  skillEntries,
  type SkillEntry,
} from "../../../src/mcp/skills_extension/entries.ts";
import { createDigestIsolateHost } from "../../../src/sandbox/digest_isolate_host.ts";
import { digestIsolatePermissions } from "../../../src/sandbox/worker_permissions.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { RACY_WINDOW_MS } from "../../../src/skills/index_cache.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/**
 * The trusted part's side for a test: a parent port that starts the real
 * digest isolate (the product's entry module, read-the-roots-only set) with
 * the host `main.ts` uses, and relays `digest-isolate-ended` to the helper.
 */
function trustedParent(roots: readonly string[], entry = isolateEntryUrl("digests")) {
  const permissions = digestIsolatePermissions(
    roots.map((path) => ({ path, realPath: Deno.realPathSync(path) })),
  ).permissions;
  const host = createDigestIsolateHost(entry, permissions);
  const target = new EventTarget();
  const parent: DigestParentPort = {
    postMessage(message) {
      if (message.type === "digest-isolate") {
        host.start(message.port, (ended) => {
          target.dispatchEvent(new MessageEvent("message", { data: ended }));
        });
      }
      if (message.type === "digest-isolate-stop") host.stop();
    },
    addEventListener: (type, listener) => target.addEventListener(type, listener as EventListener),
    removeEventListener: (type, listener) =>
      target.removeEventListener(type, listener as EventListener),
  };
  return { parent, host };
}

/** Builds the catalog, offering each loaded skill to the helper as the worker does. */
async function buildWithHelper(root: string, helper: DigestHelper): Promise<Catalog> {
  const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS, {
    onLoaded: (skill) => helper.offer(skill),
  });
  helper.finish();
  return catalog;
}

/** Resolves once the isolate was ended (every job answered), polling; at most 20 s. */
async function untilEnded(host: { readonly isRunning: boolean }): Promise<void> {
  for (let waited = 0; host.isRunning && waited < 20_000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(host.isRunning, false, "the digest isolate was not ended once its work was done");
}

/**
 * Waits until files just written are past the racy window: a digest of a version changed
 * within `RACY_WINDOW_MS` of its read is held nowhere (review r5), so it would be read again.
 */
async function pastRacyWindow(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 100));
}

function manifest(entries: readonly SkillEntry[]): string[] {
  return entries.flatMap((entry) =>
    entry.resources.map((file) => `${file.uri} ${file.digest} ${file.size}`)
  );
}

Deno.test("digest isolate: the digests of a cold build equal the worker's own, and the isolate computed them", async () => {
  const files: Record<string, string> = {};
  for (let index = 0; index < 12; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`.repeat(index + 1);
    files[`${name}/scripts/run.sh`] = `echo ${index}\n`;
    files[`${name}/assets/templates/a.txt`] = "";
  }
  await using tree = await makeTree(files);
  await pastRacyWindow();
  const { parent, host } = trustedParent([tree.path]);
  const cache = createDigestCache();
  const helper = createDigestHelper(cache, parent);
  const catalog = await buildWithHelper(tree.path, helper);
  // Listed once the isolate answered everything (a page that comes earlier reads what is left).
  await untilEnded(host);
  const skills = extensionView(catalog).skills;
  const listed = await skillEntries(skills, cache);
  const own = await skillEntries(skills, createDigestCache());
  assert.deepEqual(manifest(listed), manifest(own));
  assert.equal(manifest(listed).length, 48);
  assert.ok(
    manifest(listed).includes(
      `skill://skill-03/references/guide.md ${sha256("guide 3\n".repeat(4))} 32`,
    ),
  );
  // Every file went to the isolate (nothing listed yet while it was built), none was read here.
  assert.equal(helper.sent, 48);
  assert.equal(cache.hashedElsewhere, 48);
  assert.equal(cache.hashed, 0);
  assert.equal(helper.hasFailed, false);
});

Deno.test("digest isolate: a listing during the build shares the files left with the isolate, each hashed once", async () => {
  const files: Record<string, string> = {};
  for (let index = 0; index < 40; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`;
  }
  await using tree = await makeTree(files);
  await pastRacyWindow();
  const { parent, host } = trustedParent([tree.path]);
  const cache = createDigestCache();
  const helper = createDigestHelper(cache, parent, { batchFiles: 4, batchesInFlight: 1 });
  const catalog = await buildWithHelper(tree.path, helper);
  const skills = extensionView(catalog).skills;
  const listed = await skillEntries(skills, cache);
  await untilEnded(host);
  assert.deepEqual(manifest(listed), manifest(await skillEntries(skills, createDigestCache())));
  assert.ok(helper.sent > 0);
  assert.equal(cache.hashedElsewhere + cache.hashed, 80);
});

Deno.test("attack: a file swapped for a symlink to outside while the digest isolate hashes it is never listed with outside bytes", async () => {
  const secret = "outside secret\n";
  await using outside = await makeTree({ "guide.md": secret, "references/guide.md": secret });
  const files: Record<string, string> = {};
  const count = 24;
  for (let index = 0; index < count; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`;
    files[`${name}/notes.md`] = `notes ${index}\n`;
  }
  await using tree = await makeTree(files);
  const secretDigest = sha256(secret);
  const deadline = Date.now() + 30_000;
  // Bounded: 40 rounds or 30 s. Each round builds, starts the isolate, and swaps while it hashes.
  for (let round = 0; round < 40 && Date.now() < deadline; round++) {
    const { parent, host } = trustedParent([tree.path]);
    const cache = createDigestCache();
    const helper = createDigestHelper(cache, parent);
    const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
    const skills = extensionView(catalog).skills;
    for (const skill of skills) helper.offer(skill);
    helper.finish();
    // Swap while the isolate reads: a file for a link to an outside file, and a folder on the
    // way for a link to an outside folder holding a file of the same name.
    for (let index = round % 2; index < count; index += 2) {
      const name = `skill-${String(index).padStart(2, "0")}`;
      const notes = tree.at(`${name}/notes.md`);
      const references = tree.at(`${name}/references`);
      await Deno.rename(notes, `${notes}.away`);
      await Deno.symlink(outside.at("guide.md"), notes);
      await Deno.rename(references, `${references}.away`);
      await Deno.symlink(outside.at("references"), references);
    }
    const entries = await skillEntries(skills, cache, { logsLeftOut: false });
    assert.ok(
      entries.every((entry) => entry.resources.every((file) => file.digest !== secretDigest)),
      `round ${round}: a manifest carries the outside bytes' digest`,
    );
    // A file the listing found refused may still go to the isolate once; it ends when answered.
    await untilEnded(host);
    // Put everything back for the next round.
    for (let index = round % 2; index < count; index += 2) {
      const name = `skill-${String(index).padStart(2, "0")}`;
      const notes = tree.at(`${name}/notes.md`);
      const references = tree.at(`${name}/references`);
      await Deno.remove(notes);
      await Deno.rename(`${notes}.away`, notes);
      await Deno.remove(references);
      await Deno.rename(`${references}.away`, references);
    }
  }
});

Deno.test("attack: the digest isolate reads nothing outside the roots, even for a folder it is told is a skill", async () => {
  await using outside = await makeTree({ "secret.txt": "outside secret\n" });
  await using tree = await makeTree({ "alpha/SKILL.md": skillMd("alpha", "First") });
  const { parent, host } = trustedParent([tree.path]);
  const { port1, port2 } = new MessageChannel();
  const reply = new Promise<DigestReplyMessage | null>((resolve) => {
    port1.onmessage = (event) => {
      // (Its heartbeats aside.)
      if (event.data?.type !== "digest-alive") resolve(parseDigestReply(event.data, 2));
    };
  });
  parent.postMessage({ type: "digest-isolate", port: port2 }, [port2]);
  port1.postMessage({
    type: "digest-files",
    id: 1,
    files: [
      { dir: Deno.realPathSync(outside.path), path: "secret.txt" },
      { dir: Deno.realPathSync(tree.path), path: "alpha/SKILL.md" },
    ],
  });
  const answer = await reply;
  port1.close();
  host.stop();
  assert.notEqual(answer, null);
  // The gate alone would accept the first (it is told that folder is the skill): the isolate's
  // permission set (the roots, read only) refuses it.
  assert.equal(answer!.results[0], null);
  assert.equal(answer!.results[1]?.digest, sha256(skillMd("alpha", "First")));
});

Deno.test("digest isolate: one that fails ends with one warning and every digest is computed in the worker", async () => {
  const files: Record<string, string> = {
    // A module the isolate can load (inside the root it may read) that throws at once.
    "broken_entry.ts": 'throw new Error("digest isolate broken on purpose");\n',
  };
  for (let index = 0; index < 6; index++) {
    const name = `skill-${index}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`;
  }
  await using tree = await makeTree(files);
  const { parent, host } = trustedParent(
    [tree.path],
    new URL(`file://${Deno.realPathSync(tree.at("broken_entry.ts"))}`),
  );
  const warnings: string[] = [];
  const cache: DigestCache = createDigestCache();
  const helper = createDigestHelper(cache, parent, { warn: (line) => warnings.push(line) });
  const catalog = await buildWithHelper(tree.path, helper);
  const skills = extensionView(catalog).skills;
  const listed = await skillEntries(skills, cache);
  assert.deepEqual(manifest(listed), manifest(await skillEntries(skills, createDigestCache())));
  assert.equal(manifest(listed).length, 12);
  assert.equal(helper.hasFailed, true);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /digest isolate failed.*computed in the serving worker instead/);
  assert.equal(cache.hashedElsewhere, 0);
  assert.equal(cache.hashed, 12);
  assert.equal(host.isRunning, false);
});

Deno.test("attack: a digest isolate whose thread stops (alive, then blocked) is given up on its silence, not its 20 s reply timeout, and the page's digests are computed in the worker", async () => {
  const files: Record<string, string> = {
    // Says it is alive as the real one does, then blocks its thread on the first job.
    "hung_entry.js": [
      'self.addEventListener("message", (event) => {',
      "  const port = event.data?.port;",
      "  if (!(port instanceof MessagePort)) return;",
      '  port.postMessage({ type: "digest-alive" });',
      "  port.onmessage = () => { for (;;) { /* a thread that never answers again */ } };",
      "});",
      "",
    ].join("\n"),
  };
  for (let index = 0; index < 6; index++) {
    const name = `skill-${index}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`;
  }
  await using tree = await makeTree(files);
  const { parent, host } = trustedParent(
    [tree.path],
    new URL(`file://${Deno.realPathSync(tree.at("hung_entry.js"))}`),
  );
  const warnings: string[] = [];
  const cache: DigestCache = createDigestCache();
  // The reply timeout far out of reach: only the silence rule can end the wait.
  const helper = createDigestHelper(cache, parent, {
    warn: (line) => warnings.push(line),
    replyTimeoutMs: 600_000,
  });
  const catalog = await buildWithHelper(tree.path, helper);
  const skills = extensionView(catalog).skills;
  let guard: ReturnType<typeof setTimeout> | undefined;
  const listed = await Promise.race([
    skillEntries(skills, cache),
    new Promise<never>((_, reject) => {
      guard = setTimeout(
        () => reject(new Error("the page still waits on the hung isolate")),
        120_000,
      );
    }),
  ]).finally(() => clearTimeout(guard));
  assert.deepEqual(manifest(listed), manifest(await skillEntries(skills, createDigestCache())));
  assert.equal(manifest(listed).length, 12);
  assert.equal(helper.hasFailed, true);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /digest isolate stopped answering \(no sign of life for 3000 ms\)/);
  assert.match(warnings[0]!, /computed in the serving worker instead/);
  assert.equal(cache.hashedElsewhere, 0);
  await untilEnded(host);
});

Deno.test("digest isolate: a malformed answer is not used (the worker reads those files itself)", () => {
  const seen = {
    dev: 1,
    ino: 2,
    size: 3,
    mtimeMs: 4,
    ctimeMs: 5,
    digest: sha256("abc"),
    bytes: 3,
    readAtMs: 6,
  };
  const reply = { type: "digest-files-reply", id: 7, results: [seen, null] };
  assert.deepEqual(parseDigestReply(reply, 2), reply);
  assert.equal(parseDigestReply(reply, 3), null);
  assert.equal(
    parseDigestReply({ ...reply, results: [{ ...seen, digest: "sha256:XYZ" }, null] }),
    null,
  );
  assert.equal(parseDigestReply({ ...reply, results: [{ ...seen, size: -1 }, null] }), null);
  assert.equal(parseDigestReply({ ...reply, id: "7" }), null);
  assert.equal(parseDigestJob({ type: "digest-files", id: 1, files: [{ dir: "/a" }] }), null);
  assert.notEqual(
    parseDigestJob({ type: "digest-files", id: 1, files: [{ dir: "/a", path: "b" }] }),
    null,
  );
});

Deno.test("digestIsolatePermissions() reads the roots (as given and real) and nothing else", async () => {
  await using tree = await makeTree({});
  const set = digestIsolatePermissions([{
    path: tree.path,
    realPath: Deno.realPathSync(tree.path),
  }]);
  const { permissions } = set;
  assert.deepEqual(
    [...new Set(permissions.read)].sort(),
    [...new Set([tree.path, Deno.realPathSync(tree.path)])].sort(),
  );
  for (const kind of ["write", "run", "net", "env", "sys", "ffi"] as const) {
    assert.deepEqual(permissions[kind], [], kind);
  }
  for (const path of permissions.read) assert.match(set.reasons[`read:${path}`] ?? "", /path gate/);
});

Deno.test("digest isolate: a start the worker finds warm starts none and looks no digest up during the build", async () => {
  const files: Record<string, string> = {};
  for (let index = 0; index < 5; index++) {
    files[`skill-${index}/SKILL.md`] = skillMd(`skill-${index}`, `Skill ${index}`);
    files[`skill-${index}/notes.md`] = `notes ${index}\n`;
  }
  await using tree = await makeTree(files);
  let started = 0;
  const parent: DigestParentPort = {
    postMessage(message) {
      if (message.type === "digest-isolate") started++;
    },
    addEventListener: () => {},
    removeEventListener: () => {},
  };
  const cache = createDigestCache();
  let asked = 0;
  const helper = createDigestHelper(cache, parent, {
    decideAfterSkills: 3,
    isWorthStarting: () => {
      asked++;
      return false;
    },
  });
  const catalog = await buildWithHelper(tree.path, helper);
  assert.equal(asked, 1);
  assert.equal(started, 0);
  assert.equal(helper.sent, 0);
  const listed = await skillEntries(extensionView(catalog).skills, cache);
  assert.equal(manifest(listed).length, 10);
  assert.equal(cache.hashed, 10);
});
