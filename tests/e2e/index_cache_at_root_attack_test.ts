/**
 * Attack (n8): `--index-cache` (or `XDG_CACHE_HOME`) at a skill root. The
 * worker's one write right would land among skills (it could rewrite
 * SKILL.md, declarations, scripts) and its cache files, which hold every
 * root's paths and hidden skills' frontmatter, would be served as a skill's
 * files. A folder that is, holds or lies inside a root is not used: one
 * warning, the worker writes nothing, nothing of the cache is served.
 */

import assert from "node:assert/strict";
import { connectStdio, runProgram } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

async function twoRoots() {
  return await makeTree({
    "r1/hello/SKILL.md": skillMd("hello"),
    "r2/hidden/SKILL.md": "---\nname: hidden\ndescription: Not for the model.\n" +
      "disable-model-invocation: true\n---\n# Hidden\n",
  });
}

for (const where of ["r1/hello/cachedir", "r1", "."]) {
  Deno.test(`attack: --index-cache at ${where} (inside, the root itself, holding every root) is not used`, async () => {
    await using tree = await twoRoots();
    const cache = tree.at(where);
    await Deno.mkdir(cache, { recursive: true, mode: 0o700 });
    const args = [tree.at("r1"), tree.at("r2"), `--index-cache=${cache}`];
    const report = await runProgram(["permissions", ...args, "--json"]);
    assert.equal(report.code, 0, report.stderr);
    const json = JSON.parse(report.stdout) as { worker: { write: string[] } };
    assert.deepEqual(json.worker.write, [], "the worker writes nothing at a root");
    assert.match(report.stderr, /index cache folder is, holds or lies inside the skill root/);
    await using session = await connectStdio(["serve", ...args]);
    const listed = await session.client.listResources();
    const uris = listed.resources.map((resource) => resource.uri);
    assert.ok(!uris.some((uri) => /\.parses|\.digests|cachedir/.test(uri)), uris.join("\n"));
    assert.match(
      session.stderr(),
      /point --index-cache \(or XDG_CACHE_HOME\) outside the skill roots/,
    );
    const entries = [...Deno.readDirSync(cache)].map((entry) => entry.name);
    assert.ok(!entries.some((name) => name.startsWith("skills-")), entries.join(","));
  });
}

Deno.test("attack: XDG_CACHE_HOME inside a skill root puts the remote sources cache there: refused at start with what to do", async () => {
  await using tree = await twoRoots();
  const result = await runProgram(
    ["serve", tree.at("r1"), "--source=github:acme/skills@main", "--github-allow=acme"],
    { env: { XDG_CACHE_HOME: tree.at("r1/hello/xc") }, stdin: "" },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /remote sources cache folder .* is, holds or lies inside the skill root .*set XDG_CACHE_HOME to a folder outside the skill roots/,
  );
});
