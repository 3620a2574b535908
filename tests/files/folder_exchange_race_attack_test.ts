/**
 * Review r8 (issue 13): a skill's `references` folder and a symlink to a
 * folder outside the root, exchanged atomically (`renameat2` with
 * `RENAME_EXCHANGE`) in a tight loop by another process
 * (`tests/support/r8_swapper.ts`), while the reads of the first full
 * `skills/list` run: the digest isolate's listing pass (`listAndHashSkills`),
 * its file jobs (`readLocatedInChunks`) and the worker's own gated chunked
 * read (`resolveSkillFileSync` + `readWholeInChunks`). Every check made before
 * the open is beaten often by this loop (about one read in twenty follows the
 * link when the descriptor-location check is switched off); only that check,
 * done on every descriptor, keeps the outside file's bytes out. Bounded: the
 * swapper runs `RACE_MS`. Nothing is timed.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import {
  loadGateFs,
  readLocatedInChunks,
  readWholeInChunks,
} from "../../src/files/bounded_read.ts";
import { resolveSkillFileSync } from "../../src/files/path_gate.ts";
import { listAndHashSkills } from "../../src/mcp/skills_extension/digest_listing.ts";
import type { ListJobSkill } from "../../src/mcp/skills_extension/digest_messages.ts";

const RACE_MS = 4_000;
const SKILLS = 8;
const SECRET = "OUTSIDE SECRET: no gated read may return these bytes\n";
const secretDigest = createHash("sha256").update(SECRET).digest("hex");

Deno.test({
  name:
    "attack: a folder exchanged with a link to outside the root in a tight loop never lets the listing pass, a file job or the worker's chunked read hash outside bytes",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    installFdLocator(locateDirectly);
    await loadGateFs();
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r8-xchg-" }));
    try {
      await Deno.mkdir(`${base}/outside/refs`, { recursive: true });
      await Deno.writeTextFile(`${base}/outside/refs/guide.md`, SECRET);
      const skills: ListJobSkill[] = [];
      for (let index = 0; index < SKILLS; index++) {
        const dir = `${base}/root/k${index}`;
        await Deno.mkdir(`${dir}/references`, { recursive: true });
        await Deno.writeTextFile(`${dir}/SKILL.md`, `---\nname: k${index}\ndescription: d\n---\n`);
        await Deno.writeTextFile(`${dir}/references/guide.md`, `inside ${index}\n`);
        skills.push({
          name: `k${index}`,
          dir,
          realDir: dir,
          skillMdFile: "SKILL.md",
          entries: [
            { name: "SKILL.md", isFile: true, isDirectory: false, isSymlink: false },
            { name: "references", isFile: false, isDirectory: true, isSymlink: false },
          ],
        });
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
          ...skills.map((skill) => `+${skill.name}`),
        ],
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const done = swapper.output();
      let isRunning = true;
      void done.finally(() => isRunning = false);
      const counts = { listed: 0, located: 0, gated: 0 };
      const outside: string[] = [];
      while (isRunning) {
        // The reads here resolve in microtasks only: yield so the swapper's exit is heard.
        await new Promise((resolve) => setTimeout(resolve, 0));
        const results = await listAndHashSkills(skills, {
          maxFilesPerSkill: 100,
          maxFoldersPerSkill: 100,
        });
        for (const result of results) {
          for (const digest of result?.digests ?? []) {
            if (digest === null) continue;
            counts.listed++;
            if (digest.digest === `sha256:${secretDigest}`) outside.push("listing pass");
          }
        }
        for (const skill of skills) {
          const hash = createHash("sha256");
          try {
            await readLocatedInChunks(skill.realDir, "references/guide.md", 1 << 20, (chunk) => {
              hash.update(chunk);
            });
            counts.located++;
            if (hash.digest("hex") === secretDigest) outside.push("file job");
          } catch {
            // Refused while swapped: what the gate must do.
          }
          const gatedHash = createHash("sha256");
          try {
            const file = resolveSkillFileSync(skill.realDir, "references/guide.md");
            await readWholeInChunks(file, 1 << 20, (chunk) => gatedHash.update(chunk));
            counts.gated++;
            if (gatedHash.digest("hex") === secretDigest) outside.push("worker's chunked read");
          } catch {
            // Refused while swapped.
          }
        }
      }
      const swapped = await done;
      assert.equal(swapped.code, 0, new TextDecoder().decode(swapped.stderr));
      assert.deepEqual(outside.slice(0, 5), [], `outside bytes hashed (${outside.length} times)`);
      // Each way really read under the race (else it proved nothing).
      assert.ok(counts.located > 0 && counts.gated > 0, JSON.stringify(counts));
    } finally {
      installFdLocator(locateDirectly);
      await Deno.remove(base, { recursive: true });
    }
  },
});
