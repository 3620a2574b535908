/**
 * Attack (session 11 review of the lost path-based inotify watcher, e2e): a
 * swapper process races the trusted part's watch with the review's shapes
 * (a new folder replaced by a symlink to an outside folder before its event
 * is handled; a watched folder moved out of the root and then written to),
 * while the SDK client listens. No name from inside the outside folder
 * (all of them hold "secret") may ever reach the client: not in a
 * notification, `skill_list` (its warnings too), nor `resources/list`.
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";
import { makeTree, skillMd } from "../skills/_tree.ts";

const SWAPPER = `
set -u
R="$1"; O="$2"
i=0
while [ $i -lt 25 ]; do
  i=$((i+1))
  mkdir "$R/n$i" && rmdir "$R/n$i" && ln -s "$O/target" "$R/n$i"
  mkdir -p "$R/m$i/sub"
  mv "$R/m$i" "$O/moved$i"
  mkdir "$O/moved$i/secret-folder-$i"
  echo x > "$O/moved$i/secret-file-$i"
  echo x > "$O/moved$i/sub/secret-deep-$i"
  echo x > "$O/target/secret-late-$i"
done
`;

Deno.test("attack: a swapper racing the watch never gets an outside folder's names to the client", async () => {
  await using tree = await makeTree({
    "root/alpha/SKILL.md": skillMd("alpha"),
    "outside/target/SKILL.md": skillMd("secret-skill"),
    "outside/target/secret-sub/secret-notes.md": "secret\n",
  });
  const root = await Deno.realPath(tree.at("root"));
  const outside = await Deno.realPath(tree.at("outside"));
  const seen: string[] = [];
  const session = await connectStdio(["serve", root], {
    beforeConnect: (client) => {
      client.fallbackNotificationHandler = (notification) => {
        seen.push(JSON.stringify(notification));
        return Promise.resolve();
      };
    },
  });
  try {
    // The watch starts once the first answer went out.
    seen.push(JSON.stringify(await session.call("skill_list", {})));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const swapper = await new Deno.Command("sh", {
      args: ["-c", SWAPPER, "swapper", root, outside],
    })
      .output();
    assert.equal(swapper.code, 0, new TextDecoder().decode(swapper.stderr));
    // The refresh settles (a quiet period, then a rebuild): listings after it show what it did.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    seen.push(JSON.stringify(await session.call("skill_list", {})));
    seen.push(JSON.stringify(await session.client.listResources()));
    const leaks = seen.filter((text) => text.includes("secret"));
    assert.deepEqual(leaks, []);
    assert.ok(seen.some((text) => text.includes("alpha")), "the inside skill is still served");
  } finally {
    await session[Symbol.asyncDispose]();
  }
});
