/**
 * Review r8 (issue 13, the cold first full `skills/list` cuts): while a
 * hostile author's process (`tests/support/r8_swapper.ts`) keeps swapping
 * `SKILL.md`, a listed file and its folder for symlinks to a folder outside
 * the root and rewriting that file in place with other bytes of the same
 * size, cold starts (an empty index cache each, a catalog large enough for
 * the digest isolate) page through `skills/list` and read the attacked files.
 * No answer may carry a byte from outside the root, and every digest served
 * for an attacked file must be the SHA-256 of one whole version it held (no
 * torn read). After the swaps stop and the versions settle, a start on the
 * last start's index cache must list exactly the files on disk and their
 * SHA-256: no digest was stored for a version that changed during its read.
 * Bounded: the swapper runs `RACE_MS`, starts stop at 50. Nothing is timed.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openSession } from "../../bench/support/servers.ts";
import type { RpcChild } from "../../bench/support/rpc_client.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

const SKILLS = 1_100;
const ATTACK_EVERY = 10;
const RACE_MS = 25_000;
const MAX_STARTS = 50;
const SECRET = "OUTSIDE SECRET bytes no answer may carry ".padEnd(63, "!") + "\n";

const sha256 = (bytes: Uint8Array | string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const variant = (skill: string, which: "A" | "B" | "0") =>
  `guide ${which} of ${skill} `.padEnd(63, ".") + "\n";
const nameOf = (index: number) => `s${String(index).padStart(4, "0")}`;
/** Skills whose folder is exchanged with a link in a tight loop (index % 10 === 5, the first few). */
const EXCHANGED = [5, 15, 25, 35, 45, 55, 65, 75].map((index) => nameOf(index));

/** The root: SKILLS skills, each a SKILL.md, references/guide.md and, for some, a script. */
async function makeRoot(root: string, outside: string): Promise<string[]> {
  await Deno.mkdir(`${outside}/refs`, { recursive: true });
  await Deno.writeTextFile(`${outside}/secret.md`, SECRET);
  await Deno.writeTextFile(`${outside}/refs/guide.md`, SECRET);
  await Deno.writeTextFile(
    `${outside}/SKILL.md`,
    "---\nname: outsider\ndescription: OUTSIDE-DESC from outside the root\n---\nOUTSIDE body\n",
  );
  const attacked: string[] = [];
  for (let index = 0; index < SKILLS; index++) {
    const name = nameOf(index);
    await Deno.mkdir(`${root}/${name}/references`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/${name}/SKILL.md`,
      `---\nname: ${name}\ndescription: Inside skill ${name}\n---\n# ${name}\n`,
    );
    await Deno.writeTextFile(`${root}/${name}/references/guide.md`, variant(name, "0"));
    if (index % 3 === 0) {
      await Deno.mkdir(`${root}/${name}/scripts`);
      await Deno.writeTextFile(`${root}/${name}/scripts/run.sh`, `echo ${index}\n`);
    }
    if (index % ATTACK_EVERY === 0) attacked.push(name);
  }
  return attacked;
}

/** Every served file on disk now: `skill://name/path -> "digest size"`. */
async function truthOnDisk(root: string): Promise<Map<string, string>> {
  const truth = new Map<string, string>();
  for (let index = 0; index < SKILLS; index++) {
    const name = nameOf(index);
    for (const rel of ["SKILL.md", "references/guide.md", "scripts/run.sh"]) {
      let bytes: Uint8Array;
      try {
        bytes = await Deno.readFile(`${root}/${name}/${rel}`);
      } catch {
        continue;
      }
      truth.set(`skill://${name}/${rel}`, `${sha256(bytes)} ${bytes.length}`);
    }
  }
  return truth;
}

/** Pages through `skills/list`: every answer's text, and `uri -> "digest size"`. */
async function listAll(child: RpcChild): Promise<{ texts: string[]; listed: Map<string, string> }> {
  const texts: string[] = [];
  const listed = new Map<string, string>();
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const answer = await child.request("skills/list", cursor === undefined ? {} : { cursor });
    texts.push(JSON.stringify(answer));
    const result = answer.result as {
      skills: { resources: { uri: string; digest: string; size: number }[] }[];
      nextCursor?: string;
    };
    for (const skill of result.skills) {
      for (const file of skill.resources) listed.set(file.uri, `${file.digest} ${file.size}`);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return { texts, listed };
  }
  throw new Error("skills/list did not end");
}

Deno.test({
  name:
    "attack: symlink swaps and same-size rewrites during cold starts' first full skills/list never serve outside bytes or a torn digest, and store no digest of a changed version",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r8-race-" }));
    try {
      const root = `${base}/root`;
      const outside = `${base}/outside`;
      await Deno.mkdir(root);
      const attacked = await makeRoot(root, outside);
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const allowed = new Map<string, Set<string>>([
        ...attacked.map((name) =>
          [
            `skill://${name}/references/guide.md`,
            new Set(
              (["0", "A", "B"] as const).map((which) => `${sha256(variant(name, which))} 64`),
            ),
          ] as const
        ),
        ...EXCHANGED.map((name) =>
          [
            `skill://${name}/references/guide.md`,
            new Set([`${sha256(variant(name, "0"))} 64`]),
          ] as const
        ),
      ]);
      const secretDigest = sha256(SECRET);
      const swapper = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-ffi",
          `${REPO_ROOT}tests/support/r8_swapper.ts`,
          root,
          outside,
          String(RACE_MS),
          ...attacked,
          ...EXCHANGED.map((name) => `+${name}`),
        ],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const swapperDone = swapper.output();
      let isSwapping = true;
      void swapperDone.finally(() => isSwapping = false);
      let starts = 0;
      let attackedListed = 0;
      let lastCache = "";
      const commandFor = (cache: string) => ({
        executable: Deno.execPath(),
        args: programCommand(["serve", root, "--index-cache", cache]),
        cwd: REPO_ROOT,
        env: programEnv(),
      });
      while (isSwapping && starts < MAX_STARTS) {
        lastCache = `${base}/cache-${starts}`;
        await Deno.mkdir(lastCache, { mode: 0o700 });
        starts++;
        const session = await openSession(commandFor(lastCache));
        try {
          const { texts, listed } = await listAll(session.child);
          const reads: string[] = [];
          for (const name of [...attacked.slice(0, 12), ...EXCHANGED]) {
            try {
              const answer = await session.child.request("resources/read", {
                uri: `skill://${name}/references/guide.md`,
              });
              reads.push(JSON.stringify(answer));
            } catch {
              // Refused while swapped: fine.
            }
          }
          for (const text of [...texts, ...reads, JSON.stringify(session.initialize)]) {
            assert.doesNotMatch(
              text,
              /OUTSIDE/,
              `start ${starts}: an answer carries outside bytes`,
            );
            assert.equal(text.includes(secretDigest), false, `start ${starts}: outside digest`);
          }
          for (const [uri, fact] of listed) {
            const versions = allowed.get(uri);
            if (versions === undefined) continue;
            attackedListed++;
            assert.ok(
              versions.has(fact),
              `start ${starts}: ${uri} served ${fact}, no version of it`,
            );
          }
        } finally {
          await session.child.close(5_000);
        }
      }
      const swapped = await swapperDone;
      assert.equal(swapped.code, 0, new TextDecoder().decode(swapped.stderr));
      assert.ok(starts >= 1);
      assert.ok(attackedListed > 0, "no attacked file was listed: the race proved nothing");
      // Settled: every version is older than the racy window; the last cache is used warm.
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const truth = await truthOnDisk(root);
      const session = await openSession(commandFor(lastCache));
      try {
        const { listed } = await listAll(session.child);
        const wrong = [...truth].filter(([uri, fact]) => listed.get(uri) !== fact);
        assert.deepEqual(wrong.slice(0, 5), [], "warm: a digest stored for a changed version");
        const extra = [...listed.keys()].filter((uri) => !truth.has(uri));
        assert.deepEqual(extra.slice(0, 5), [], "warm: files listed that are not on disk");
      } finally {
        await session.child.close(5_000);
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
