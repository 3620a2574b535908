/**
 * Issue 12: real clients of both eras against the real program over stdio:
 * the 1.32 client (2025-11-25 handshake), the 2.x client pinned to
 * 2026-07-28 (server/discover, per-request envelope, input_required served
 * by its elicitation handler), and the 2.x skills client, which verifies
 * every file it reads against the digest, size and frontmatter `skills/list`
 * announced, over the corpus.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { copyCorpus, corpora } from "../support/corpora.ts";
import { connectStdio, runProgram } from "../support/program.ts";
import { connectStdioV2 } from "../support/program_v2.ts";
import { SkillsClient } from "../support/sdk_v2_client.ts";

const SKILL = "greeter";

async function makeSkillRoot(): Promise<{ root: string } & AsyncDisposable> {
  const base = await Deno.makeTempDir({ prefix: "skillgate-eras-" });
  const dir = join(base, "skills", SKILL);
  await Deno.mkdir(join(dir, "scripts"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: ${SKILL}\ndescription: Greets by name.\nmcp-host:\n  version: 1\n` +
      "  run:\n    - script: scripts/greet.sh\n      interpreter: sh\n---\n# Greeter\n",
  );
  await Deno.writeTextFile(join(dir, "scripts/greet.sh"), 'printf "hello %s" "$1"\n');
  return {
    root: join(base, "skills"),
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

const ENV = {
  MCP_SKILL_RUN: JSON.stringify([{ skill: SKILL, script: "scripts/greet.sh" }]),
  MCP_CONFIRM_MODE: "ask-user",
};
const RUN = {
  name: "skill_run",
  arguments: { name: SKILL, script: "scripts/greet.sh", args: ["ada"] },
};

Deno.test("the 1.32 client negotiates 2025-11-25 through initialize", async () => {
  await using tree = await makeSkillRoot();
  await using session = await connectStdio(["serve", tree.root], { env: ENV });
  assert.equal(session.client.getServerVersion()?.name, "skillgate");
  const tools = await session.client.listTools();
  assert.ok(tools.tools.some((tool) => tool.name === "skill_run"));
  assert.equal("resultType" in tools, false, "2025-era answers carry no resultType");
});

Deno.test("the 2.x client pinned to 2026-07-28 runs skill_run through input_required and its elicitation handler", async () => {
  await using tree = await makeSkillRoot();
  await using session = await connectStdioV2(["serve", tree.root], {
    env: ENV,
    modern: true,
    elicitation: "accept",
  });
  assert.equal(session.client.getNegotiatedProtocolVersion(), "2026-07-28");
  const result = await session.client.callTool(RUN);
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.match(JSON.stringify(result.structuredContent), /hello ada/);
});

Deno.test("the 2.x client pinned to 2026-07-28: a declined confirmation runs nothing", async () => {
  await using tree = await makeSkillRoot();
  await using session = await connectStdioV2(["serve", tree.root], {
    env: ENV,
    modern: true,
    elicitation: "decline",
  });
  const result = await session.client.callTool(RUN);
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /CONFIRMATION_DECLINED/);
});

for (const corpus of corpora()) {
  Deno.test(`the 2.x skills client reads every ${corpus.label} corpus file verified (digest, size, frontmatter) on both eras`, async (t) => {
    await using copy = await copyCorpus(corpus);
    for (const modern of [false, true]) {
      await t.step(modern ? "2026-07-28" : "2025-11-25", async () => {
        await using session = await connectStdioV2(["serve", copy.root], { modern });
        const skills = new SkillsClient(session.client);
        assert.equal(skills.supported, true);
        assert.equal(skills.directoryRead, true);
        const listed = [];
        let cursor: string | undefined;
        do {
          const page = await skills.list(cursor === undefined ? {} : { cursor });
          assert.deepEqual(page.invalid, []);
          if (modern) assert.deepEqual([page.ttlMs, page.cacheScope], [2_000, "public"]);
          listed.push(...page.skills);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        // skills/list holds the corpus skills the extension may serve (a skill that breaks
        // one of its rules, src/skills/extension_eligibility.ts, is left out).
        const names = listed.map((skill) => String(skill.frontmatter.name));
        assert.ok(names.length > 0);
        for (const name of names) assert.ok(corpus.names.includes(name), name);
        let files = 0;
        for (const skill of listed) {
          for (const entry of skill.resources) {
            // The extension's entries are objects ({uri, digest, size}); a bare string is a URI.
            const uri = typeof entry === "string" ? entry : entry.uri;
            // Throws SkillVerificationError on a digest, size or frontmatter mismatch.
            const file = await skills.read(skill, uri);
            assert.equal(file.verified, true, uri);
            files++;
          }
        }
        assert.ok(files > names.length, `${files} files read, 0 mismatches`);
      });
    }
  });
}

Deno.test("attack: frontmatter keys that are not text (1:, true:, ~:) never reach the 2.x skills client, and validate says to quote them", async () => {
  await using tree = await makeSkillRoot();
  const cases: [string, string][] = [["numkey", "1"], ["boolkey", "true"], ["nullkey", "~"]];
  for (const [name, key] of cases) {
    await Deno.mkdir(join(tree.root, name));
    await Deno.writeTextFile(
      join(tree.root, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: A key that is not text.\n${key}: ${name}\n---\nbody\n`,
    );
  }
  await using session = await connectStdioV2(["serve", tree.root], { modern: true });
  const skills = new SkillsClient(session.client);
  const page = await skills.list({});
  assert.deepEqual(page.invalid, []);
  assert.deepEqual(page.skills.map((skill) => String(skill.frontmatter.name)), [SKILL]);
  for (const skill of page.skills) {
    for (const entry of skill.resources) {
      const file = await skills.read(skill, typeof entry === "string" ? entry : entry.uri);
      assert.equal(file.verified, true);
    }
  }
  const report = await runProgram(["validate", join(tree.root, "nullkey")]);
  assert.notEqual(report.code, 0);
  assert.match(report.stdout + report.stderr, /"~", which YAML reads as null, not text; quote it/);
});
