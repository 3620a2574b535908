// s10-h8: a build known cold and large before it began (the roots' estimate, an index cache
// holding no parse) starts the digest isolate before discovery (`startEarly`), so its start-up
// overlaps discovery and it lists from the first skill loaded, instead of after 64 loads on the
// serving worker's thread alone. The catalog and the manifest stay the worker's own.

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { isolateEntryUrl } from "../../../src/entry_points.ts";
import { createDigestCache } from "../../../src/mcp/skills_extension/digest_cache.ts";
import {
  createDigestHelper,
  type DigestHelper,
  type DigestParentPort,
} from "../../../src/mcp/skills_extension/digest_helper.ts";
import { extensionView, skillEntries } from "../../../src/mcp/skills_extension/entries.ts";
import { createDigestIsolateHost } from "../../../src/sandbox/digest_isolate_host.ts";
import { digestIsolatePermissions } from "../../../src/sandbox/worker_permissions.ts";
import { loadSkill } from "../../../src/skills/_load_skill.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { openIndexCache, RACY_WINDOW_MS } from "../../../src/skills/index_cache.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

function trustedParent(root: string) {
  const permissions = digestIsolatePermissions([
    { path: root, realPath: Deno.realPathSync(root) },
  ]).permissions;
  const host = createDigestIsolateHost(isolateEntryUrl("digests"), permissions);
  const target = new EventTarget();
  const asked: string[] = [];
  const parent: DigestParentPort = {
    postMessage(message) {
      asked.push(message.type);
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
  return { parent, host, asked };
}

async function build(root: string, helper: DigestHelper | null): Promise<Catalog> {
  const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS, {
    ...(helper === null ? {} : {
      onLoaded: (skill) => helper.offer(skill),
      load: (candidate, caps) =>
        loadSkill(candidate, caps, undefined, {
          listedElsewhere: helper.listRemotely(candidate, caps)?.catch(() => null) ?? null,
        }),
    }),
  });
  helper?.finish();
  return catalog;
}

async function untilEnded(host: { readonly isRunning: boolean }): Promise<void> {
  for (let waited = 0; host.isRunning && waited < 20_000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(host.isRunning, false, "the digest isolate was not ended once its work was done");
}

function shape(catalog: Catalog): unknown {
  return catalog.skills.map((skill) => ({ name: skill.name, files: skill.files }));
}

Deno.test("digest isolate started early: running before any skill is offered, it lists every skill from the first load, and the catalog and manifest are the worker's own", async () => {
  const files: Record<string, string> = {};
  for (let index = 0; index < 12; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    files[`${name}/SKILL.md`] = skillMd(name, `Skill ${index}`);
    files[`${name}/references/guide.md`] = `guide ${index}\n`;
    files[`${name}/notes.md`] = `notes ${index}\n`;
  }
  await using tree = await makeTree(files);
  // Past the racy window: a digest of a version changed within it is held nowhere (review r5).
  await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 100));
  const { parent, host, asked } = trustedParent(tree.path);
  const cache = createDigestCache();
  // No isWorthStarting: the caller knew the build cold (as the worker does from the estimate).
  const helper = createDigestHelper(cache, parent, { sharesListing: false });
  helper.startEarly();
  assert.deepEqual(asked, ["digest-isolate"], "asked for before any skill was offered");
  assert.equal(host.isRunning, true);
  const catalog = await build(tree.path, helper);
  // Every skill folder went to the isolate: none held back for a decision.
  assert.equal(helper.listed, 12);
  await untilEnded(host);
  const own = await build(tree.path, null);
  assert.deepEqual(shape(catalog), shape(own));
  const listed = await skillEntries(extensionView(catalog).skills, cache);
  const ownCache = createDigestCache();
  const ownListed = await skillEntries(extensionView(own).skills, ownCache);
  assert.deepEqual(listed, ownListed);
  assert.equal(cache.hashed, 0, "no page read a file: the isolate hashed them all");
});

Deno.test("startEarly() starts nothing while skills are held for isWorthStarting (a start that may be warm)", async () => {
  await using tree = await makeTree({ "s/SKILL.md": skillMd("s", "S") });
  const { parent, host, asked } = trustedParent(tree.path);
  const helper = createDigestHelper(createDigestCache(), parent, {
    isWorthStarting: () => false,
  });
  helper.startEarly();
  assert.deepEqual(asked, []);
  assert.equal(host.isRunning, false);
  await build(tree.path, helper);
  assert.deepEqual(asked, []);
});

Deno.test("an isolate started early is ended by close() when the catalog turns out small", async () => {
  await using tree = await makeTree({ "s/SKILL.md": skillMd("s", "S") });
  const { parent, host, asked } = trustedParent(tree.path);
  const helper = createDigestHelper(createDigestCache(), parent);
  helper.startEarly();
  helper.close();
  await untilEnded(host);
  assert.deepEqual(asked, ["digest-isolate", "digest-isolate-stop"]);
});

Deno.test("holdsAnyParse(): false for an empty or absent index cache (a cold build), true once a parse is stored", async () => {
  await using cacheDir = await makeTree({});
  const open = () => openIndexCache(cacheDir.path, { rootsKey: "k", warn: () => {} });
  const first = open();
  assert.equal(first.holdsAnyParse(), false);
  assert.equal(
    openIndexCache(null, { rootsKey: "k", warn: () => {} }).holdsAnyParse(),
    false,
    "no cache folder: every build is cold",
  );
  const version = { dev: 1, ino: 2, size: 3, mtimeMs: 1_000, ctimeMs: 1_000 };
  first.remember("skill-a", version, { frontmatter: { name: "a" }, keyLines: [], findings: [] });
  assert.equal(first.holdsAnyParse(), true);
  first.flush();
  const again = open();
  assert.equal(again.holdsAnyParse(), true, "held after a restart");
  assert.deepEqual(again.stats, { hits: 0, misses: 0 }, "counts no lookup");
});
