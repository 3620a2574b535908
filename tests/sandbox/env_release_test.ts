import assert from "node:assert/strict";
import { parseGrant } from "../../src/scripts/grant.ts";
import { releasableNames, releaseEnv } from "../../src/sandbox/env_release.ts";
import { readDeclaredEnv } from "../../src/skills/declared_env.ts";
import { MAX_ENV_REQUEST_NAMES } from "../../src/sandbox/messages.ts";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { createEnvReleaseService } from "../../src/sandbox/env_release_service.ts";
import { computeWorkerPermissions } from "../../src/sandbox/worker_permissions.ts";
import { declarationBasesOf } from "../../src/sandbox/worker_set.ts";
import { parseCommandLine } from "../../src/config/cli.ts";
import { checkRoots } from "../../src/config/root_check.ts";
import { runProgram } from "../support/program.ts";
import { makeTree } from "../skills/_tree.ts";

const ROWS = JSON.stringify([
  { skill: "greedy", script: "scripts/take.sh", env: ["API_KEY"] },
  { skill: "other", script: "scripts/run.sh", env: ["OTHER_SECRET"] },
]);
const ENV: Record<string, string> = {
  API_KEY: "key-value",
  OTHER_SECRET: "other-value",
  MCP_CONFIRM_SECRET: "confirm-secret-value",
  SKILLGATE_HTTP_TOKEN: "token-value",
  LD_PRELOAD: "/tmp/evil.so",
};
const getEnv = (name: string) => ENV[name];
const HONEST = [
  "---",
  "name: honest",
  "description: Declares API_KEY for one script.",
  "mcp-host:",
  "  version: 1",
  "  run:",
  "    - script: scripts/take.sh",
  "      interpreter: sh",
  "      env: [API_KEY]",
  "---",
  "Body",
  "",
].join("\n");

Deno.test("releasableNames() with MCP_SKILL_RUN rows releases only that row's names", () => {
  const grant = parseGrant(ROWS, { hosted: false });
  const ask = (skill: string, script: string, names: string[]) =>
    releasableNames(grant, { skill, script, names }, ["API_KEY", "OTHER_SECRET"]);
  assert.deepEqual(ask("greedy", "scripts/take.sh", ["API_KEY", "OTHER_SECRET"]), ["API_KEY"]);
  assert.deepEqual(ask("greedy", "scripts/other.sh", ["API_KEY"]), []);
  assert.deepEqual(ask("ghost", "scripts/take.sh", ["API_KEY"]), []);
  assert.deepEqual(ask("other", "scripts/run.sh", ["API_KEY", "OTHER_SECRET"]), ["OTHER_SECRET"]);
});

Deno.test("releasableNames() hosted without a grant, or with a placeholder grant, releases nothing", () => {
  const hosted = parseGrant(null, { hosted: true, hostedBy: "MCP_SKILLS_PATH" });
  assert.deepEqual(
    releasableNames(hosted, { skill: "a", script: "s", names: ["API_KEY"] }, ["API_KEY"]),
    [],
  );
  const placeholder = parseGrant(ROWS, { hosted: false, unsubstituted: ["MCP_SKILL_RUN"] });
  assert.deepEqual(
    releasableNames(placeholder, {
      skill: "greedy",
      script: "scripts/take.sh",
      names: ["API_KEY"],
    }, ["API_KEY"]),
    [],
  );
});

Deno.test("releasableNames() standalone without a grant never releases skillgate's own settings or loader variables", () => {
  const grant = parseGrant(null, { hosted: false });
  const names = ["API_KEY", "MCP_CONFIRM_SECRET", "SKILLGATE_HTTP_TOKEN", "LD_PRELOAD", "PATH"];
  assert.deepEqual(releasableNames(grant, { skill: "a", script: "s", names }, names), ["API_KEY"]);
});

Deno.test("attack: an oversized environment request gets nothing at all", () => {
  const grant = parseGrant(ROWS, { hosted: false });
  const names = Array.from({ length: MAX_ENV_REQUEST_NAMES + 1 }, () => "API_KEY");
  assert.deepEqual(
    releasableNames(grant, { skill: "greedy", script: "scripts/take.sh", names }, ["API_KEY"]),
    [],
  );
});

Deno.test("releaseEnv() releases only names the declaration lists, and looks values up", async () => {
  const grant = parseGrant(
    JSON.stringify([{ skill: "a", script: "s", env: ["API_KEY", "UNSET_NAME"] }]),
    { hosted: false },
  );
  const asked: string[] = [];
  const declaredEnv = (request: { skill: string }) => {
    asked.push(request.skill);
    return Promise.resolve(["API_KEY", "UNSET_NAME", "OTHER_SECRET"]);
  };
  const request = { skill: "a", script: "s", dir: "/skills/a" };
  assert.deepEqual(
    await releaseEnv(grant, {
      ...request,
      names: ["API_KEY", "UNSET_NAME", "OTHER_SECRET"],
    }, { getEnv, declaredEnv }),
    { API_KEY: "key-value" },
  );
  // Nothing the owner's rule allows: the declaration is not even read.
  assert.deepEqual(
    await releaseEnv(grant, { ...request, script: "t", names: ["API_KEY"] }, {
      getEnv,
      declaredEnv,
    }),
    {},
  );
  assert.deepEqual(asked, ["a"]);
});

Deno.test("releaseEnv() gives nothing from a row naming a name the script does not declare, as the plan refuses it", async () => {
  const grant = parseGrant(
    JSON.stringify([{ skill: "a", script: "s", env: ["API_KEY", "OTHER_SECRET"] }]),
    { hosted: false },
  );
  const released = await releaseEnv(
    grant,
    { skill: "a", script: "s", dir: "/skills/a", names: ["API_KEY"] },
    { getEnv, declaredEnv: () => Promise.resolve(["API_KEY"]) },
  );
  assert.deepEqual(released, {});
});

Deno.test("releaseEnv() for a preview (namesOnly) tells which names a run would get and withholds every value", async () => {
  const grant = parseGrant(
    JSON.stringify([{ skill: "a", script: "s", env: ["API_KEY", "UNSET_NAME"] }]),
    { hosted: false },
  );
  const declaredEnv = () => Promise.resolve(["API_KEY", "UNSET_NAME"]);
  const answer = await releaseEnv(grant, {
    skill: "a",
    script: "s",
    dir: "/skills/a",
    names: ["API_KEY", "UNSET_NAME", "OTHER_SECRET"],
    namesOnly: true,
  }, { getEnv, declaredEnv });
  // Set, granted and declared: named; unset or not granted: absent; no value leaves.
  assert.deepEqual(answer, { API_KEY: "" });
  assert.ok(!JSON.stringify(answer).includes("key-value"));
});

Deno.test("readDeclaredEnv() reads the script's declared names through the gate, and nothing for a folder that does not hold", async () => {
  await using tree = await makeTree({
    "root/honest/SKILL.md": HONEST,
    "root/honest/scripts/take.sh": "echo hi\n",
    "root/group/other/SKILL.md": HONEST.replace("name: honest", "name: other"),
    "root/group/other/scripts/take.sh": "echo hi\n",
    "outside/honest/SKILL.md": HONEST.replace("API_KEY", "OTHER_SECRET"),
  });
  const bases = [{ path: await Deno.realPath(`${tree.path}/root`), prefix: null }];
  const ask = (skill: string, dir: string, script = "scripts/take.sh") =>
    readDeclaredEnv({ skill, script, dir: `${tree.path}/${dir}` }, {
      bases,
      maxSkillMdBytes: 65_536,
    });
  assert.deepEqual(await ask("honest", "root/honest"), ["API_KEY"]);
  assert.deepEqual(await ask("other", "root/group/other"), ["API_KEY"]);
  assert.deepEqual(await ask("pfx__honest", "root/honest"), []); // not a prefixed root's folder
  assert.deepEqual(await ask("honest", "root/honest", "scripts/other.sh"), []);
  assert.deepEqual(await ask("greedy", "root/honest"), []); // another skill's folder
  assert.deepEqual(await ask("honest", "root/../outside/honest"), []); // outside every root
  assert.deepEqual(await ask("honest", "root"), []); // the root itself
  assert.deepEqual(await ask("ghost", "root/ghost"), []);
});

Deno.test("attack: a worker that claims a declaration it lacks gets no wider run list and no environment value", async () => {
  // "honest" declares API_KEY for scripts/take.sh; "greedy" declares nothing at all; a copy of
  // "honest" outside the root declares OTHER_SECRET. The hostile worker claims otherwise.
  await using tree = await makeTree({
    "root/honest/SKILL.md": HONEST,
    "root/honest/scripts/take.sh": "echo hi\n",
    "root/greedy/SKILL.md": "---\nname: greedy\ndescription: Declares nothing at all.\n---\nBody\n",
    "outside/honest/SKILL.md": HONEST.replace("API_KEY", "OTHER_SECRET"),
    "outside/honest/scripts/take.sh": "echo hi\n",
  });
  const root = `${tree.path}/root`;
  const grant = JSON.stringify([
    { skill: "honest", script: "scripts/take.sh", env: ["API_KEY"] },
    { skill: "greedy", script: "scripts/take.sh", env: ["API_KEY"] },
  ]);
  const env = {
    API_KEY: "granted-value",
    OTHER_SECRET: "never-released",
    MCP_CONFIRM_SECRET: "a-confirm-secret-of-32-characters-",
  };
  const run = async (roots: string[], extra: Record<string, string>) => {
    const result = await runProgram(["serve", "--isolation=group", ...roots], {
      entry: "tests/support/env_claim_main.ts",
      env: { ...env, ...extra },
    });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as {
      run: string[];
      replies: Record<string, string>[];
    };
  };
  // Only what the declaration lists AND the owner's row in force names (a row naming an
  // undeclared name grants nothing: env_release_refused_rows_attack_test.ts); every made-up
  // claim (OTHER_SECRET, which only the outside copy declares) gets nothing.
  const expected = [{ API_KEY: "granted-value" }, {}, {}, {}, {}, {}, {}];
  const granted = await run([root], { MCP_SKILL_RUN: grant });
  // The run list is the one group launcher, decided from the grant before the worker existed.
  assert.equal(granted.run.length, 1);
  assert.match(granted.run[0] ?? "", /\/(sh|setpriv)$/);
  assert.deepEqual(granted.replies, expected);
  // Standalone without a grant: the declaration (what the preview lists) is the bound.
  const standalone = await run([root], {});
  assert.deepEqual(standalone.replies, expected);
  const hosted = await run([], { MCP_SKILLS_PATH: root });
  assert.deepEqual(hosted.run, []);
  assert.deepEqual(hosted.replies, [{}, {}, {}, {}, {}, {}, {}]);
});

Deno.test("attack: standalone without a grant, a remote skill's own declaration releases no environment value", async () => {
  // The publisher's SKILL.md declares API_KEY; without a row naming the remote skill its
  // declaration grants nothing (as it grants no run): a worker asking for it gets nothing.
  await using tree = await makeTree({
    "root/honest/SKILL.md": HONEST,
    "sources/acme/honest/SKILL.md": HONEST,
  });
  const root = await Deno.realPath(`${tree.path}/root`);
  const sources = await Deno.realPath(`${tree.path}/sources`);
  const serviceFor = (grant: ReturnType<typeof parseGrant>) =>
    createEnvReleaseService({
      declarationReader: computeWorkerPermissions([{ path: root, realPath: root }], {
        sourceFolders: [sources],
      }),
      declarationBases: [{ path: root, prefix: null }, { path: sources, prefix: "acme" }],
      declarationSourcesBase: sources,
      scripts: { grant, folderVerdicts: [], mayRun: true },
    }, { caps: DEFAULT_CAPS, getEnv, overrides: () => ({}) });
  const ask = (skill: string, dir: string) => ({
    skill,
    script: "scripts/take.sh",
    dir,
    names: ["API_KEY"],
  });
  const standalone = serviceFor(parseGrant(null, { hosted: false }));
  try {
    assert.deepEqual(await standalone.release(ask("acme__honest", `${sources}/acme/honest`)), {});
    // A local skill's declaration still stands.
    assert.deepEqual(await standalone.release(ask("honest", `${root}/honest`)), {
      API_KEY: "key-value",
    });
  } finally {
    standalone.reader.close();
  }
  // A row naming the remote skill is the owner's word: then its declaration bounds the release.
  const rows = JSON.stringify([{
    skill: "acme__honest",
    script: "scripts/take.sh",
    env: ["API_KEY"],
  }]);
  const granted = serviceFor(parseGrant(rows, { hosted: false }));
  try {
    assert.deepEqual(await granted.release(ask("acme__honest", `${sources}/acme/honest`)), {
      API_KEY: "key-value",
    });
  } finally {
    granted.reader.close();
  }
});

Deno.test("attack: a worker naming PREFIX__NAME with another root's same-named folder gets only what that skill's own root declares", async () => {
  // The owner's row names team__deploy's API_KEY, but team's deploy no longer declares it; the
  // unprefixed root's (and a remote source's) deploy does. Naming their folder gets nothing.
  const deploy = HONEST.replace("name: honest", "name: deploy");
  await using tree = await makeTree({
    "team/deploy/SKILL.md": deploy.replace("env: [API_KEY]", "env: []"),
    "open/deploy/SKILL.md": deploy,
    "sources/acme/deploy/SKILL.md": deploy,
  });
  const real = (name: string) => Deno.realPathSync(`${tree.path}/${name}`);
  const bases = [
    { path: real("team"), prefix: "team" },
    { path: real("open"), prefix: null },
    { path: real("sources"), prefix: "acme" },
  ];
  const ask = (skill: string, dir: string) =>
    readDeclaredEnv({ skill, script: "scripts/take.sh", dir: `${tree.path}/${dir}` }, {
      bases,
      maxSkillMdBytes: 65_536,
    });
  assert.deepEqual(await ask("team__deploy", "team/deploy"), []);
  assert.deepEqual(await ask("team__deploy", "open/deploy"), []);
  assert.deepEqual(await ask("team__deploy", "sources/acme/deploy"), []);
  assert.deepEqual(await ask("acme__deploy", "open/deploy"), []);
  assert.deepEqual(await ask("deploy", "sources/acme/deploy"), []);
  // Each skill's own folder, under its own prefix, still answers.
  assert.deepEqual(await ask("deploy", "open/deploy"), ["API_KEY"]);
  assert.deepEqual(await ask("acme__deploy", "sources/acme/deploy"), ["API_KEY"]);
});

Deno.test("declarationBasesOf() binds each root's real path to its own prefix, and the sources cache to the remote prefixes", async () => {
  await using tree = await makeTree({ "team/a/SKILL.md": HONEST, "open/b/SKILL.md": HONEST });
  const config = parseCommandLine({
    args: [
      "serve",
      `--root-prefix=team=${tree.path}/team`,
      `${tree.path}/team`,
      `${tree.path}/open`,
    ],
    getEnv: () => undefined,
    cwd: tree.path,
  });
  const { paths } = await checkRoots(config.roots);
  const real = (name: string) => Deno.realPathSync(`${tree.path}/${name}`);
  assert.deepEqual(declarationBasesOf(config, paths, null), [
    { path: real("team"), prefix: "team", isRoot: true },
    { path: real("open"), prefix: null, isRoot: true },
  ]);
  const remote = {
    ...config,
    roots: [...config.roots, { path: "/cache/acme/rev", from: "remote" as const, prefix: "acme" }],
  };
  assert.deepEqual(declarationBasesOf(remote, paths, "/cache").at(-1), {
    path: "/cache",
    prefix: "acme",
  });
});
