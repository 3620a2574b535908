import assert from "node:assert/strict";
import { parseGrant } from "../../../src/scripts/grant.ts";
import {
  checkGrantFolders,
  isForbiddenFolder,
  type ProtectedFolders,
} from "../../../src/scripts/sandbox/grant_folders.ts";
import { interpreterFoldersOf } from "../../../src/scripts/sandbox/system_mounts.ts";
import { makeTree } from "../../skills/_tree.ts";

const FOLDERS: ProtectedFolders = {
  roots: ["/srv/skills"],
  homes: ["/home/me", "/root"],
  skillgate: ["/opt/skillgate", "/home/me/.cache/deno"],
};

Deno.test("isForbiddenFolder() refuses /, homes, roots and skillgate's folders, around and inside", () => {
  const table: [string, RegExp | null][] = [
    ["/", /whole file system/],
    ["/home/me", /home folder itself/],
    ["/root", /home folder itself/],
    ["/srv/skills", /is or holds a skill root/],
    ["/srv", /is or holds a skill root/],
    ["/srv/skills/a/data", /inside a skill root/],
    ["/opt/skillgate", /skillgate's own folders/],
    ["/opt/skillgate/node_modules", /skillgate's own folders/],
    ["/opt", /skillgate's own folders/],
    ["/home/me/.cache", /skillgate's own folders/],
    ["/home/me/projects/app", null],
    ["/srv/skillsets", null],
    ["/data", null],
  ];
  for (const [path, why] of table) {
    const found = isForbiddenFolder(path, FOLDERS);
    if (why === null) assert.equal(found, null, path);
    else assert.match(found ?? "", why, path);
  }
});

Deno.test("isForbiddenFolder() for an interpreter prefix checks only /, homes and holding a root", () => {
  assert.equal(isForbiddenFolder("/opt/skillgate/.tools", FOLDERS, { prefix: true }), null);
  assert.equal(isForbiddenFolder("/home/me/.pyenv", FOLDERS, { prefix: true }), null);
  assert.match(isForbiddenFolder("/home/me", FOLDERS, { prefix: true }) ?? "", /home/);
  assert.match(isForbiddenFolder("/srv", FOLDERS, { prefix: true }) ?? "", /skill root/);
});

Deno.test("checkGrantFolders() resolves real paths and refuses a row on any bad folder", async () => {
  await using tree = await makeTree({
    "skills/a/SKILL.md": "x",
    "data/in.txt": "x",
    "link": { symlink: "skills" },
    "file.txt": "x",
  });
  const real = await Deno.realPath(tree.path);
  const folders: ProtectedFolders = { roots: [`${real}/skills`], homes: [], skillgate: [] };
  const grant = parseGrant(
    JSON.stringify([
      { skill: "a", script: "s", read: [tree.at("data")], write: [tree.at("data")] },
      { skill: "a", script: "s", read: [tree.at("link")] },
      { skill: "a", script: "s", write: [tree.at("file.txt")] },
      { skill: "a", script: "s", read: [tree.at("nowhere")] },
      { skill: "a", script: "s" },
    ]),
    { hosted: false },
  );
  assert.deepEqual(checkGrantFolders(grant, folders), [
    { index: 0, read: [`${real}/data`], write: [`${real}/data`] },
    { index: 1, refused: "its read folder #0 is refused: it is or holds a skill root" },
    { index: 2, refused: "its write folder #0 does not exist or is not a folder" },
    { index: 3, refused: "its read folder #0 does not exist or is not a folder" },
  ]);
});

Deno.test("interpreterFoldersOf() mounts an outside installation's prefix, never a home itself", async () => {
  await using tree = await makeTree({ "venv/bin/python3": "#!/bin/sh\n", "home/bin/deno": "x" });
  const real = await Deno.realPath(tree.path);
  const none: ProtectedFolders = { roots: [], homes: [`${real}/home`], skillgate: [] };
  assert.deepEqual(interpreterFoldersOf(`${real}/venv/bin/python3`, none), [`${real}/venv`]);
  assert.deepEqual(interpreterFoldersOf(`${real}/home/bin/deno`, none), [`${real}/home/bin`]);
  assert.deepEqual(interpreterFoldersOf("/usr/bin/sh", none), []);
});

Deno.test("attack: an interpreter in ~/.local/bin or ~/.cargo/bin never mounts the whole home sub-folder (keyrings, credentials)", async () => {
  await using tree = await makeTree({
    "home/.local/bin/python3": "#!/bin/sh\n",
    "home/.local/share/keyrings/login.keyring": "KEYRING-SECRET",
    "home/.cargo/bin/deno": "x",
    "home/.cargo/credentials.toml": "token",
    "home/.local/share/uv/python/cpython-3.12/bin/python3.12": "#!/bin/sh\n",
    "home/.local/share/uv/python/cpython-3.12/lib/python3.12/os.py": "",
    "home/.pyenv/shims/python3": "#!/bin/sh\nexec ~/.pyenv/libexec/pyenv exec python3\n",
    "home/.pyenv/libexec/pyenv": "#!/bin/sh\n",
  });
  const real = await Deno.realPath(tree.path);
  const folders: ProtectedFolders = { roots: [], homes: [`${real}/home`], skillgate: [] };
  // The literal interpreter: only its own folder, not ~/.local.
  assert.deepEqual(interpreterFoldersOf(`${real}/home/.local/bin/python3`, folders), [
    `${real}/home/.local/bin`,
  ]);
  assert.deepEqual(interpreterFoldersOf(`${real}/home/.cargo/bin/deno`, folders), [
    `${real}/home/.cargo/bin`,
  ]);
  // A link in ~/.local/bin to a real installation deeper in home (uv): the link's folder and the
  // installation's prefix, which is not a home's direct sub-folder.
  await Deno.remove(`${real}/home/.local/bin/python3`);
  await Deno.symlink(
    `${real}/home/.local/share/uv/python/cpython-3.12/bin/python3.12`,
    `${real}/home/.local/bin/python3`,
  );
  assert.deepEqual(interpreterFoldersOf(`${real}/home/.local/bin/python3`, folders), [
    `${real}/home/.local/bin`,
    `${real}/home/.local/share/uv/python/cpython-3.12`,
  ]);
  for (const mounted of interpreterFoldersOf(`${real}/home/.local/bin/python3`, folders)) {
    assert.ok(!`${real}/home/.local/share/keyrings/login.keyring`.startsWith(`${mounted}/`));
  }
  // An installation in a home sub-folder of its own (pyenv) keeps its prefix: its shim needs libexec.
  assert.deepEqual(interpreterFoldersOf(`${real}/home/.pyenv/shims/python3`, folders), [
    `${real}/home/.pyenv`,
  ]);
});
