import { assertEquals, assertThrows } from "./_assert.ts";
import {
  DISCOVERY_SCHEMA,
  parseIndex,
  skillLevelDigest,
} from "../../src/remote/publisher_index.ts";
import { RemoteError } from "../../src/remote/remote_error.ts";

const INDEX_URL = "https://example.com/.well-known/agent-skills/index.json";
const D = (c: string) => `sha256:${c.repeat(64)}`;
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

Deno.test("skillLevelDigest() matches the discovery RFC's worked example", async () => {
  assertEquals(
    await skillLevelDigest({
      "scripts/run.sh": "sha256:a8076d3d28d21e02012b20eaf7dbf75409a6277134439025f282e368e3305abf",
      "SKILL.md": "sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be",
    }),
    "sha256:34f7a8c484e9991f3e71a309f31332d6335efc01f544105c4185a7c4ab12eb1e",
  );
});

Deno.test("parseIndex() reads the $schema discovery shape, resolving urls against the index", () => {
  const index = parseIndex(
    bytes({
      $schema: DISCOVERY_SCHEMA,
      skills: [
        { name: "pdf", type: "skill-md", description: "d", url: "pdf/SKILL.md", digest: D("a") },
        {
          name: "docx",
          type: "archive",
          description: "d",
          url: "https://cdn.example.com/docx.zip",
          digest: D("b"),
        },
      ],
    }),
    INDEX_URL,
  );
  assertEquals(index.shape, "discovery");
  assertEquals(index.problems, []);
  assertEquals(index.entries, [
    {
      kind: "skill-md",
      name: "pdf",
      url: "https://example.com/.well-known/agent-skills/pdf/SKILL.md",
      digest: D("a"),
    },
    { kind: "archive", name: "docx", url: "https://cdn.example.com/docx.zip", digest: D("b") },
  ]);
});

Deno.test("parseIndex() reads the version 0.2.0 files shape with per-file urls and a package", () => {
  const index = parseIndex(
    bytes({
      version: "0.2.0",
      skills: [{
        name: "wrangler",
        description: "d",
        digest: D("c"),
        files: [{ path: "SKILL.md", digest: D("d") }, { path: "ref/a b.md", digest: D("e") }],
        package: { url: "wrangler.tar.gz", digest: D("f") },
      }],
    }),
    INDEX_URL,
  );
  assertEquals(index.shape, "files");
  const entry = index.entries[0]!;
  assertEquals(entry.kind, "files");
  if (entry.kind !== "files") return;
  assertEquals(entry.files.map((file) => file.url), [
    "https://example.com/.well-known/agent-skills/wrangler/SKILL.md",
    "https://example.com/.well-known/agent-skills/wrangler/ref/a%20b.md",
  ]);
  assertEquals(entry.package?.url, "https://example.com/.well-known/agent-skills/wrangler.tar.gz");
});

Deno.test("parseIndex() without or with an unknown version reads what matches and reports the rest", () => {
  for (const top of [{}, { version: "1.0.0" }, { $schema: "https://example.com/other.json" }]) {
    const index = parseIndex(
      bytes({
        ...top,
        skills: [
          { name: "pdf", type: "skill-md", url: "pdf/SKILL.md", digest: D("a") },
          { name: "csv", digest: D("b"), files: [{ path: "SKILL.md", digest: D("c") }] },
          { name: "odd", something: true },
        ],
      }),
      INDEX_URL,
    );
    assertEquals(index.shape, "unknown");
    assertEquals(index.entries.map((entry) => [entry.name, entry.kind]), [
      ["pdf", "skill-md"],
      ["csv", "files"],
    ]);
    assertEquals(index.problems.length, 2, JSON.stringify(index.problems));
    assertEquals(index.problems[1]!.startsWith('skill "odd" is skipped'), true);
  }
});

Deno.test("attack: parseIndex() skips bad entries with a problem and serves the others", () => {
  const good = { name: "good", type: "skill-md", url: "good/SKILL.md", digest: D("a") };
  const files = (path: string) => ({
    digest: D("b"),
    files: [{ path: "SKILL.md", digest: D("c") }, { path, digest: D("d") }],
  });
  const index = parseIndex(
    bytes({
      $schema: DISCOVERY_SCHEMA,
      skills: [
        good,
        { ...good, name: "Bad_Name" },
        { ...good, name: "../etc" },
        { ...good, name: "no-digest", digest: "md5:abc" },
        { ...good, name: "good" },
        { ...good, name: "kind", type: "binary" },
        { ...good, name: "js-url", url: "javascript:alert(1)" },
      ],
    }),
    INDEX_URL,
  );
  assertEquals(index.entries.map((entry) => entry.name), ["good"]);
  assertEquals(index.problems.length, 6, JSON.stringify(index.problems));
  const filesIndex = parseIndex(
    bytes({
      version: "0.2.0",
      skills: [
        { name: "dots", ...files("../x") },
        { name: "abs", ...files("/etc/passwd") },
        { name: "hidden", ...files(".env") },
        { name: "query", ...files("a?b") },
        { name: "v01", digest: D("b"), files: ["SKILL.md"] },
        { name: "no-skill-md", digest: D("b"), files: [{ path: "a.md", digest: D("c") }] },
        {
          name: "twice",
          digest: D("b"),
          files: [{ path: "SKILL.md", digest: D("c") }, { path: "SKILL.md", digest: D("c") }],
        },
        { name: "ok", ...files("ref/ok.md") },
      ],
    }),
    INDEX_URL,
  );
  assertEquals(filesIndex.entries.map((entry) => entry.name), ["ok"]);
  assertEquals(filesIndex.problems.length, 7, JSON.stringify(filesIndex.problems));
});

Deno.test("parseIndex() refuses something that is not an index", () => {
  for (const body of ["not json", "[]", '{"version":"0.2.0"}', '{"skills":{}}']) {
    const error = assertThrows(
      () => parseIndex(new TextEncoder().encode(body), INDEX_URL),
      RemoteError,
    );
    assertEquals(error.reason, "bad-index");
  }
});
