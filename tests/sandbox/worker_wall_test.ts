/**
 * Proves the second wall independently of our own checks: a test-only entry
 * module runs the product's trusted part and permission computation, but its
 * worker calls Deno directly, bypassing the path gate and grant check.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runProgram } from "../support/program.ts";

Deno.test("the worker cannot read outside the roots even when the path gate is bypassed", async () => {
  const base = await Deno.makeTempDir({ prefix: "skillgate-wall-" });
  try {
    const root = join(base, "root");
    await Deno.mkdir(join(base, "outside"), { recursive: true });
    await Deno.mkdir(root);
    await Deno.writeTextFile(join(base, "outside", "secret.txt"), "secret");
    await Deno.writeTextFile(join(root, "inside.txt"), "inside");
    await Deno.symlink(join(base, "outside"), join(root, "link-out"));
    const { code, stdout, stderr } = await runProgram(["serve", root], {
      entry: "tests/support/wall_probe_main.ts",
    });
    assert.equal(code, 0, stderr);
    const results = JSON.parse(stdout.trim());
    assert.equal(results.readInsideRoot, "ok");
    assert.equal(results.readOutsideRoot, "NotCapable");
    assert.equal(results.readEtcPasswd, "NotCapable");
    assert.equal(results.statOutsideRoot, "NotCapable");
    assert.equal(results.spawnShell, "NotCapable");
    assert.equal(results.readEnvHome, "NotCapable");
    assert.equal(results.readEnvYaml, "ok");
    assert.equal(results.writeInsideRoot, "NotCapable");
    assert.equal(results.listen, "NotCapable");
    // Deno's read permission is lexical: a symlink inside a root that points
    // outside is READABLE at this layer. Only our own path gate stops it
    // (tests/files/path_gate_fs_test.ts and the stdio end-to-end tests).
    assert.equal(results.readThroughSymlinkOut, "ok");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
