/**
 * Review r8 (issue 13, s16's located SKILL.md read): an open alone can act
 * (review r6: a FIFO's waiting writer is released, a device may do
 * something), so the gate never opens what is not a regular file: the full
 * way `lstat`s first and refuses. A located open in front of it (no `lstat`:
 * `O_NOFOLLOW | O_NONBLOCK` open, then `fstat`) opens a FIFO named SKILL.md,
 * which discovery takes as a candidate whatever its type, and releases a
 * writer blocked in its `open`. The build must refuse such a SKILL.md
 * without opening it.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import type { SkillCandidate } from "../../src/skills/discover.ts";
import { readSkillMd } from "../../src/skills/_read_skill_md.ts";

/** How long a released writer gets to end before it is taken as still blocked (a ceiling). */
const RELEASE_GRACE_MS = 1_500;

Deno.test({
  name:
    "attack: a FIFO named SKILL.md is refused without being opened: a writer blocked in its open stays blocked",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r8-fifo-" }));
    try {
      const dir = `${base}/fifo-skill`;
      await Deno.mkdir(dir);
      const made = await new Deno.Command("mkfifo", { args: [`${dir}/SKILL.md`] }).output();
      assert.equal(made.code, 0);
      // Blocks in open(O_WRONLY) until some process opens the FIFO for reading.
      const writer = new Deno.Command("sh", {
        args: ["-c", 'exec 3>"$0"; echo released', `${dir}/SKILL.md`],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const ended = writer.output();
      try {
        const candidate = {
          name: "fifo-skill",
          baseName: "fifo-skill",
          from: "argument",
          dir,
          realDir: dir,
          root: base,
          skillMdFile: "SKILL.md",
          entries: [],
        } as unknown as SkillCandidate;
        const read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes, {
          withDigest: true,
        });
        assert.equal(read.ok, false, "a FIFO SKILL.md was served");
        const outcome = await Promise.race([
          ended.then(() => "released"),
          new Promise<string>((resolve) => {
            const timer = setTimeout(() => resolve("blocked"), RELEASE_GRACE_MS);
            void ended.finally(() => clearTimeout(timer));
          }),
        ]);
        assert.equal(outcome, "blocked", "the build opened the FIFO (its waiting writer ran on)");
      } finally {
        try {
          writer.kill("SIGKILL");
        } catch {
          // Ended already.
        }
        await ended;
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
