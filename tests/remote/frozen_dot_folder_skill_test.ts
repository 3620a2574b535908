/**
 * Review r14: the lock's digests come from `groupSkills()` over every
 * extracted file (a SKILL.md under a dot-folder such as `.claude/skills/`
 * makes a skill there; only dot-*segments below* a skill are left out),
 * while `--frozen`'s re-hash (`remote_roots.ts` `hashTree()`) passes over
 * every dot-entry from the top. A repository holding a skill under
 * `.claude/skills/` so never matches its own lock: `--frozen` serves none of
 * its skills, and every `sync` finds the copy "damaged" and downloads again.
 */

import { join } from "node:path";
import { runProgram } from "../support/program.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture } from "./_remote_fixture.ts";

const SPEC = "github:acme/skills";

Deno.test("--frozen serves a source whose repository also holds a skill under a dot-folder", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", {
    "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Reads PDF files.\n---\nBody.\n",
    ".claude/skills/helper/SKILL.md":
      "---\nname: helper\ndescription: A project helper.\n---\nBody.\n",
  });
  const lock = join(fx.dir, "skillgate.lock");
  const env = { XDG_CACHE_HOME: join(fx.dir, "cache") };
  const args = [
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${lock}`,
  ];
  const sync = await runProgram(["sync", ...args], { env });
  assertEquals(sync.code, 0, sync.stderr);
  const listed = async (extra: string[]) => {
    const result = await runProgram(["list", ...args, ...extra, "--json"], { env });
    const answer = JSON.parse(result.stdout) as {
      skills: { name: string }[];
      problems: { reason: string; detail: string }[];
    };
    return {
      names: answer.skills.map((skill) => skill.name),
      problems: answer.problems.map((p) => `${p.reason}: ${p.detail}`),
    };
  };
  const plain = await listed([]);
  const frozen = await listed(["--frozen"]);
  assertEquals(frozen.names, plain.names, JSON.stringify(frozen.problems));
  assertEquals(plain.names.includes("acme-skills__pdf"), true, JSON.stringify(plain));
  // A second sync finds the copy as the first left it: nothing to download again.
  const before = fx.fake.seen.filter((request) => request.host === "download").length;
  const again = await runProgram(["sync", ...args], { env });
  assertEquals(again.code, 0, again.stderr);
  assertEquals(fx.fake.seen.filter((request) => request.host === "download").length, before);
});
