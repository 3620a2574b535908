/**
 * The skills extension on every corpus (tests/support/corpora.ts: the fixture
 * corpus, and the real-world one when present), through the real program over
 * stdio, validated against SEP-2640's zod schemas from
 * `@modelcontextprotocol/core` (dev-only). Its result envelopes require the
 * 2026-07-28 cache fields, so envelopes are validated without them and each
 * entry with `SkillSchema`.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  DirectoryResourceSchema,
  GetSkillResultSchema,
  ListSkillsResultSchema,
  ReadResourceDirectoryResultSchema,
  SkillSchema,
} from "@modelcontextprotocol/core/ext/skills";
import * as z from "zod";
import { frontmatterOf } from "../../support/frontmatter_oracle.ts";
import { looseRequest } from "../../support/loose_request.ts";
import { corpora, skillDir } from "../../support/corpora.ts";
import { type Connected, connectStdio } from "../../support/program.ts";

const ID = "io.modelcontextprotocol/skills";
const ListEnvelope = ListSkillsResultSchema.omit({ ttlMs: true, cacheScope: true });
const GetEnvelope = GetSkillResultSchema.omit({ ttlMs: true, cacheScope: true });
const DirectoryEnvelope = ReadResourceDirectoryResultSchema.omit({ ttlMs: true, cacheScope: true });
const LATER_REVISION_FIELDS = ["ttlMs", "cacheScope", "resultType"];

type Entry = z.infer<typeof SkillSchema>;

async function rejects32602(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.equal((error as { code?: number }).code, -32602, String(error));
    assert.match(String((error as Error).message), pattern);
    return true;
  });
}

/** Every served file of a corpus skill: relative paths, dot-entries and node_modules skipped. */
async function filesOnDisk(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) out.push(...await filesOnDisk(`${dir}/${entry.name}`, rel));
    else if (entry.isFile) out.push(rel);
  }
  return out;
}

/** Names of the skills the server reports as left out of the extension (`extension-excluded`). */
async function excludedNames(session: Connected): Promise<string[]> {
  const answer = await session.call("skill_list", { limit: 1 });
  const problems = (answer.structuredContent as { problems: { reason: string; detail: string }[] })
    .problems;
  return problems.filter((problem) => problem.reason === "extension-excluded")
    .map((problem) => /^Skill "([^"]+)"/.exec(problem.detail)?.[1] ?? problem.detail);
}

async function listAll(session: Connected): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await looseRequest(
      session.client,
      "skills/list",
      cursor === undefined ? {} : { cursor },
    );
    const envelope = ListEnvelope.safeParse(page);
    assert.ok(envelope.success, JSON.stringify(envelope.error?.issues));
    for (const field of LATER_REVISION_FIELDS) assert.equal(field in page, false, field);
    entries.push(...envelope.data.skills);
    cursor = envelope.data.nextCursor;
  } while (cursor !== undefined);
  return entries;
}

for (const corpus of corpora()) {
  const { rich } = corpus.facts;

  Deno.test(`skills extension: the capability reaches the client with directoryRead and resources (${corpus.label} corpus)`, async () => {
    await using session = await connectStdio(["serve", corpus.path, "--static"]);
    const capabilities = session.client.getServerCapabilities() as Record<string, unknown>;
    assert.deepEqual((capabilities.extensions as Record<string, unknown>)[ID], {
      directoryRead: true,
    });
    assert.ok(capabilities.resources, "SEP-2640 requires the resources capability");
  });

  Deno.test(`skills/list serves every ${corpus.label} corpus skill with a complete, correct manifest`, async () => {
    await using session = await connectStdio(["serve", corpus.path, "--static"]);
    const entries = await listAll(session);
    // SEP-2640 clients refuse a description over 1,024 characters: only that skill may be left out.
    const excluded = await excludedNames(session);
    for (const name of excluded) assert.equal(name, corpus.facts.overLong.skill, "left out");
    const names = corpus.names.filter((name) => !excluded.includes(name));
    assert.deepEqual(entries.map((entry) => entry.frontmatter.name).sort(), names);
    const uris = entries.map((entry) => entry.uri);
    assert.deepEqual(uris, [...uris].sort(), "entries come in URI order");
    for (const entry of entries) {
      const checked = SkillSchema.safeParse(entry);
      assert.ok(checked.success, `${entry.uri}: ${JSON.stringify(checked.error?.issues)}`);
      const name = entry.frontmatter.name;
      assert.equal(entry.uri, `skill://${name}/SKILL.md`);
      const dir = skillDir(corpus, corpus.path, name);
      const skillMd = await Deno.readTextFile(`${dir}/SKILL.md`);
      assert.deepEqual(entry.frontmatter, frontmatterOf(skillMd), `${name}: frontmatter verbatim`);
      assert.ok(Array.isArray(entry.resources));
      const resources = entry.resources as { uri: string; digest: string; size: number }[];
      const onDisk = (await filesOnDisk(dir)).map((path) => `skill://${name}/${path}`).sort();
      assert.deepEqual(resources.map((r) => r.uri).sort(), onDisk, `${name}: every file once`);
      for (const resource of resources) {
        const path = resource.uri.slice(`skill://${name}/`.length);
        const bytes = await Deno.readFile(`${dir}/${path}`);
        assert.equal(resource.size, bytes.length, resource.uri);
        assert.equal(
          resource.digest,
          `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
          resource.uri,
        );
      }
    }
  });

  Deno.test(`skills/get answers each listed ${corpus.label} corpus skill identically and -32602 for anything else`, async () => {
    await using session = await connectStdio(["serve", corpus.path, "--static"]);
    const entries = await listAll(session);
    for (const entry of entries) {
      const answer = await looseRequest(session.client, "skills/get", { uri: entry.uri });
      const envelope = GetEnvelope.safeParse(answer);
      assert.ok(envelope.success, JSON.stringify(envelope.error?.issues));
      for (const field of LATER_REVISION_FIELDS) assert.equal(field in answer, false, field);
      assert.ok(SkillSchema.safeParse(envelope.data.skill).success);
      assert.deepEqual(envelope.data.skill, entry);
    }
    const refused = [
      "skill://no-such-skill/SKILL.md",
      `skill://${rich.skill}/${rich.documents[0]}`,
      `skill://${rich.skill}`,
      `skill://${rich.skill}/../pdf/SKILL.md`,
      "file:///etc/passwd",
      "",
    ];
    for (const uri of refused) {
      await rejects32602(looseRequest(session.client, "skills/get", { uri }), /skill|URI|uri/);
    }
    await rejects32602(looseRequest(session.client, "skills/get", {}), /uri/);
    await rejects32602(
      looseRequest(session.client, "skills/list", { cursor: "not-ours" }),
      /cursor/,
    );
  });

  Deno.test(`resources/directory/read walks every folder of every ${corpus.label} corpus skill to exactly its manifest`, async () => {
    await using session = await connectStdio(["serve", corpus.path, "--static"]);
    for (const entry of await listAll(session)) {
      const name = entry.frontmatter.name;
      const manifest = new Map(
        (entry.resources as { uri: string; size: number }[]).map((r) => [r.uri, r.size]),
      );
      const seen = new Map<string, number>();
      const queue = [`skill://${name}`];
      while (queue.length > 0) {
        const uri = queue.shift() as string;
        let cursor: string | undefined;
        do {
          const answer = await looseRequest(
            session.client,
            "resources/directory/read",
            cursor === undefined ? { uri } : { uri, cursor },
          );
          const envelope = DirectoryEnvelope.safeParse(answer);
          assert.ok(envelope.success, `${uri}: ${JSON.stringify(envelope.error?.issues)}`);
          for (const field of LATER_REVISION_FIELDS) assert.equal(field in answer, false, field);
          for (const child of envelope.data.resources) {
            assert.ok(DirectoryResourceSchema.safeParse(child).success);
            assert.equal(child.uri, `${uri}/${child.name}`, "direct children only");
            if (child.mimeType === "inode/directory") queue.push(child.uri);
            else seen.set(child.uri, child.size ?? -1);
          }
          cursor = envelope.data.nextCursor;
        } while (cursor !== undefined);
      }
      assert.deepEqual(
        [...seen].sort(),
        [...manifest].sort(),
        `${name}: folders hold the manifest`,
      );
    }
    await rejects32602(
      looseRequest(session.client, "resources/directory/read", {
        uri: `skill://${rich.skill}/SKILL.md`,
      }),
      /not a directory/,
    );
    await rejects32602(
      looseRequest(session.client, "resources/directory/read", {
        uri: `skill://${rich.skill}/no-folder`,
      }),
      /does not exist/,
    );
    await rejects32602(
      looseRequest(session.client, "resources/directory/read", { uri: "skill://no-such-skill" }),
      /No skill/,
    );
    await rejects32602(
      looseRequest(session.client, "resources/directory/read", {
        uri: `skill://${rich.skill}/${rich.subfolder}/..`,
      }),
      /not a directory/,
    );
  });
}
