import assert from "node:assert/strict";
import {
  decodeResourceCursor,
  encodeResourceCursor,
} from "../../../src/mcp/resources/resource_cursor.ts";
import { listResourcePage } from "../../../src/mcp/resources/resource_page.ts";
import { ProtocolError, type Resource } from "../../../src/mcp/sdk.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { testCatalog } from "./_catalog.ts";

function listAll(catalog: Catalog, pageSize: number): { uris: string[]; pages: number } {
  const uris: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = listResourcePage(catalog, { cursor, pageSize });
    assert.ok(page.resources.length <= pageSize);
    uris.push(...page.resources.map((resource) => resource.uri));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { uris, pages };
}

const CATALOG = testCatalog([
  { name: "beta", files: ["a/b.md", "a-c.md", "z.txt"] },
  { name: "alpha", files: ["scripts/run.py"] },
  { name: "gamma" },
]);

const ALL = [
  "skill://alpha/SKILL.md",
  "skill://alpha/scripts/run.py",
  "skill://beta/SKILL.md",
  "skill://beta/a-c.md",
  "skill://beta/a/b.md",
  "skill://beta/z.txt",
  "skill://gamma/SKILL.md",
];

Deno.test("resource cursors round-trip and refuse strings they did not make", () => {
  const position = { name: "caf\u00e9", path: "a b/\u{1F600}.md" };
  assert.deepEqual(decodeResourceCursor(encodeResourceCursor(position)), position);
  assert.match(encodeResourceCursor(position), /^[A-Za-z0-9_-]+$/);
  for (const bad of ["", "not base64!", btoa("{}"), btoa('{"k":"other","s":"a","p":"b"}')]) {
    assert.equal(decodeResourceCursor(bad), null, bad);
  }
});

Deno.test("listResourcePage() lists every file of every skill exactly once, whatever the page size", () => {
  for (const pageSize of [1, 2, 3, 6, 7, 8, 500]) {
    const { uris, pages } = listAll(CATALOG, pageSize);
    assert.deepEqual(uris, ALL, `page size ${pageSize}`);
    assert.equal(pages, Math.max(1, Math.ceil(ALL.length / pageSize)), `page size ${pageSize}`);
  }
});

Deno.test("listResourcePage() neither skips nor repeats across a refresh between pages", () => {
  const first = listResourcePage(CATALOG, { pageSize: 3 });
  assert.deepEqual(first.resources.map((r) => r.uri), ALL.slice(0, 3));
  // The refresh removes the skill and file the cursor points at and adds
  // entries before and after it.
  const refreshed = testCatalog([
    { name: "aardvark" },
    { name: "alpha", files: ["scripts/run.py"] },
    { name: "bet" },
    { name: "beta-2", files: ["x.md"] },
    { name: "gamma" },
  ]);
  const rest = listResourcePage(refreshed, { cursor: first.nextCursor, pageSize: 100 });
  // "aardvark" and "bet" sort before the cursor's "beta", so this client has
  // passed them; everything after it comes, once.
  assert.deepEqual(rest.resources.map((r) => r.uri), [
    "skill://beta-2/SKILL.md",
    "skill://beta-2/x.md",
    "skill://gamma/SKILL.md",
  ]);
  assert.equal(rest.nextCursor, undefined);
  const within = testCatalog([{ name: "beta", files: ["SKILL.mdx", "a-c.md", "z.txt"] }]);
  const cursor = encodeResourceCursor({ name: "beta", path: "SKILL.md" });
  assert.deepEqual(
    listResourcePage(within, { cursor, pageSize: 10 }).resources.map((r) => r.uri),
    ["skill://beta/SKILL.mdx", "skill://beta/a-c.md", "skill://beta/z.txt"],
  );
  const gone = encodeResourceCursor({ name: "beta", path: "a-b.md" });
  assert.deepEqual(
    listResourcePage(within, { cursor: gone, pageSize: 10 }).resources.map((r) => r.uri),
    ["skill://beta/a-c.md", "skill://beta/z.txt"],
  );
});

Deno.test("listResourcePage() refuses a cursor it did not issue with -32602", () => {
  assert.throws(
    () => listResourcePage(CATALOG, { cursor: "bogus", pageSize: 10 }),
    (error: unknown) =>
      error instanceof ProtocolError && error.code === -32602 &&
      /The cursor is not one this server issued: pass back/.test(error.message),
  );
});

Deno.test("listResourcePage() describes files with media type, size, title and annotations", () => {
  const [skillMd, script] = listResourcePage(CATALOG, { pageSize: 2 }).resources as [
    Resource,
    Resource,
  ];
  assert.deepEqual(skillMd, {
    uri: "skill://alpha/SKILL.md",
    name: "alpha",
    title: "alpha: instructions (SKILL.md)",
    description: "Does alpha things",
    mimeType: "text/markdown",
    size: 10,
    annotations: { audience: ["assistant"], priority: 1, lastModified: "2025-01-01T00:00:00.000Z" },
  });
  assert.equal(script.mimeType, "text/x-python");
  assert.equal(script.annotations?.priority, 0.5);
  assert.equal(script.description, undefined);
  assert.ok((script.annotations?.priority ?? 1) < (skillMd.annotations?.priority ?? 0));
});

Deno.test("listResourcePage() pages a catalog far above 500 files without a cap", () => {
  const files = Array.from({ length: 1999 }, (_, index) => `f/${String(index).padStart(4, "0")}`);
  const big = testCatalog([{ name: "a", files }, { name: "b", files }]);
  const { uris, pages } = listAll(big, 500);
  assert.equal(uris.length, 4000);
  assert.equal(new Set(uris).size, 4000);
  assert.equal(pages, 8);
});
