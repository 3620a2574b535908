// s9-h4 (issue 13): with `sharesListing`, the worker lists and hashes a batch of skill folders
// itself while the digest isolate is `LIST_JOBS_AHEAD` jobs ahead, with the isolate's own code.
// The catalog and the manifest must be exactly what the worker's own build and reads give,
// whichever thread listed a folder, and nothing is read twice.

import assert from "node:assert/strict";
import { type Caps, DEFAULT_CAPS } from "../../../src/caps.ts";
import { isolateEntryUrl } from "../../../src/entry_points.ts";
import { createDigestCache } from "../../../src/mcp/skills_extension/digest_cache.ts";
import {
  createDigestHelper,
  type DigestParentPort,
  LIST_BATCH_SKILLS,
  LIST_HERE_SHARE,
  LIST_JOBS_AHEAD,
} from "../../../src/mcp/skills_extension/digest_helper.ts";
import {
  extensionView,
  skillEntries,
  type SkillEntry,
} from "../../../src/mcp/skills_extension/entries.ts";
import { createDigestIsolateHost } from "../../../src/sandbox/digest_isolate_host.ts";
import { digestIsolatePermissions } from "../../../src/sandbox/worker_permissions.ts";
import { loadSkill } from "../../../src/skills/_load_skill.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { RACY_WINDOW_MS } from "../../../src/skills/index_cache.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd, type TreeEntry } from "../../skills/_tree.ts";

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

Deno.test("sharesListing: while the isolate is two jobs ahead the worker lists a batch itself, and the catalog and digests equal the worker's own", async () => {
  await using outside = await makeTree({ "far.md": "far away\n" });
  const skills = LIST_BATCH_SKILLS * (LIST_JOBS_AHEAD + 2);
  const files: Record<string, TreeEntry> = {};
  for (let index = 0; index < skills; index++) {
    const name = `skill-${String(index).padStart(3, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`.repeat(index % 5 + 1);
    files[`${name}/assets/deep/a.txt`] = `${index}\n`;
    // The walk's other ways, spread over every batch: a link inside, a link leading out.
    if (index % 7 === 0) files[`${name}/linked.md`] = { symlink: "references/guide.md" };
    if (index % 9 === 0) files[`${name}/escape.md`] = { symlink: outside.at("far.md") };
  }
  await using tree = await makeTree(files);
  await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 100));
  const caps: Caps = DEFAULT_CAPS;
  const { parent, host } = trustedParent([tree.path]);
  const cache = createDigestCache();
  const helper = createDigestHelper(cache, parent, { sharesListing: true });
  // Every load in flight at once, as the worker's first build keeps more than the isolate's
  // jobs ahead: the third batch is made while the first two are unanswered.
  const shared = await buildCatalog([{ path: tree.path, from: "argument" }], caps, {
    concurrency: skills,
    onLoaded: (skill) => helper.offer(skill),
    load: (candidate, loadCaps) =>
      loadSkill(candidate, loadCaps, undefined, {
        listedElsewhere: helper.listRemotely(candidate, loadCaps)?.catch(() => null) ?? null,
      }),
  });
  helper.finish();
  await untilEnded(host);
  assert.equal(helper.hasFailed, false);
  assert.ok(helper.listedHere > 0, "no batch was listed in this thread");
  assert.ok(helper.listed > 0, "no batch was listed in the isolate");
  assert.equal(helper.listed + helper.listedHere, skills);
  assert.ok(
    helper.listedHere <= LIST_HERE_SHARE * skills + LIST_BATCH_SKILLS,
    `${helper.listedHere} of ${skills} listed here`,
  );
  const own = await buildCatalog([{ path: tree.path, from: "argument" }], caps);
  assert.deepEqual(shape(shared), shape(own));
  // The digests came from the listing passes (no page read any), and are the files' own.
  const view = extensionView(shared).skills;
  const listed = await skillEntries(view, cache);
  assert.deepEqual(manifest(listed), manifest(await skillEntries(view, createDigestCache())));
  assert.equal(cache.hashed, 0, "a page read a file the listing passes should have hashed");
});

Deno.test("sharesListing off (the default): every batch goes to the isolate", async () => {
  const files: Record<string, TreeEntry> = {};
  const skills = LIST_BATCH_SKILLS * (LIST_JOBS_AHEAD + 2);
  for (let index = 0; index < skills; index++) {
    const name = `skill-${String(index).padStart(3, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`;
  }
  await using tree = await makeTree(files);
  const { parent, host } = trustedParent([tree.path]);
  const helper = createDigestHelper(createDigestCache(), parent);
  await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS, {
    concurrency: skills,
    onLoaded: (skill) => helper.offer(skill),
    load: (candidate, loadCaps) =>
      loadSkill(candidate, loadCaps, undefined, {
        listedElsewhere: helper.listRemotely(candidate, loadCaps)?.catch(() => null) ?? null,
      }),
  });
  helper.finish();
  await untilEnded(host);
  assert.equal(helper.listedHere, 0);
  assert.equal(helper.listed, skills);
});
