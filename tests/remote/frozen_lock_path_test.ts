/**
 * The real program with `--frozen` and a lock given by `--lock`: every
 * message that sends the user to `skillgate sync` names the lock file in
 * use, and says when there is none (a bare "run skillgate sync" pinned the
 * source in ./skillgate.lock while serve kept reading the other file).
 */

import { join } from "node:path";
import { runProgram } from "../support/program.ts";
import { publishSkills, startFakePublisher } from "../support/fake_publisher.ts";
import { assertEquals } from "./_assert.ts";

const md = `---\nname: pdf\ndescription: The pdf skill.\n---\nUse it.\n`;

Deno.test("--frozen errors name the lock file given by --lock, and say when it does not exist", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-frozen-lock-" });
  try {
    await using pub = startFakePublisher();
    await publishSkills(pub, [{ name: "pdf", as: "skill-md", files: { "SKILL.md": md } }]);
    const env = { XDG_CACHE_HOME: join(dir, "cache") };
    const sources = [`--source=${pub.base}`, `--well-known-allow=${pub.origin}`];
    const missing = join(dir, "team.lock");

    const sync = await runProgram(["sync", ...sources, "--frozen", `--lock=${missing}`], { env });
    assertEquals(sync.code, 1, sync.stderr);
    assertEquals(
      sync.stderr.includes(`--frozen: there is no lock file at ${missing} to keep`),
      true,
      sync.stderr,
    );

    const list = await runProgram(["list", ...sources, "--frozen", `--lock=${missing}`], { env });
    assertEquals(
      list.stdout.includes(`--frozen is set and there is no lock file at ${missing}`),
      true,
      list.stdout,
    );

    // A lock that pins another source: this one is "not in the lock PATH".
    const other = join(dir, "other.lock");
    await Deno.writeTextFile(other, JSON.stringify({ lockVersion: 1, sources: [] }));
    const unpinned = await runProgram(["list", ...sources, "--frozen", `--lock=${other}`], {
      env,
    });
    assertEquals(
      unpinned.stdout.includes(`is not in the lock ${other} and --frozen is set`),
      true,
      unpinned.stdout,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
