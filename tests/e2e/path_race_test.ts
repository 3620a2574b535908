/**
 * Attack: a process that can write inside a skill swaps a folder for a
 * symlink to a secret outside, back and forth, while a client reads a file
 * under that folder. Every path check walks the path again, so before the
 * gate's descriptor check about 1 read in 5,000 returned the outside file.
 * This test drives the real attack (bounded: 1,500 reads under a swapper that
 * stops by itself); being a race it cannot prove absence, so the check itself
 * is proven deterministically in tests/files/fd_location_test.ts.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";

Deno.test("skill_file and resources/read never return a file outside the skill under a folder-swap race", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-race-" }));
  const skill = join(base, "root", "race");
  await Deno.mkdir(join(skill, "sub"), { recursive: true });
  await Deno.mkdir(join(base, "outside"));
  await Deno.writeTextFile(
    join(skill, "SKILL.md"),
    "---\nname: race\ndescription: Race.\n---\nbody\n",
  );
  await Deno.writeTextFile(join(skill, "sub", "a.txt"), "INSIDE\n");
  await Deno.writeTextFile(join(base, "outside", "a.txt"), "OUTSIDE_SECRET\n");
  await using session = await connectStdio(["serve", join(base, "root"), "--static"]);
  const swapper = new Deno.Command("python3", {
    args: [
      "-c",
      "import os,sys,time\n" +
      "d,o=sys.argv[1],sys.argv[2]\n" +
      "end=time.time()+20\n" +
      "while time.time()<end and not os.path.exists(d+'/../stop'):\n" +
      "  os.rename(d+'/sub',d+'/sub_real'); os.symlink(o,d+'/sub')\n" +
      "  os.remove(d+'/sub'); os.rename(d+'/sub_real',d+'/sub')\n",
      skill,
      join(base, "outside"),
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let attempt = 0; attempt < 1_500; attempt++) {
      const result = await session.call("skill_file", { name: "race", paths: ["sub/a.txt"] });
      const text = JSON.stringify(result);
      assert.ok(!text.includes("OUTSIDE_SECRET"), `skill_file leaked on attempt ${attempt}`);
      try {
        const read = await session.client.readResource({ uri: "skill://race/sub/a.txt" });
        assert.ok(!JSON.stringify(read).includes("OUTSIDE_SECRET"), "resources/read leaked");
      } catch (error) {
        assert.ok(!String(error).includes("OUTSIDE_SECRET"));
      }
    }
    await Deno.writeTextFile(join(base, "root", "stop"), "");
    await swapper.status;
    const calm = await session.call("skill_file", { name: "race", paths: ["sub/a.txt"] });
    assert.match(JSON.stringify(calm), /INSIDE/, "once the swapping stops, the file reads again");
  } finally {
    await Deno.writeTextFile(join(base, "root", "stop"), "");
    await swapper.status;
    await Deno.remove(base, { recursive: true });
  }
});
