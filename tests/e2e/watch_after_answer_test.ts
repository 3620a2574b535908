/**
 * A small catalog's watcher starts after the first `initialize` answer (issue
 * 13); the catch-up check after it must see what changed before the watch was
 * live, a file added inside a skill's existing folders too (the rescan by
 * listed files' versions alone would keep the old listing).
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 20_000;

Deno.test({
  name:
    "small catalog over stdio: files added in a skill's folder and sub-folder the moment the client is connected reach resources/list, and a later edit is served by the watch",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-late-watch-" }));
    try {
      for (const name of ["atlas", "birch", "cedar"]) {
        await Deno.mkdir(`${root}/${name}/references`, { recursive: true });
        await Deno.writeTextFile(
          `${root}/${name}/SKILL.md`,
          `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`,
        );
      }
      await Deno.writeTextFile(`${root}/atlas/references/old.md`, "old\n");
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      await using session = await connectStdio(["serve", root, "--no-index-cache"]);
      // At once, no await on the server in between: one file in a listed sub-folder, one in an
      // empty one, one beside SKILL.md.
      await Deno.writeTextFile(`${root}/atlas/references/added.md`, "added\n");
      await Deno.writeTextFile(`${root}/birch/references/first.md`, "first\n");
      await Deno.writeTextFile(`${root}/cedar/notes.md`, "notes\n");
      const wanted = [
        "skill://atlas/references/added.md",
        "skill://birch/references/first.md",
        "skill://cedar/notes.md",
      ];
      const uris = async () => (await session.client.listResources()).resources.map((r) => r.uri);
      const deadline = Date.now() + CEILING_MS;
      let last: string[] = [];
      while (!wanted.every((uri) => last.includes(uri))) {
        if (Date.now() > deadline) throw new Error(`not listed: ${JSON.stringify(last)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        last = await uris();
      }
      assert.ok(last.includes("skill://atlas/references/old.md"));
      // The watch is live by now: a later edit is served too.
      await Deno.writeTextFile(`${root}/cedar/later.md`, "later\n");
      while (!(last = await uris()).includes("skill://cedar/later.md")) {
        if (Date.now() > deadline) throw new Error(`not listed: ${JSON.stringify(last)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const read = await session.client.readResource({ uri: "skill://birch/references/first.md" });
      assert.match(JSON.stringify(read.contents), /first/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
