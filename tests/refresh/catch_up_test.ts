import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { CATCH_UP_SLACK_MS, skillsChangedSince } from "../../src/refresh/catch_up.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";

function skillText(name: string): string {
  return `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`;
}

/** A root of three skills (each with a sub-folder, empty but in alpha), built. */
async function builtRoot() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-catch-up-" }));
  for (const name of ["alpha", "beta", "gamma"]) {
    await Deno.mkdir(`${root}/${name}/references`, { recursive: true });
    await Deno.writeTextFile(`${root}/${name}/SKILL.md`, skillText(name));
  }
  await Deno.writeTextFile(`${root}/alpha/references/api.md`, "api\n");
  const catalog = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
  assert.equal(catalog.skills.length, 3);
  return {
    root,
    catalog,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** Waits long enough for the kernel's coarse clock to pass the moment before, in ms. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 40));
}

/** `sinceMs` whose threshold (`sinceMs - CATCH_UP_SLACK_MS`) is now. */
function thresholdNow(): number {
  return Date.now() + CATCH_UP_SLACK_MS;
}

Deno.test("skillsChangedSince() names no skill when no folder changed since the build began, and every skill changed within the slack before it", async () => {
  await using built = await builtRoot();
  await settle();
  assert.deepEqual(skillsChangedSince(built.catalog, thresholdNow()), []);
  // Made just now, every folder is within the slack of a build that begins now.
  assert.equal(skillsChangedSince(built.catalog, Date.now()).length, 3);
});

Deno.test("skillsChangedSince() names the skills whose folder or sub-folder gained or lost an entry after the build began, empty sub-folders included", async () => {
  await using built = await builtRoot();
  await settle();
  const sinceMs = thresholdNow();
  await settle();
  await Deno.writeTextFile(`${built.root}/beta/references/new.md`, "new\n");
  await Deno.remove(`${built.root}/alpha/references/api.md`);
  await Deno.mkdir(`${built.root}/gamma/scripts`);
  assert.deepEqual(
    skillsChangedSince(built.catalog, sinceMs).sort(),
    [`${built.root}/alpha`, `${built.root}/beta`, `${built.root}/gamma`],
  );
});

Deno.test("skillsChangedSince() ignores changes under dot-folders and node_modules (the listing skips them) and names a skill whose folder is gone", async () => {
  await using built = await builtRoot();
  await Deno.mkdir(`${built.root}/alpha/.git`);
  await Deno.mkdir(`${built.root}/alpha/node_modules`);
  await settle();
  const sinceMs = thresholdNow();
  await settle();
  await Deno.writeTextFile(`${built.root}/alpha/.git/HEAD`, "ref\n");
  await Deno.writeTextFile(`${built.root}/alpha/node_modules/x.js`, "x\n");
  assert.deepEqual(skillsChangedSince(built.catalog, sinceMs), []);
  await Deno.writeTextFile(`${built.root}/alpha/references/later.md`, "later\n");
  await Deno.remove(`${built.root}/gamma`, { recursive: true });
  assert.deepEqual(
    skillsChangedSince(built.catalog, sinceMs).sort(),
    [`${built.root}/alpha`, `${built.root}/gamma`],
  );
});
