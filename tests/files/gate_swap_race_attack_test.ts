// Review r1 (issue 13): reads now open directly and rely on the descriptor's location, and the
// sync gate resolves below a skill folder remembered as real with one lstat per segment. Race
// both against a process that keeps swapping the folder and the file (for a symlink to outside,
// a FIFO) while they read: outside bytes must never come back, and no read may wait on a FIFO.

import assert from "node:assert/strict";
import { join } from "node:path";
import { readWhole } from "../../src/files/bounded_read.ts";
import { installFdLocator, locateDirectly } from "../../src/files/fd_location.ts";
import { PathRefusedError, resolveSkillFileSync } from "../../src/files/path_gate.ts";

/** Swap rounds the other process makes (bounded; it stops by itself). */
const SWAP_ROUNDS = 150;
/** Reads at most, and at most this long in total (bounds, not assertions). */
const MAX_READS = 20_000;
const MAX_WALL_MS = 30_000;

const SWAPPER = `
cd "$1"
i=0
while [ $i -lt ${SWAP_ROUNDS} ]; do
  mv skill/sub skill/sub.real && ln -s "$2" skill/sub
  rm skill/sub && mv skill/sub.real skill/sub
  ln -s "$2/a.txt" skill/sub/a.tmp && mv -f skill/sub/a.tmp skill/sub/a.txt
  ln keep skill/sub/a.tmp && mv -f skill/sub/a.tmp skill/sub/a.txt
  mkfifo skill/sub/a.tmp && mv -f skill/sub/a.tmp skill/sub/a.txt
  ln keep skill/sub/a.tmp && mv -f skill/sub/a.tmp skill/sub/a.txt
  i=$((i + 1))
done
`;

async function raceReads(label: string): Promise<void> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate_r1_race_" }));
  try {
    const skill = join(base, "skill");
    await Deno.mkdir(join(skill, "sub"), { recursive: true });
    await Deno.writeTextFile(join(skill, "sub", "a.txt"), "inside");
    await Deno.link(join(skill, "sub", "a.txt"), join(base, "keep"));
    await Deno.mkdir(join(base, "outside"));
    await Deno.writeTextFile(join(base, "outside", "a.txt"), "SECRET");
    // Resolved before any swap: the stale handle is read throughout too.
    const early = resolveSkillFileSync(skill, "sub/a.txt");
    const swapper = new Deno.Command("sh", {
      args: ["-c", SWAPPER, "swapper", base, join(base, "outside")],
      stdout: "null",
      stderr: "null",
    }).spawn();
    let done = false;
    const finished = swapper.status.then(() => done = true);
    const started = Date.now();
    const counts = { read: 0, refused: 0 };
    for (let round = 0; round < MAX_READS && !done && Date.now() - started < MAX_WALL_MS; round++) {
      for (const resolve of [() => early, () => resolveSkillFileSync(skill, "sub/a.txt")]) {
        try {
          const text = new TextDecoder().decode(await readWhole(resolve(), 100));
          assert.equal(text, "inside", `${label}: outside bytes were read`);
          counts.read++;
        } catch (error) {
          if (!(error instanceof PathRefusedError)) throw error;
          counts.refused++;
        }
      }
    }
    await finished;
    // Both outcomes happened, so the race was real.
    assert.ok(counts.read > 0 && counts.refused > 0, `${label}: ${JSON.stringify(counts)}`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("attack: a folder and a file swapped for symlinks to outside and for a FIFO while read never give outside bytes (location answers)", async () => {
  await raceReads("located");
});

Deno.test("attack: a folder and a file swapped for symlinks to outside and for a FIFO while read never give outside bytes (locator answers null)", async () => {
  installFdLocator(() => Promise.resolve(null));
  try {
    await raceReads("narrowed");
  } finally {
    installFdLocator(locateDirectly);
  }
});
