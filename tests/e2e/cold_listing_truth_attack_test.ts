/**
 * Review r6 (issue 13, s13's digest isolate and its listing pass): the first
 * full `skills/list` of a catalog large enough for the digest isolate, with a
 * cold index cache, checked against the ground truth computed here: every
 * file the skill folders serve is listed once, with the SHA-256 and size of
 * its bytes on disk, and nothing else (a link leading outside, a hidden file,
 * a FIFO, a nested skill's files stay out). Then the same with the index
 * cache the first start wrote (warm): the same manifest. Nothing here
 * measures speed; waits have a ceiling.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openSession } from "../../bench/support/servers.ts";
import type { RpcChild } from "../../bench/support/rpc_client.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

const SKILLS = 1_100;

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** A root of `SKILLS` skills, with the walk's odd cases spread among them. */
async function makeRoot(root: string, outside: string): Promise<Map<string, string>> {
  const truth = new Map<string, string>();
  const write = async (skill: string, rel: string, text: string | Uint8Array) => {
    const path = `${root}/${skill}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    await Deno.writeFile(path, bytes);
    truth.set(`skill://${skill}/${rel}`, `${sha256(bytes)} ${bytes.length}`);
  };
  await Deno.writeTextFile(`${outside}/secret.md`, "outside secret\n");
  for (let index = 0; index < SKILLS; index++) {
    const name = `s${String(index).padStart(4, "0")}`;
    await write(
      name,
      "SKILL.md",
      `---\nname: ${name}\ndescription: Skill ${index}\n---\n# ${name}\n`,
    );
    await write(name, "references/guide.md", `guide ${index}\n`.repeat(index % 7 + 1));
    if (index % 3 === 0) await write(name, "scripts/run.sh", `echo ${index}\n`);
    if (index % 5 === 0) await write(name, "assets/deep/er/data.bin", new Uint8Array(index % 300));
    if (index % 11 === 0) await Deno.symlink(`${outside}/secret.md`, `${root}/${name}/leak.md`);
    if (index % 13 === 0) await Deno.writeTextFile(`${root}/${name}/.hidden.md`, "hidden\n");
    if (index % 17 === 0) {
      // A link inside the skill is served under its own name, with the target's bytes.
      await Deno.symlink("references/guide.md", `${root}/${name}/alias.md`);
      const target = truth.get(`skill://${name}/references/guide.md`)!;
      truth.set(`skill://${name}/alias.md`, target);
    }
    if (index % 19 === 0) {
      const fifo = new Deno.Command("mkfifo", { args: [`${root}/${name}/pipe.md`] });
      assert.equal((await fifo.output()).code, 0);
    }
  }
  return truth;
}

/** Pages through `skills/list`; returns `uri -> "digest size"` for every resource. */
async function manifest(child: RpcChild): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const answer = await child.request("skills/list", cursor === undefined ? {} : { cursor });
    const result = answer.result as {
      skills: { resources: { uri: string; digest: string; size: number }[] }[];
      nextCursor?: string;
    };
    for (const skill of result.skills) {
      for (const file of skill.resources) {
        assert.equal(seen.has(file.uri), false, `${file.uri} listed twice`);
        seen.set(file.uri, `${file.digest} ${file.size}`);
      }
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return seen;
  }
  throw new Error("skills/list did not end");
}

Deno.test({
  name:
    "attack: the cold first full skills/list of a catalog the digest isolate lists and hashes is exactly the files on disk and their SHA-256, and the warm one is the same",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "skillgate-r6-truth-" }));
    try {
      await Deno.mkdir(`${base}/root`);
      await Deno.mkdir(`${base}/outside`);
      await Deno.mkdir(`${base}/cache`, { mode: 0o700 });
      const truth = await makeRoot(`${base}/root`, `${base}/outside`);
      // Versions settled, so both the isolate's answers and the worker's own reads are kept.
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const command = {
        executable: Deno.execPath(),
        args: programCommand(["serve", `${base}/root`, "--index-cache", `${base}/cache`]),
        cwd: REPO_ROOT,
        env: programEnv(),
      };
      for (const start of ["cold", "warm"]) {
        const session = await openSession(command);
        try {
          const listed = await manifest(session.child);
          const missing = [...truth.keys()].filter((uri) => !listed.has(uri));
          const extra = [...listed.keys()].filter((uri) => !truth.has(uri));
          assert.deepEqual(missing.slice(0, 5), [], `${start}: files left out`);
          assert.deepEqual(extra.slice(0, 5), [], `${start}: files listed that are not served`);
          const wrong = [...truth].filter(([uri, fact]) => listed.get(uri) !== fact);
          assert.deepEqual(wrong.slice(0, 5), [], `${start}: a digest or size is not the file's`);
          assert.doesNotMatch(
            session.child.stderrTail(),
            /digest isolate/,
            `${start}: the digest isolate failed`,
          );
        } finally {
          await session.child.close(5_000);
        }
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
