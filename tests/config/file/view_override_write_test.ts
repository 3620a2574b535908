/**
 * A settings view's write, decided and done by the trusted part: only
 * narrowing, or turning back on what a view turned off; never the owner's
 * switches; written whole by rename; refused without a place to write.
 */

import assert from "node:assert/strict";
import {
  createViewOverrideWriter,
  decideViewOverride,
  MAX_VIEW_OVERRIDE_NAMES,
  MAX_VIEW_WRITE_ATTEMPTS,
  type OverridesHolder,
  readViewOverrideRequest,
} from "../../../src/config/file/view_override_write.ts";
import type { OverridesInForce } from "../../../src/config/file/watch_owner_files.ts";
import { parseOverrideArgs, runOverrideCommand } from "../../../src/cli/override_command.ts";
import type { CommandIo } from "../../../src/cli/command_io.ts";
import { parseOverridesFile, parseSetByView } from "../../../src/config/file/overrides_file.ts";
import type { DeclarationBase } from "../../../src/skills/declared_env.ts";

/**
 * Skill folders (each with a SKILL.md) under `${dir}/skills`, the bases the trusted part has
 * for them, and a view's request for one of them (its folder as the worker's catalog has it).
 */
function skillsIn(dir: string, names: readonly string[]) {
  Deno.mkdirSync(`${dir}/skills`, { recursive: true });
  const root = Deno.realPathSync(`${dir}/skills`);
  for (const name of names) {
    Deno.mkdirSync(`${root}/${name}`, { recursive: true });
    Deno.writeTextFileSync(`${root}/${name}/SKILL.md`, `---\nname: ${name}\n---\n`);
  }
  const bases: DeclarationBase[] = [{ path: root, prefix: null, isRoot: true }];
  const ask = (name: string, key: "enabled" | "modelInvocable", value: boolean) => ({
    name,
    switch: key,
    value,
    dir: `${root}/${name}`,
  });
  return { root, bases, ask };
}

const NONE: OverridesInForce = { overrides: {}, setByView: {} };

Deno.test("decideViewOverride() records a view's narrowing as the view's", () => {
  const decision = decideViewOverride(
    { name: "pdf", switch: "enabled", value: false },
    {},
    {},
    NONE,
  );
  assert.ok(decision.ok);
  assert.deepEqual(decision.file, { pdf: { enabled: false } });
  assert.deepEqual(decision.inForce, {
    overrides: { pdf: { enabled: false } },
    setByView: { pdf: ["enabled"] },
  });
  assert.equal(decision.changed, true);
});

Deno.test("attack: a view cannot turn back on what the owner turned off", () => {
  const owner = { pdf: { enabled: false } };
  const decision = decideViewOverride(
    { name: "pdf", switch: "enabled", value: true },
    owner,
    {},
    { overrides: owner, setByView: {} },
  );
  assert.equal(decision.ok, false);
  assert.equal(!decision.ok && decision.code, "OVERRIDE_OWNED");
});

Deno.test("attack: a view's disable of what the owner already disabled does not make it the view's", () => {
  const owner = { pdf: { enabled: false } };
  const again = decideViewOverride(
    { name: "pdf", switch: "enabled", value: false },
    owner,
    {},
    { overrides: owner, setByView: {} },
  );
  assert.ok(again.ok);
  assert.equal(again.changed, false);
  const back = decideViewOverride(
    { name: "pdf", switch: "enabled", value: true },
    again.file,
    again.inForce.setByView,
    again.inForce,
  );
  assert.equal(!back.ok && back.code, "OVERRIDE_OWNED");
});

Deno.test("decideViewOverride() turns back on what a view turned off, and only that switch", () => {
  const file = { pdf: { enabled: false, userInvocable: false } };
  const inForce: OverridesInForce = { overrides: file, setByView: { pdf: ["enabled"] } };
  const decision = decideViewOverride(
    { name: "pdf", switch: "enabled", value: true },
    file,
    { pdf: ["enabled"] },
    inForce,
  );
  assert.ok(decision.ok);
  assert.deepEqual(decision.file, { pdf: { userInvocable: false } });
  assert.deepEqual(decision.inForce, {
    overrides: { pdf: { userInvocable: false } },
    setByView: {},
  });
  const owners = decideViewOverride(
    { name: "pdf", switch: "userInvocable", value: true },
    decision.file,
    {},
    decision.inForce,
  );
  assert.equal(!owners.ok && owners.code, "OVERRIDE_OWNED");
});

Deno.test("attack: a skill named like an Object.prototype member is looked up as itself", () => {
  for (const name of ["constructor", "toString", "hasOwnProperty"]) {
    const off = decideViewOverride({ name, switch: "enabled", value: false }, {}, {}, NONE);
    assert.ok(off.ok, name);
    assert.deepEqual(off.inForce.setByView, { [name]: ["enabled"] });
    const owner = { [name]: { enabled: false } };
    const back = decideViewOverride(
      { name, switch: "enabled", value: true },
      owner,
      {},
      { overrides: owner, setByView: {} },
    );
    assert.equal(!back.ok && back.code, "OVERRIDE_OWNED", name);
  }
});

Deno.test("attack: a hand-edited setByView for a switch not off in the file widens nothing", () => {
  // The file was edited to turn the switch on, but the edit is not in force (it widens).
  const inForce: OverridesInForce = {
    overrides: { pdf: { enabled: false } },
    setByView: {},
  };
  const decision = decideViewOverride(
    { name: "pdf", switch: "enabled", value: true },
    {},
    { pdf: ["enabled"] },
    inForce,
  );
  assert.equal(!decision.ok && decision.code, "OVERRIDE_OWNED");
});

Deno.test("attack: readViewOverrideRequest() refuses what the worker may forge", () => {
  const dir = "/srv/skills/pdf";
  assert.deepEqual(readViewOverrideRequest({ name: "pdf", switch: "enabled", value: false, dir }), {
    name: "pdf",
    switch: "enabled",
    value: false,
    dir,
  });
  for (
    const forged of [
      null,
      "pdf",
      { name: "../etc", switch: "enabled", value: false, dir },
      { name: "pdf", switch: "roots", value: false, dir },
      { name: "pdf", switch: "enabled", value: "false", dir },
      { name: "x".repeat(300), switch: "enabled", value: false, dir },
      { name: "__proto__", switch: "enabled", value: false, dir },
      { name: "pdf", switch: "enabled", value: false },
      { name: "pdf", switch: "enabled", value: false, dir: "skills/pdf" },
      { name: "pdf", switch: "enabled", value: false, dir: `/${"d".repeat(5_000)}` },
    ]
  ) {
    assert.equal(readViewOverrideRequest(forged), null, JSON.stringify(forged)?.slice(0, 40));
  }
});

/** A holder like the owner-file watch: what is in force, adopted writes, one at a time. */
function holder(start: OverridesInForce = NONE): OverridesHolder & { adopted: OverridesInForce[] } {
  let current = start;
  let chain: Promise<unknown> = Promise.resolve();
  const adopted: OverridesInForce[] = [];
  return {
    adopted,
    inForce: () => current,
    adopt: (next) => {
      current = next;
      adopted.push(next);
    },
    exclusive: <T>(task: () => Promise<T>) => {
      const result = chain.then(task);
      chain = result.catch(() => {});
      return result;
    },
  };
}

function io(): CommandIo {
  return {
    writeOut: () => Promise.resolve(),
    writeErr: () => Promise.resolve(),
    isTerminal: false,
    columns: 100,
    cwd: "/",
    getEnv: () => undefined,
  };
}

Deno.test("createViewOverrideWriter() writes overrides.json whole by rename and puts it in force", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-view-write-" });
  try {
    const location = {
      path: `${dir}/sg/config.json`,
      overridesPath: `${dir}/sg/overrides.json`,
      isExplicit: false,
    };
    const held = holder();
    const { bases, ask } = skillsIn(dir, ["pdf", "docx"]);
    const write = createViewOverrideWriter(location, held, bases);
    // Two writes at once are done one after the other; neither is lost.
    const answers = await Promise.all([
      write(ask("pdf", "enabled", false)),
      write(ask("docx", "modelInvocable", false)),
    ]);
    assert.deepEqual(answers, [{ ok: true, changed: true }, { ok: true, changed: true }]);
    const text = await Deno.readTextFile(location.overridesPath);
    assert.deepEqual(parseOverridesFile(location.overridesPath, text), {
      docx: { modelInvocable: false },
      pdf: { enabled: false },
    });
    assert.deepEqual(parseSetByView(location.overridesPath, text), {
      docx: ["modelInvocable"],
      pdf: ["enabled"],
    });
    assert.deepEqual(held.inForce().setByView, { docx: ["modelInvocable"], pdf: ["enabled"] });
    assert.deepEqual([...Deno.readDirSync(`${dir}/sg`)].map((entry) => entry.name), [
      "overrides.json",
    ]);
    // `skillgate override` makes a switch the owner's: no view may turn it back on.
    assert.equal(
      await runOverrideCommand(parseOverrideArgs(["pdf", "--disable"]), location, io()),
      0,
    );
    const after = await Deno.readTextFile(location.overridesPath);
    assert.deepEqual(parseSetByView(location.overridesPath, after), { docx: ["modelInvocable"] });
    const refused = await createViewOverrideWriter(
      location,
      holder({
        overrides: parseOverridesFile(location.overridesPath, after),
        setByView: { docx: ["modelInvocable"] },
      }),
      bases,
    )(ask("pdf", "enabled", true));
    assert.equal(!refused.ok && refused.code, "OVERRIDE_OWNED");
    const back = await write(ask("docx", "modelInvocable", true));
    assert.deepEqual(back, { ok: true, changed: true });
    assert.deepEqual(
      JSON.parse(await Deno.readTextFile(location.overridesPath)),
      { skills: { pdf: { enabled: false } } },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createViewOverrideWriter() refuses under --no-config, --static, and over a broken file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-view-write-" });
  try {
    const { bases, ask } = skillsIn(dir, ["pdf"]);
    const request = ask("pdf", "enabled", false);
    const noConfig = await createViewOverrideWriter(null, holder(), bases)(request);
    assert.equal(!noConfig.ok && noConfig.code, "SETTINGS_UNAVAILABLE");
    const location = {
      path: `${dir}/config.json`,
      overridesPath: `${dir}/overrides.json`,
      isExplicit: false,
    };
    const isStatic = await createViewOverrideWriter(location, null, bases)(request);
    assert.equal(!isStatic.ok && isStatic.code, "SETTINGS_UNAVAILABLE");
    assert.match(!isStatic.ok ? isStatic.hint : "", /skillgate override pdf --disable/);
    const broken = '{ "skills": { "pdf": [ } }';
    await Deno.writeTextFile(location.overridesPath, broken);
    const held = holder();
    const invalid = await createViewOverrideWriter(location, held, bases)(request);
    assert.equal(!invalid.ok && invalid.code, "SETTINGS_UNAVAILABLE");
    assert.equal(await Deno.readTextFile(location.overridesPath), broken);
    assert.deepEqual(held.adopted, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: a view cannot claim an owner's off that is still in force though gone from the file", () => {
  // The owner took pdf's "off" out of overrides.json by hand: that widening waits for a
  // restart, so pdf stays off in force. A view's "off" now must not make it the view's.
  const inForce: OverridesInForce = { overrides: { pdf: { enabled: false } }, setByView: {} };
  const off = decideViewOverride({ name: "pdf", switch: "enabled", value: false }, {}, {}, inForce);
  assert.ok(off.ok);
  assert.deepEqual(off.file, { pdf: { enabled: false } });
  assert.deepEqual(off.inForce.setByView, {});
  const back = decideViewOverride(
    { name: "pdf", switch: "enabled", value: true },
    off.file,
    off.inForce.setByView,
    off.inForce,
  );
  assert.equal(!back.ok && back.code, "OVERRIDE_OWNED");
});

Deno.test("attack: a skill named like an Object.prototype member counts against the name limit", () => {
  const file: Record<string, { enabled: false }> = {};
  for (let i = 0; i < MAX_VIEW_OVERRIDE_NAMES; i++) file[`skill-${i}`] = { enabled: false };
  for (const name of ["constructor", "toString", "hasOwnProperty"]) {
    const decision = decideViewOverride(
      { name, switch: "enabled", value: false },
      file,
      {},
      { overrides: file, setByView: {} },
    );
    assert.equal(!decision.ok && decision.code, "OVERRIDE_LIMIT", name);
  }
});

Deno.test("attack: an owner's save between the view's read and its rename is not overwritten", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-view-race-" });
  try {
    const location = {
      path: `${dir}/config.json`,
      overridesPath: `${dir}/overrides.json`,
      isExplicit: false,
    };
    await Deno.writeTextFile(location.overridesPath, JSON.stringify({ skills: {} }));
    const held = holder();
    let saves = 0;
    // inForce() is asked after the writer read the file and before it renames: the
    // owner saves by hand right then (once), turning docx off.
    const racing: OverridesHolder = {
      ...held,
      inForce: () => {
        if (saves++ === 0) {
          Deno.writeTextFileSync(
            location.overridesPath,
            JSON.stringify({ skills: { docx: { enabled: false } } }),
          );
        }
        return held.inForce();
      },
    };
    const { bases, ask } = skillsIn(dir, ["pdf"]);
    const answer = await createViewOverrideWriter(location, racing, bases)(
      ask("pdf", "enabled", false),
    );
    assert.deepEqual(answer, { ok: true, changed: true });
    assert.equal(saves, 2, "the writer read and decided again after the owner's save");
    const text = await Deno.readTextFile(location.overridesPath);
    assert.deepEqual(parseOverridesFile(location.overridesPath, text), {
      docx: { enabled: false },
      pdf: { enabled: false },
    });
    assert.deepEqual(parseSetByView(location.overridesPath, text), { pdf: ["enabled"] });
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((entry) => entry.name).sort(),
      ["overrides.json", "skills"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createViewOverrideWriter() gives up, writing nothing, when overrides.json keeps changing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-view-race-" });
  try {
    const location = {
      path: `${dir}/config.json`,
      overridesPath: `${dir}/overrides.json`,
      isExplicit: false,
    };
    const held = holder();
    let saves = 0;
    const busy: OverridesHolder = {
      ...held,
      inForce: () => {
        saves++;
        Deno.writeTextFileSync(
          location.overridesPath,
          JSON.stringify({ skills: { [`owner-${saves}`]: { enabled: false } } }),
        );
        return held.inForce();
      },
    };
    const { bases, ask } = skillsIn(dir, ["pdf"]);
    const answer = await createViewOverrideWriter(location, busy, bases)(
      ask("pdf", "enabled", false),
    );
    assert.equal(!answer.ok && answer.code, "SETTINGS_UNAVAILABLE");
    assert.equal(saves, MAX_VIEW_WRITE_ATTEMPTS);
    assert.deepEqual(
      JSON.parse(await Deno.readTextFile(location.overridesPath)),
      { skills: { [`owner-${MAX_VIEW_WRITE_ATTEMPTS}`]: { enabled: false } } },
      "the owner's last save stands",
    );
    assert.deepEqual(held.adopted, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
