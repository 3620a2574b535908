// Review r6's attacks on the digest isolate's listing pass (s13, issue 13: `listRemotely`,
// `digest_listing.ts`): the isolate's answer becomes the catalog's file list, so a hostile or
// compromised isolate must get no more into the catalog than the worker's own walk would list,
// and a hostile skill author must not make the isolate hash what the extension never lists.

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { createDigestCache } from "../../../src/mcp/skills_extension/digest_cache.ts";
import {
  createDigestHelper,
  type DigestParentPort,
} from "../../../src/mcp/skills_extension/digest_helper.ts";
import { listAndHashSkills } from "../../../src/mcp/skills_extension/digest_listing.ts";
import type { ListJobSkill } from "../../../src/mcp/skills_extension/digest_messages.ts";
import { installFdLocator, locateDirectly } from "../../../src/files/fd_location.ts";
import { loadSkill } from "../../../src/skills/_load_skill.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import { EXTENSION_MAX_BYTES } from "../../../src/skills/extension_eligibility.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

/**
 * A parent whose "digest isolate" is hostile: every listing job is answered with `forge(job)`,
 * every file job with nulls.
 */
function hostileParent(forge: (skills: readonly ListJobSkill[]) => unknown[]): DigestParentPort {
  const target = new EventTarget();
  const ports: MessagePort[] = [];
  return {
    postMessage(message) {
      if (message.type === "digest-isolate") {
        const port = message.port;
        ports.push(port);
        port.onmessage = (event: MessageEvent) => {
          const job = event.data as {
            type: string;
            id: number;
            skills?: ListJobSkill[];
            files?: unknown[];
          };
          if (job.type === "list-skills") {
            port.postMessage({
              type: "list-skills-reply",
              id: job.id,
              results: forge(job.skills!),
            });
          } else if (job.type === "digest-files") {
            port.postMessage({
              type: "digest-files-reply",
              id: job.id,
              results: job.files!.map(() => null),
            });
          }
        };
      }
      if (message.type === "digest-isolate-stop") ports.forEach((port) => port.close());
    },
    addEventListener: (type, listener) => target.addEventListener(type, listener as EventListener),
    removeEventListener: (type, listener) =>
      target.removeEventListener(type, listener as EventListener),
  };
}

const forgedFile = (path: string) => ({ path, size: 1, mtimeMs: 1, ctimeMs: 1, dev: 1, ino: 1 });

function filesOf(catalog: Catalog): string[][] {
  return catalog.skills.map((skill) => skill.files.map((file) => file.path));
}

Deno.test("attack: a hostile digest isolate's forged listing (names the served rules refuse, duplicates, past the file cap, made-up problems) never becomes the catalog's file list", async () => {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "alpha/notes.md": "notes\n",
    "beta/SKILL.md": skillMd("beta"),
    "beta/guide.md": "guide\n",
  });
  const caps = { ...DEFAULT_CAPS, maxFilesPerSkill: 50 };
  const forged = [
    "../../../etc/passwd",
    "/etc/shadow",
    ".git/config",
    "node_modules/x.js",
    "a\u202Eb.md",
    "notes.md",
    "notes.md",
    ...Array.from({ length: 200 }, (_, index) => `pad-${String(index).padStart(3, "0")}.md`),
  ];
  const parent = hostileParent((skills) =>
    skills.map(() => ({
      files: forged.map(forgedFile),
      truncated: false,
      problems: [{ path: "/x", reason: "made-up-reason", severity: "error", detail: "\u001b[31m" }],
      digests: forged.map(() => null),
    }))
  );
  const helper = createDigestHelper(createDigestCache(), parent, { warn: () => {} });
  const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], caps, {
    onLoaded: (skill) => helper.offer(skill),
    load: (candidate, loadCaps) =>
      loadSkill(candidate, loadCaps, undefined, {
        listedElsewhere: helper.listRemotely(candidate, loadCaps)?.catch(() => null) ?? null,
      }),
  });
  helper.finish();
  const own = await buildCatalog([{ path: tree.path, from: "argument" }], caps);
  assert.ok(helper.listed > 0, "the listing was asked of the isolate");
  assert.deepEqual(filesOf(catalog), filesOf(own), "the catalog lists exactly the worker's walk");
  assert.ok(
    !catalog.problems.some((found) => (found.reason as string) === "made-up-reason"),
    "a made-up problem reason reached the catalog",
  );
});

Deno.test({
  name:
    "attack: the digest isolate's listing pass hashes no file of a skill the extension cannot list (sparse files over 16 MiB in all)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using tree = await makeTree({
      "big/SKILL.md": skillMd("big"),
      "big/a.bin": "",
      "big/b.bin": "",
      "big/c.bin": "",
      "small/SKILL.md": skillMd("small"),
      "small/notes.md": "notes\n",
    });
    // Each just under the per-file limit; together three times the extension's 16 MiB per skill,
    // at no disk cost to the author. The extension never lists `big`, so nothing needs its digests.
    for (const name of ["a", "b", "c"]) {
      await Deno.truncate(tree.at(`big/${name}.bin`), EXTENSION_MAX_BYTES - 1);
    }
    const job = (name: string): ListJobSkill => {
      const dir = tree.at(name);
      const entries = [...Deno.readDirSync(dir)]
        .map(({ name, isFile, isDirectory, isSymlink }) => ({
          name,
          isFile,
          isDirectory,
          isSymlink,
        }))
        .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      return { name, dir, realDir: Deno.realPathSync(dir), skillMdFile: "SKILL.md", entries };
    };
    installFdLocator(locateDirectly);
    const [big, small] = await listAndHashSkills([job("big"), job("small")], {
      maxFilesPerSkill: DEFAULT_CAPS.maxFilesPerSkill,
      maxFoldersPerSkill: DEFAULT_CAPS.maxFoldersPerSkill,
    });
    assert.equal(big?.files.length, 3, "the big skill is still listed");
    assert.deepEqual(
      big?.digests,
      [null, null, null],
      "48 MiB of a skill the extension never lists were read and hashed",
    );
    assert.equal(small?.digests.filter((seen) => seen !== null).length, 1);
  },
});

for (
  const [how, behave] of [
    ["never answers a listing job", "silent"],
    ["ends in the middle of the build", "ends"],
    ["answers listing jobs with results for other ids and skills", "wrong-ids"],
  ] as const
) {
  Deno.test(`attack: a digest isolate that ${how} costs one warning; the catalog is the worker's own`, async () => {
    const entries: Record<string, string> = {};
    for (let index = 0; index < 40; index++) {
      const name = `s${String(index).padStart(2, "0")}`;
      entries[`${name}/SKILL.md`] = skillMd(name);
      entries[`${name}/refs/guide.md`] = `guide ${index}\n`;
    }
    await using tree = await makeTree(entries);
    const target = new EventTarget();
    let jobs = 0;
    const parent: DigestParentPort = {
      postMessage(message) {
        if (message.type !== "digest-isolate") return;
        const port = message.port;
        port.onmessage = (event: MessageEvent) => {
          const job = event.data as { type: string; id: number; skills?: unknown[] };
          jobs++;
          if (job.type !== "list-skills") return;
          if (behave === "ends" && jobs === 2) {
            target.dispatchEvent(
              new MessageEvent("message", {
                data: { type: "digest-isolate-ended", reason: "the digest isolate failed: test" },
              }),
            );
          }
          if (behave === "wrong-ids") {
            port.postMessage({ type: "list-skills-reply", id: job.id + 1_000, results: [] });
            port.postMessage({ type: "list-skills-reply", id: job.id, results: [null] });
          }
        };
      },
      addEventListener: (type, listener) =>
        target.addEventListener(type, listener as EventListener),
      removeEventListener: (type, listener) =>
        target.removeEventListener(type, listener as EventListener),
    };
    const warnings: string[] = [];
    const helper = createDigestHelper(createDigestCache(), parent, {
      replyTimeoutMs: 300,
      decideAfterSkills: 4,
      warn: (line) => warnings.push(line),
    });
    const catalog = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS, {
      onLoaded: (skill) => helper.offer(skill),
      load: (candidate, loadCaps) =>
        loadSkill(candidate, loadCaps, undefined, {
          listedElsewhere: helper.listRemotely(candidate, loadCaps)?.catch(() => null) ?? null,
        }),
    });
    helper.finish();
    helper.close();
    const own = await buildCatalog([{ path: tree.path, from: "argument" }], DEFAULT_CAPS);
    assert.ok(helper.listed > 0, "listing jobs were sent");
    assert.deepEqual(filesOf(catalog), filesOf(own));
    assert.deepEqual(catalog.problems, own.problems);
    assert.ok(warnings.length <= 1, `more than one warning: ${warnings.join(" | ")}`);
    if (behave !== "wrong-ids") assert.equal(warnings.length, 1);
  });
}
