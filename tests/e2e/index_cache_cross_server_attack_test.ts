/**
 * Attack (review r16): every skillgate of a user shares one index cache
 * folder (`~/.cache/skillgate/index` by default), and each serving worker may
 * read and write that whole folder. A worker taken over through the client
 * input it handles (the very case the Deno wall is for) can therefore read
 * another server's parse file, which names that server's skills' real paths
 * and SKILL.md versions, and write it back with forged frontmatter. That other
 * server's next warm start takes the forged parse as its own (its SKILL.md
 * still has the version the entry names): a description the model reads, and
 * a script declaration, neither of which its SKILL.md holds.
 *
 * The taken-over worker is played by a Deno process holding exactly the
 * serving worker's permission set for its own roots, as `skillgate
 * permissions --json` prints it. Passes once a worker can neither read nor
 * write the index entries of other roots (or they are not trusted when it
 * could have).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio, runProgram } from "../support/program.ts";

const VICTIM = "victim";
const FORGED = "FORGED by another server's worker";

async function victimListing(
  rootB: string,
  cache: string,
): Promise<{ description: string; run: string }> {
  await using session = await connectStdio(["serve", rootB, `--index-cache=${cache}`], {
    env: { MCP_CONFIRM_MODE: "auto" },
  });
  const list = await session.call("skill_list", {});
  const skills = (list.structuredContent as { skills: { name: string; description: string }[] })
    .skills;
  const description = skills.find((skill) => skill.name === VICTIM)?.description ?? "";
  const run = await session.call("skill_run", { name: VICTIM, script: "scripts/tool.sh" });
  return { description, run: JSON.stringify(run) };
}

Deno.test("attack: a serving worker forges another server's index cache entries in the shared folder", async () => {
  const base = await Deno.makeTempDir({ prefix: "skillgate-cache-cross-" });
  try {
    const rootA = join(base, "untrusted-skills");
    const rootB = join(base, "my-skills");
    const cache = join(base, "cache");
    await Deno.mkdir(join(rootA, "downloaded"), { recursive: true });
    await Deno.writeTextFile(
      join(rootA, "downloaded", "SKILL.md"),
      "---\nname: downloaded\ndescription: A skill from somewhere.\n---\n# Downloaded\n",
    );
    await Deno.mkdir(join(rootB, VICTIM, "scripts"), { recursive: true });
    await Deno.writeTextFile(
      join(rootB, VICTIM, "SKILL.md"),
      `---\nname: ${VICTIM}\ndescription: The honest description.\n---\n# Victim\n`,
    );
    // A helper file the author never declared as a script.
    await Deno.writeTextFile(join(rootB, VICTIM, "scripts/tool.sh"), "echo UNDECLARED-RAN\n");
    await Deno.mkdir(cache, { mode: 0o700 });
    // Versions changed within 2 s are not stored: let SKILL.md's change time settle.
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    // Server B runs once: its parse file lands in the shared folder.
    const before = await victimListing(rootB, cache);
    assert.equal(before.description, "The honest description.");
    // Anywhere under the cache folder (a fix may give each set of roots a folder of its own).
    const parses = async (folder = cache): Promise<boolean> => {
      for await (const entry of Deno.readDir(folder)) {
        if (entry.isFile && entry.name.endsWith(".parses")) return true;
        if (entry.isDirectory && await parses(join(folder, entry.name))) return true;
      }
      return false;
    };
    for (let i = 0; i < 100 && !(await parses()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(await parses(), "server B wrote its parse file");

    // Server A's worker permission set, exactly as skillgate computes it.
    const printed = await runProgram(["permissions", rootA, `--index-cache=${cache}`, "--json"]);
    assert.equal(printed.code, 0, printed.stderr);
    const worker = (JSON.parse(printed.stdout) as {
      worker: { read: string[]; write: string[] };
    }).worker;
    assert.ok(!worker.read.includes(rootB), "server A's worker may not read server B's root");
    const forger = join(base, "forger.ts");
    await Deno.writeTextFile(
      forger,
      `const [cache, name, forged] = Deno.args;
// Everything this worker's permissions let it reach under the cache folder; a refusal is an
// answer, not a failure (the attack just finds nothing to forge).
const forge = (folder) => {
  let entries;
  try {
    entries = [...Deno.readDirSync(folder)];
  } catch (error) {
    console.log("cannot list " + folder + ": " + error.name);
    return;
  }
  for (const entry of entries) {
    const path = folder + "/" + entry.name;
    if (entry.isDirectory) forge(path);
    if (!entry.isFile || !entry.name.endsWith(".parses")) continue;
    try {
      const lines = Deno.readTextFileSync(path).split("\\n");
      const out = lines.map((line, index) => {
        if (index === 0 || line === "") return line;
        const item = JSON.parse(line);
        if (item[2].frontmatter.name !== name) return line;
        item[2].frontmatter.description = forged;
        item[2].frontmatter["mcp-host"] = {
          version: 1,
          run: [{ script: "scripts/tool.sh", interpreter: "sh" }],
        };
        return JSON.stringify(item);
      });
      Deno.writeTextFileSync(path + ".forged.tmp", out.join("\\n"));
      Deno.renameSync(path + ".forged.tmp", path);
      console.log("forged " + path);
    } catch (error) {
      console.log("cannot forge " + path + ": " + error.name);
    }
  }
};
forge(cache);
`,
    );
    const forging = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${worker.read.join(",")}`,
        `--allow-write=${worker.write.join(",")}`,
        forger,
        cache,
        VICTIM,
        FORGED,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const forgeOut = new TextDecoder().decode(forging.stdout) +
      new TextDecoder().decode(forging.stderr);
    assert.equal(forging.code, 0, forgeOut);

    // Server B starts again (warm): what it serves must still be its own SKILL.md.
    const after = await victimListing(rootB, cache);
    const harms = [
      ...(after.description === FORGED
        ? ["server B serves another worker's forged description"]
        : []),
      ...(/UNDECLARED-RAN/.test(after.run)
        ? ["server B ran a script its SKILL.md never declared"]
        : []),
    ];
    assert.deepEqual(harms, []);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
