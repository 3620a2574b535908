/**
 * Review r14: the trusted part wrote a settings view's switch for any
 * valid-looking skill name (up to the name limit), so a worker that handles a
 * hostile client could fill the owner's overrides.json with names no skill
 * has. The trusted part now writes a name the file does not hold yet only
 * for a skill folder of that name under the roots (the folder the worker's
 * catalog has, checked, not trusted), refusing others with OVERRIDE_INVALID.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import { loadSetByView } from "../../../src/config/file/load_config.ts";
import { parseOverridesFile } from "../../../src/config/file/overrides_file.ts";
import { createViewOverrideWriter } from "../../../src/config/file/view_override_write.ts";
import { watchOwnerFiles } from "../../../src/config/file/watch_owner_files.ts";
import type { DeclarationBase } from "../../../src/skills/declared_env.ts";

Deno.test("attack: a settings-view write naming no skill of the catalog is refused by the trusted part, nothing written; a served skill's, and a name overrides.json holds, are written", async () => {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "r14-view-name-" }));
  const location = {
    path: `${dir}/sg/config.json`,
    overridesPath: `${dir}/sg/overrides.json`,
    isExplicit: false,
  };
  Deno.mkdirSync(`${dir}/sg`);
  const root = `${dir}/skills`;
  for (const name of ["pdf", "gone"]) {
    Deno.mkdirSync(`${root}/${name}`, { recursive: true });
    Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, `---\nname: ${name}\n---\n`);
  }
  // Not skills: a folder without SKILL.md in the root, and a skill-shaped folder outside it.
  Deno.mkdirSync(`${root}/empty`);
  Deno.mkdirSync(`${dir}/outside/evil`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/outside/evil/SKILL.md`, "---\nname: evil\n---\n");
  const bases: DeclarationBase[] = [{ path: root, prefix: null, isRoot: true }];
  const input = { args: [root], getEnv: () => undefined, cwd: "/" };
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
  const write = createViewOverrideWriter(location, watch, bases);
  const off = (name: string, folder: string) =>
    write({ name, switch: "enabled", value: false, dir: folder });
  try {
    for (
      const [name, folder] of [
        ["no-such-skill", `${root}/no-such-skill`], // no folder at all
        ["evil", `${root}/pdf`], // a real skill's folder under another name
        ["evil", `${dir}/outside/evil`], // a skill-shaped folder outside every root
        ["empty", `${root}/empty`], // a folder of the root holding no SKILL.md
        ["skill-4711", "/"], // the worker's word alone
      ] as const
    ) {
      const answer = await off(name, folder);
      assert.equal(
        !answer.ok && answer.code,
        "OVERRIDE_INVALID",
        `${name}: ${JSON.stringify(answer)}`,
      );
      assert.match(!answer.ok ? answer.message : "", /No skill named ".+" is served here/);
    }
    assert.equal(
      await Deno.readTextFile(location.overridesPath).catch(() => null),
      null,
      "overrides.json was written for a name no skill has",
    );
    assert.deepEqual(watch.inForce().overrides, {});
    // A served skill's switch is written; so is one for a skill since removed whose name
    // overrides.json already holds (a view turns back on what it turned off).
    assert.deepEqual(await off("pdf", `${root}/pdf`), { ok: true, changed: true });
    assert.deepEqual(await off("gone", `${root}/gone`), { ok: true, changed: true });
    Deno.removeSync(`${root}/gone`, { recursive: true });
    assert.deepEqual(
      await write({ name: "gone", switch: "enabled", value: true, dir: `${root}/gone` }),
      { ok: true, changed: true },
    );
    const file = parseOverridesFile(
      location.overridesPath,
      await Deno.readTextFile(location.overridesPath),
    );
    assert.deepEqual(file, { pdf: { enabled: false } });
  } finally {
    await watch.close();
    await Deno.remove(dir, { recursive: true });
  }
});
