/**
 * s16 (issue 13): the build reads a plain SKILL.md by the gate's located open
 * (no resolve walk in front). Review r8's tight exchange loop
 * (`tests/support/r8_swapper.ts`: a folder and a symlink to an outside folder
 * exchanged with `renameat2(RENAME_EXCHANGE)`) is pointed at a folder on the
 * way to SKILL.md, so the located open often follows the link: only the
 * descriptor-location check (and the full way's checks after it) keep the
 * outside SKILL.md's text out. Bounded: the swapper runs `RACE_MS`. Nothing
 * is timed.
 */

import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../src/caps.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import type { SkillCandidate } from "../../src/skills/discover.ts";
import { readSkillMd, skillMdLocatedReadsSoFar } from "../../src/skills/_read_skill_md.ts";

const RACE_MS = 3_000;
const SKILLS = 6;
const SECRET = "OUTSIDE-SECRET-DESCRIPTION";

Deno.test({
  name:
    "attack: a folder on the way to SKILL.md exchanged with a link to outside in a tight loop never lets the build's SKILL.md read return outside text",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-s16-xchg-" }));
    try {
      await Deno.mkdir(`${base}/outside/refs`, { recursive: true });
      await Deno.writeTextFile(
        `${base}/outside/refs/SKILL.md`,
        `---\nname: references\ndescription: ${SECRET}\n---\n`,
      );
      const candidates: SkillCandidate[] = [];
      const names: string[] = [];
      for (let index = 0; index < SKILLS; index++) {
        // The swapper exchanges `<root>/k<i>/references`: the candidate's folder is that folder.
        const dir = `${base}/root/k${index}/references`;
        await Deno.mkdir(dir, { recursive: true });
        await Deno.writeTextFile(`${dir}/SKILL.md`, `---\nname: references\ndescription: d\n---\n`);
        names.push(`+k${index}`);
        candidates.push({
          name: "references",
          baseName: "references",
          from: "argument",
          dir,
          realDir: dir,
          root: `${base}/root`,
          skillMdFile: "SKILL.md",
          entries: [{ name: "SKILL.md", isFile: true, isDirectory: false, isSymlink: false }],
        } as SkillCandidate);
      }
      const swapper = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-ffi",
          new URL("../support/r8_swapper.ts", import.meta.url).pathname,
          `${base}/root`,
          `${base}/outside`,
          String(RACE_MS),
          ...names,
        ],
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const done = swapper.output();
      let isRunning = true;
      void done.finally(() => isRunning = false);
      const located = skillMdLocatedReadsSoFar();
      let served = 0;
      let outside = 0;
      while (isRunning) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        for (const candidate of candidates) {
          const read = await readSkillMd(candidate, DEFAULT_CAPS.maxSkillMdBytes, {
            withDigest: true,
          });
          if (!read.ok) continue;
          served++;
          if (read.text.includes(SECRET)) outside++;
        }
      }
      const swapped = await done;
      assert.equal(swapped.code, 0, new TextDecoder().decode(swapped.stderr));
      assert.equal(outside, 0, `outside SKILL.md text served ${outside} times`);
      // The located open really read under the race (else it proved nothing).
      assert.ok(served > 0 && skillMdLocatedReadsSoFar() > located, `served ${served}`);
    } finally {
      installFdLocator(locateDirectly);
      await Deno.remove(base, { recursive: true });
    }
  },
});
