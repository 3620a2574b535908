// Issue 13 (s13): once the digest isolate is used, it lists each skill folder with the build's
// own walk and hashes the files in the same pass (`listRemotely`, `digest_listing.ts`). The
// catalog must be exactly the worker's own, and no swap during that pass may list outside
// bytes or names.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type Caps, DEFAULT_CAPS } from "../../../src/caps.ts";
import { isolateEntryUrl } from "../../../src/entry_points.ts";
import { createDigestCache } from "../../../src/mcp/skills_extension/digest_cache.ts";
import {
  createDigestHelper,
  type DigestHelper,
  type DigestParentPort,
} from "../../../src/mcp/skills_extension/digest_helper.ts";
import { parseListJob, parseListReply } from "../../../src/mcp/skills_extension/digest_messages.ts";
import {
  extensionView,
  skillEntries,
  type SkillEntry,
} from "../../../src/mcp/skills_extension/entries.ts";
import {
  listAndHashSkills,
  MAX_LISTING_HANDLES,
} from "../../../src/mcp/skills_extension/digest_listing.ts";
import { installFdLocator, locateDirectly } from "../../../src/files/fd_location.ts";
import { createDigestIsolateHost } from "../../../src/sandbox/digest_isolate_host.ts";
import { digestIsolatePermissions } from "../../../src/sandbox/worker_permissions.ts";
import { loadSkill } from "../../../src/skills/_load_skill.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { RACY_WINDOW_MS } from "../../../src/skills/index_cache.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd, type TreeEntry } from "../../skills/_tree.ts";

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** The trusted part's side: starts the real digest isolate (read-the-roots set), as `main.ts`. */
function trustedParent(roots: readonly string[]) {
  const permissions = digestIsolatePermissions(
    roots.map((path) => ({ path, realPath: Deno.realPathSync(path) })),
  ).permissions;
  const host = createDigestIsolateHost(isolateEntryUrl("digests"), permissions);
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

/** Builds the catalog as the worker does once the isolate is used: each folder listed there. */
async function buildListedThere(root: string, helper: DigestHelper, caps: Caps): Promise<Catalog> {
  const catalog = await buildCatalog([{ path: root, from: "argument" }], caps, {
    onLoaded: (skill) => helper.offer(skill),
    load: (candidate, loadCaps) =>
      loadSkill(candidate, loadCaps, undefined, {
        listedElsewhere: helper.listRemotely(candidate, loadCaps)?.catch(() => null) ?? null,
      }),
  });
  helper.finish();
  return catalog;
}

async function untilEnded(host: { readonly isRunning: boolean }): Promise<void> {
  for (let waited = 0; host.isRunning && waited < 20_000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(host.isRunning, false, "the digest isolate was not ended once its work was done");
}

function manifest(entries: readonly SkillEntry[]): string[] {
  return entries.flatMap((entry) =>
    entry.resources.map((file) => `${file.uri} ${file.digest} ${file.size}`)
  );
}

/** What a catalog serves and reports, host facts included (versions, problems' paths). */
function shape(catalog: Catalog): unknown {
  return {
    skills: catalog.skills.map((skill) => ({
      name: skill.name,
      files: skill.files,
      bytes: skill.bytes,
      filesTruncated: skill.filesTruncated,
    })),
    problems: catalog.problems,
  };
}

Deno.test("digest isolate listing: a catalog whose folders the isolate listed equals the worker's own, digests included, none read in the worker", async () => {
  await using outside = await makeTree({ "far.md": "far away\n", "dir/x.md": "x\n" });
  const files: Record<string, TreeEntry> = {};
  for (let index = 0; index < 10; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`.repeat(index + 1);
    files[`${name}/scripts/run.sh`] = `echo ${index}\n`;
    files[`${name}/assets/templates/deep/a.txt`] = "";
  }
  // The walk's other ways: links inside the skill (a file, a folder), a link leading out, a
  // nested SKILL.md, a name the served rules refuse, an empty folder, and a cap that cuts.
  files["skill-01/linked.md"] = { symlink: "references/guide.md" };
  files["skill-02/linked-dir"] = { symlink: "references" };
  files["skill-03/escape.md"] = { symlink: outside.at("far.md") };
  files["skill-04/escape-dir"] = { symlink: outside.at("dir") };
  files["skill-05/inner/SKILL.md"] = skillMd("inner");
  files["skill-06/bad\u202Ename.md"] = "refused\n";
  files["skill-07/empty"] = { dir: true };
  for (let index = 0; index < 8; index++) files[`skill-08/many/f${index}.md`] = `${index}\n`;
  await using tree = await makeTree(files);
  await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 100));
  const caps: Caps = { ...DEFAULT_CAPS, maxFilesPerSkill: 6 };
  const { parent, host } = trustedParent([tree.path]);
  const cache = createDigestCache();
  const helper = createDigestHelper(cache, parent);
  const there = await buildListedThere(tree.path, helper, caps);
  await untilEnded(host);
  const here = await buildCatalog([{ path: tree.path, from: "argument" }], caps);
  assert.deepEqual(shape(there), shape(here));
  assert.equal(helper.listed, 10);
  assert.equal(helper.hasFailed, false);
  // Every digest was taken in the listing's pass (no file job, no read in this thread) and is
  // the one the worker computes itself, except the links' (the usual path reads those).
  const skills = extensionView(there).skills;
  const listed = await skillEntries(skills, cache);
  assert.deepEqual(manifest(listed), manifest(await skillEntries(skills, createDigestCache())));
  assert.ok(
    manifest(listed).includes(
      `skill://skill-03/references/guide.md ${sha256("guide 3\n".repeat(4))} 32`,
    ),
  );
  assert.equal(manifest(listed).length, 39);
  // None was read in this thread. Files jobs carried only what the listing's pass does not
  // read: each SKILL.md (the worker's gate read it; without an index cache its digest is
  // not kept from that read) and the two files reached through a link.
  assert.equal(cache.hashed, 0);
  assert.ok(helper.sent <= 12, `file jobs carried ${helper.sent} files`);
});

Deno.test("attack: a file or folder swapped for a symlink to outside while the digest isolate lists and reads it is never listed with outside bytes or names", async () => {
  const secret = "outside secret\n";
  await using outside = await makeTree({
    "secret.md": secret,
    "references/secret-name.md": secret,
    "references/guide.md": secret,
  });
  const count = 24;
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`;
    files[`${name}/notes.md`] = `notes ${index}\n`;
  }
  await using tree = await makeTree(files);
  const secretDigest = sha256(secret);
  const deadline = Date.now() + 30_000;
  // Bounded: 30 rounds or 30 s. Each round builds with the isolate listing every folder while
  // files and folders are swapped for links to outside ones and back.
  for (let round = 0; round < 30 && Date.now() < deadline; round++) {
    const { parent, host } = trustedParent([tree.path]);
    const cache = createDigestCache({ now: () => Date.now() + RACY_WINDOW_MS * 10 });
    const helper = createDigestHelper(cache, parent);
    let isBuilding = true;
    const building = buildListedThere(tree.path, helper, DEFAULT_CAPS).finally(() => {
      isBuilding = false;
    });
    const swapped: string[] = [];
    for (let index = round % 3; index < count && isBuilding; index += 3) {
      const name = `skill-${String(index).padStart(2, "0")}`;
      for (const [inside, away] of [["notes.md", "secret.md"], ["references", "references"]]) {
        const path = tree.at(`${name}/${inside}`);
        await Deno.rename(path, `${path}.away`);
        await Deno.symlink(outside.at(away!), path);
        swapped.push(path);
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const catalog = await building;
    await untilEnded(host);
    const names = catalog.skills.flatMap((skill) => skill.files.map((file) => file.path));
    assert.ok(!names.some((path) => path.includes("secret")), `round ${round}: an outside name`);
    const entries = await skillEntries(extensionView(catalog).skills, cache, {
      logsLeftOut: false,
    });
    assert.ok(
      entries.every((entry) => entry.resources.every((file) => file.digest !== secretDigest)),
      `round ${round}: a manifest carries the outside bytes' digest`,
    );
    for (const path of swapped) {
      await Deno.remove(path);
      await Deno.rename(`${path}.away`, path);
    }
  }
});

Deno.test("digest isolate listing: malformed jobs and answers are not used", () => {
  assert.equal(parseListJob({ type: "list-skills", id: 1, caps: {}, skills: [] }), null);
  assert.equal(
    parseListJob({
      type: "list-skills",
      id: 1,
      caps: { maxFilesPerSkill: 1, maxFoldersPerSkill: 1 },
      skills: [{ name: "a", dir: "/a", realDir: "/a", skillMdFile: "SKILL.md", entries: [1] }],
    }),
    null,
  );
  const file = { path: "a.md", size: 1, mtimeMs: 1, ctimeMs: 1, dev: 1, ino: 1 };
  const good = {
    type: "list-skills-reply",
    id: 3,
    results: [{ files: [file], truncated: false, problems: [], digests: [null] }, null],
  };
  assert.notEqual(parseListReply(good, 2), null);
  // Fewer results than skills asked, a digest count that is not the file count, a bad digest.
  assert.equal(parseListReply(good, 3), null);
  assert.equal(
    parseListReply({ ...good, results: [{ ...good.results[0], digests: [] }, null] }, 2),
    null,
  );
  const badSeen = {
    dev: 1,
    ino: 1,
    size: 1,
    mtimeMs: 1,
    ctimeMs: 1,
    digest: "sha256:xyz",
    bytes: 1,
    readAtMs: 1,
  };
  assert.equal(
    parseListReply({ ...good, results: [{ ...good.results[0], digests: [badSeen] }, null] }, 2),
    null,
  );
});

Deno.test("attack: a listing job of many files holds at most MAX_LISTING_HANDLES descriptors at once, and still lists every file", async () => {
  const files: Record<string, TreeEntry> = {};
  for (let index = 0; index < 16; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name);
    for (let file = 0; file < 20; file++) files[`${name}/refs/f${file}.md`] = `${index}/${file}\n`;
  }
  await using tree = await makeTree(files);
  const root = Deno.realPathSync(tree.path);
  const openNow = () => [...Deno.readDirSync("/proc/self/fd")].length;
  const before = openNow();
  let most = 0;
  installFdLocator((fd) => {
    most = Math.max(most, openNow() - before);
    return locateDirectly(fd);
  });
  try {
    const skills = [...Deno.readDirSync(root)].map((entry) => {
      const dir = `${root}/${entry.name}`;
      return {
        name: entry.name,
        dir,
        realDir: dir,
        skillMdFile: "SKILL.md",
        entries: [...Deno.readDirSync(dir)].map((item) => ({ ...item }))
          .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      };
    });
    const listed = await listAndHashSkills(skills, {
      maxFilesPerSkill: 100,
      maxFoldersPerSkill: 10,
    });
    assert.ok(most <= MAX_LISTING_HANDLES + 2, `${most} descriptors held at once`);
    assert.equal(listed.reduce((sum, skill) => sum + (skill?.files.length ?? 0), 0), 16 * 20);
    const digests = listed.flatMap((skill) => skill?.digests ?? []).filter((seen) => seen !== null);
    assert.equal(digests.length, MAX_LISTING_HANDLES);
    assert.equal(openNow(), before, "every descriptor was closed");
  } finally {
    installFdLocator(locateDirectly);
  }
});

Deno.test("storeFromElsewhere() stores by hashElsewhere's rule: not a short read, not a version racy at the read, not twice", () => {
  const cache = createDigestCache();
  const listed = { path: "a.md", size: 3, mtimeMs: 1_000, ctimeMs: 1_000, dev: 1, ino: 2 };
  const seen = {
    dev: 1,
    ino: 2,
    size: 3,
    mtimeMs: 1_000,
    ctimeMs: 1_000,
    digest: sha256("abc"),
    bytes: 3,
    readAtMs: 1_000 + RACY_WINDOW_MS + 1,
  };
  // A read that came short, or one within the racy window of the version's change: held nowhere.
  assert.equal(cache.storeFromElsewhere("/skill", listed, { ...seen, bytes: 2 }), true);
  assert.equal(cache.listedDigest("/skill", listed), null);
  assert.equal(cache.storeFromElsewhere("/skill", listed, { ...seen, readAtMs: 1_500 }), true);
  assert.equal(cache.listedDigest("/skill", listed), null);
  // Settled and whole: held for exactly that version; a second answer for it is not taken.
  assert.equal(cache.storeFromElsewhere("/skill", listed, seen), true);
  assert.equal(cache.listedDigest("/skill", listed)?.digest, sha256("abc"));
  assert.equal(cache.storeFromElsewhere("/skill", listed, { ...seen, digest: sha256("x") }), false);
  assert.equal(cache.listedDigest("/skill", listed)?.digest, sha256("abc"));
  // Another version than the listed one: stored under that version, not the listed one.
  const other = { ...listed, path: "b.md" };
  cache.storeFromElsewhere("/skill", other, { ...seen, ino: 9 });
  assert.equal(cache.listedDigest("/skill", other), null);
});
