/**
 * The one folder check applied to everything that enters a sandbox beyond
 * the system set: skillgate's configuration and cache folders in the
 * protected set, the host's `MCP_DATA_DIR`, and interpreter prefixes reached
 * through a link.
 */

import assert from "node:assert/strict";
import { parseGrant } from "../../../src/scripts/grant.ts";
import {
  checkDataDir,
  checkGrantFolders,
  isForbiddenFolder,
  protectedFoldersOf,
} from "../../../src/scripts/sandbox/grant_folders.ts";
import {
  gatherSandboxBase,
  interpreterFoldersOf,
} from "../../../src/scripts/sandbox/system_mounts.ts";
import { makeTree } from "../../skills/_tree.ts";

function envOf(values: Record<string, string>): (name: string) => string | undefined {
  return (name) => values[name];
}

Deno.test("attack: a grant names $XDG_CONFIG_HOME/skillgate to rewrite config.json and overrides.json", async () => {
  await using tree = await makeTree({ "cfg/skillgate/config.json": "{}", "data": { dir: true } });
  const real = await Deno.realPath(tree.path);
  const folders = protectedFoldersOf({
    roots: [],
    installDir: "/opt/skillgate",
    getEnv: envOf({ XDG_CONFIG_HOME: tree.at("cfg"), HOME: "/home/nobody-here" }),
    configPath: tree.at("cfg/skillgate/config.json"),
  });
  const grant = parseGrant(
    JSON.stringify([
      { skill: "runner", script: "scripts/py.py", write: [tree.at("cfg/skillgate")] },
      { skill: "runner", script: "scripts/py.py", write: [tree.at("cfg")] },
      { skill: "runner", script: "scripts/py.py", write: [tree.at("data")] },
    ]),
    { hosted: false },
  );
  assert.deepEqual(checkGrantFolders(grant, folders), [
    {
      index: 0,
      refused: "its write folder #0 is refused: it is, holds or lies inside skillgate's own " +
        "folders (installation, lock, configuration, cache)",
    },
    {
      index: 1,
      refused: "its write folder #0 is refused: it is, holds or lies inside skillgate's own " +
        "folders (installation, lock, configuration, cache)",
    },
    { index: 2, read: [], write: [`${real}/data`] },
  ]);
});

Deno.test("attack: a grant names ~/.config/skillgate or ~/.cache/skillgate (no XDG variables set)", () => {
  const folders = protectedFoldersOf({
    roots: [],
    installDir: "/opt/skillgate",
    getEnv: envOf({ HOME: "/home/me" }),
    configPath: null,
  });
  for (const path of ["/home/me/.config/skillgate", "/home/me/.cache/skillgate/index"]) {
    assert.match(isForbiddenFolder(path, folders) ?? "", /skillgate's own folders/, path);
  }
  assert.equal(isForbiddenFolder("/home/me/.config/other", folders), null);
});

Deno.test("attack: a grant names the index cache folder given by --index-cache, or a folder holding it", async () => {
  await using tree = await makeTree({ "caches/index": { dir: true }, "data": { dir: true } });
  const real = await Deno.realPath(tree.path);
  const folders = protectedFoldersOf({
    roots: [],
    installDir: "/opt/skillgate",
    getEnv: envOf({ HOME: "/home/nobody-here" }),
    configPath: null,
    indexCacheDir: tree.at("caches/index"),
  });
  const grant = parseGrant(
    JSON.stringify([
      { skill: "runner", script: "scripts/py.py", write: [tree.at("caches/index")] },
      { skill: "runner", script: "scripts/py.py", read: [tree.at("caches")] },
      { skill: "runner", script: "scripts/py.py", write: [tree.at("data")] },
    ]),
    { hosted: false },
  );
  const refused = "is refused: it is, holds or lies inside skillgate's index cache folder";
  assert.deepEqual(checkGrantFolders(grant, folders), [
    { index: 0, refused: `its write folder #0 ${refused}` },
    { index: 1, refused: `its read folder #0 ${refused}` },
    { index: 2, read: [], write: [`${real}/data`] },
  ]);
});

Deno.test("checkDataDir() mounts a data folder holding the index cache (the caller drops the cache), never one inside it", async () => {
  // Hosted, the index cache lives in $MCP_DATA_DIR/skillgate/index; script_boot.ts then keeps none.
  await using tree = await makeTree({ "data/skillgate/index/sub": { dir: true } });
  const real = await Deno.realPath(tree.path);
  const folders = protectedFoldersOf({
    roots: [],
    installDir: "/opt/skillgate",
    getEnv: envOf({ HOME: "/home/nobody-here" }),
    configPath: null,
    indexCacheDir: tree.at("data/skillgate/index"),
  });
  assert.deepEqual(checkDataDir(tree.at("data"), folders), { path: `${real}/data`, problem: null });
  for (const inside of ["data/skillgate/index", "data/skillgate/index/sub"]) {
    const verdict = checkDataDir(tree.at(inside), folders);
    assert.equal(verdict.path, null, inside);
    assert.match(verdict.problem ?? "", /index cache folder/, inside);
  }
});

Deno.test("attack: a grant holds a --config file kept in a home folder itself", () => {
  const folders = protectedFoldersOf({
    roots: [],
    installDir: "/opt/skillgate",
    getEnv: envOf({ HOME: "/home/me" }),
    configPath: "/home/me/skillgate.json",
  });
  // The home itself is refused anyway; a sibling project folder stays grantable.
  assert.match(isForbiddenFolder("/home/me", folders) ?? "", /home folder itself/);
  assert.equal(isForbiddenFolder("/home/me/projects", folders), null);
  const elsewhere = protectedFoldersOf({
    roots: [],
    installDir: "/opt/skillgate",
    getEnv: envOf({}),
    configPath: "/etc/skillgate/config.json",
  });
  assert.match(isForbiddenFolder("/etc", elsewhere) ?? "", /skillgate's own folders/);
  assert.match(isForbiddenFolder("/etc/skillgate", elsewhere) ?? "", /skillgate's own folders/);
  assert.equal(isForbiddenFolder("/etc/ssl", elsewhere), null);
});

Deno.test("isForbiddenFolder() refuses a folder holding the configuration or overrides file", () => {
  const folders = {
    roots: [],
    homes: [],
    skillgate: [],
    files: ["/srv/conf/config.json", "/srv/conf/overrides.json"],
  };
  assert.match(isForbiddenFolder("/srv", folders) ?? "", /holds a file skillgate trusts/);
  assert.equal(isForbiddenFolder("/srv/conf/sub", folders), null);
});

Deno.test("attack: MCP_DATA_DIR names the folder holding the skill roots, a home, / or a root", async () => {
  await using tree = await makeTree({
    "roots/a/SKILL.md": "x",
    "home/me/.keep": "x",
    "data/.keep": "x",
  });
  const real = await Deno.realPath(tree.path);
  const folders = {
    roots: [`${real}/roots`],
    homes: [`${real}/home/me`],
    skillgate: [],
  };
  const table: [string, RegExp][] = [
    [tree.path, /refused \(it is or holds a skill root\)/],
    [tree.at("roots/a"), /refused \(it is inside a skill root\)/],
    [tree.at("home/me"), /refused \(it is a home folder itself\)/],
    [tree.at("home"), /refused \(it holds a home folder\)/],
    ["/", /refused \(it is \/, the whole file system\)/],
    [tree.at("nowhere"), /does not exist or is not a folder/],
  ];
  for (const [path, why] of table) {
    const verdict = checkDataDir(path, folders);
    assert.equal(verdict.path, null, path);
    assert.match(verdict.problem ?? "", why, path);
    assert.match(verdict.problem ?? "", /scripts get no data folder/);
    assert.ok(!(verdict.problem ?? "").includes(real), "the problem names no path");
  }
  assert.deepEqual(checkDataDir(tree.at("data"), folders), {
    path: `${real}/data`,
    problem: null,
  });
  assert.deepEqual(checkDataDir(null, folders), { path: null, problem: null });
});

Deno.test("attack: a refused MCP_DATA_DIR is not among the sandbox's mounts", async () => {
  await using tree = await makeTree({ "roots/a/SKILL.md": "x" });
  const real = await Deno.realPath(tree.path);
  const folders = { roots: [`${real}/roots`], homes: [], skillgate: [] };
  const base = gatherSandboxBase("/usr/bin/bwrap", [], folders, tree.path);
  assert.equal(base.dataDir, null);
  assert.match(base.dataDirProblem ?? "", /MCP_DATA_DIR is refused/);
});

Deno.test("attack: an interpreter whose prefix is a home reached through a link mounts only its bin", async () => {
  await using tree = await makeTree({
    "home/me/bin/python3": "#!/bin/sh\n",
    "roots/a/bin/tool": "#!/bin/sh\n",
    "alias": { symlink: "home/me" },
  });
  const real = await Deno.realPath(tree.path);
  const folders = { roots: [`${real}/roots`], homes: [`${real}/home/me`], skillgate: [] };
  // The literal prefix `alias` is no home by name; its real path is.
  assert.deepEqual(interpreterFoldersOf(`${real}/alias/bin/python3`, folders), [
    `${real}/alias/bin`,
    `${real}/home/me/bin`,
  ]);
  // An interpreter inside a skill root is not mounted at all.
  assert.deepEqual(interpreterFoldersOf(`${real}/roots/a/bin/tool`, folders), []);
});
