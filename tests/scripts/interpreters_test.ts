import assert from "node:assert/strict";
import { lookUpInterpreters } from "../../src/scripts/interpreters.ts";
import { makeTree } from "../skills/_tree.ts";

Deno.test("lookUpInterpreters() takes the first absolute PATH entry and skips relative ones", () => {
  const present = new Set(["/venv/bin/python3", "/usr/bin/python3", "./bin/node", "/usr/bin/sh"]);
  const table = lookUpInterpreters("./bin::/venv/bin:/usr/bin", {
    isExecutable: (path) => present.has(path),
  });
  assert.deepEqual(table.python3, { name: "python3", available: true, path: "/venv/bin/python3" });
  assert.equal(table.node.available, false);
  assert.equal(table.sh.available && table.sh.path, "/usr/bin/sh");
  assert.deepEqual(table.exec, { name: "exec", available: true, path: null });
  assert.ok(!table.deno.available && /not found on PATH/.test(table.deno.reason));
});

Deno.test("lookUpInterpreters() keeps a symlinked interpreter's literal path (virtual environments)", async () => {
  await using tree = await makeTree({ "real/python3": "#!/bin/sh\n", "venv/bin/.keep": "" });
  await Deno.chmod(tree.at("real/python3"), 0o755);
  await Deno.symlink(tree.at("real/python3"), tree.at("venv/bin/python3"));
  await Deno.writeTextFile(tree.at("venv/bin/node"), "not executable");
  const table = lookUpInterpreters(`${tree.at("venv/bin")}:${tree.at("real")}`);
  assert.equal(table.python3.available && table.python3.path, tree.at("venv/bin/python3"));
  assert.equal(table.node.available, false);
});
