/**
 * Review r14: `setByView` in overrides.json says which switches a settings
 * view turned off, so a view may turn those (and only those) back on. The
 * entry outlives the switch: when the owner turns the skill back on by hand
 * (deletes its line in `skills`, the usual edit; only `skillgate override`
 * also cleans `setByView`), the stale entry stays in the file, and when the
 * owner later turns the same switch off by hand, it reads as the view's
 * again. A client's settings view then turns the owner's own switch back on.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import { loadSetByView } from "../../../src/config/file/load_config.ts";
import { parseOverridesFile } from "../../../src/config/file/overrides_file.ts";
import { createViewOverrideWriter } from "../../../src/config/file/view_override_write.ts";
import { watchOwnerFiles } from "../../../src/config/file/watch_owner_files.ts";

const CEILING_MS = 20_000;

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${CEILING_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("attack: a stale setByView entry makes the owner's later hand-set switch a view's to turn back on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "r14-set-by-view-" });
  const location = {
    path: `${dir}/config.json`,
    overridesPath: `${dir}/overrides.json`,
    isExplicit: false,
  };
  // An earlier session: a view turned pdf off ({pdf: {enabled: false}}, setByView pdf).
  // Then, skillgate stopped, the owner turned pdf back on by hand: deleted its line in
  // "skills" (the setByView block, which the owner has no reason to touch, stays).
  await Deno.writeTextFile(
    location.overridesPath,
    JSON.stringify({ skills: {}, setByView: { pdf: ["enabled"] } }, null, 2),
  );
  const input = { args: ["/skills"], getEnv: () => undefined, cwd: "/" };
  const running = parseCommandLine(input);
  const watch = watchOwnerFiles(
    {
      input,
      running,
      location,
      overrides: {},
      caps: running.caps,
      setByView: await loadSetByView(location),
    },
    { onChange: () => {}, log: () => {}, quietMs: 20 },
  );
  assert.ok(watch !== null);
  try {
    // This session: the owner decides pdf must stay off and says so by hand.
    await Deno.writeTextFile(
      location.overridesPath,
      JSON.stringify({ skills: { pdf: { enabled: false } }, setByView: { pdf: ["enabled"] } }),
    );
    await until("the owner's off in force", () => watch.inForce().overrides.pdf?.enabled === false);
    // A client's settings view asks to turn it back on.
    const answer = await createViewOverrideWriter(location, watch, [])({
      name: "pdf",
      switch: "enabled",
      value: true,
      // No skill folder: overrides.json names pdf, which is enough to be named in a write.
      dir: `${dir}/gone/pdf`,
    });
    assert.equal(
      !answer.ok && answer.code,
      "OVERRIDE_OWNED",
      `the owner's own switch was turned back on by a view: ${JSON.stringify(answer)}`,
    );
    const file = parseOverridesFile(
      location.overridesPath,
      await Deno.readTextFile(location.overridesPath),
    );
    assert.deepEqual(file.pdf, { enabled: false });
  } finally {
    await watch.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: a stale setByView entry is dropped from overrides.json, so a restart cannot revive it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "r14-set-by-view-" });
  const location = {
    path: `${dir}/config.json`,
    overridesPath: `${dir}/overrides.json`,
    isExplicit: false,
  };
  // A view's off of an earlier session, which the owner undid by deleting pdf's line; a view's
  // off of docx that is still in force stays the view's.
  await Deno.writeTextFile(
    location.overridesPath,
    JSON.stringify({
      skills: { docx: { enabled: false } },
      setByView: { pdf: ["enabled"], docx: ["enabled"] },
    }),
  );
  const input = { args: ["/skills"], getEnv: () => undefined, cwd: "/" };
  const running = parseCommandLine(input);
  const watch = watchOwnerFiles(
    {
      input,
      running,
      location,
      overrides: { docx: { enabled: false } },
      caps: running.caps,
      setByView: await loadSetByView(location),
    },
    { onChange: () => {}, log: () => {}, quietMs: 20 },
  );
  assert.ok(watch !== null);
  try {
    let onDisk: unknown = null;
    await until("the stale entry dropped from the file", () => {
      try {
        onDisk = JSON.parse(Deno.readTextFileSync(location.overridesPath)).setByView;
      } catch {
        return false;
      }
      return JSON.stringify(onDisk) === JSON.stringify({ docx: ["enabled"] });
    });
    assert.deepEqual(watch.inForce().setByView, { docx: ["enabled"] });
    assert.deepEqual(
      parseOverridesFile(location.overridesPath, await Deno.readTextFile(location.overridesPath)),
      { docx: { enabled: false } },
    );
  } finally {
    await watch.close();
    await Deno.remove(dir, { recursive: true });
  }
});
