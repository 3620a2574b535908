import assert from "node:assert/strict";
import { DEFAULT_CAPS } from "../../../src/caps.ts";
import { readSkillResource } from "../../../src/mcp/resources/read_resource.ts";
import { ProtocolError, type ReadResourceResult } from "../../../src/mcp/sdk.ts";
import { buildCatalog } from "../../../src/skills/catalog.ts";
import type { Catalog } from "../../../src/skills/skill.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff, 0xfe]);
const LATIN1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1: not UTF-8

async function catalogOf(path: string): Promise<Catalog> {
  return await buildCatalog([{ path, from: "argument" }], DEFAULT_CAPS);
}

function only(result: ReadResourceResult): Record<string, unknown> {
  assert.equal(result.contents.length, 1);
  return result.contents[0] as Record<string, unknown>;
}

function isMcpError(code: number, pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

Deno.test("readSkillResource() returns strict UTF-8 as text (BOM kept) and anything else as exact base64", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/bom.txt": "\uFEFFhello\n",
    "s/logo.png": BINARY,
    "s/latin1.txt": LATIN1,
    "s/with nul.txt": "a\0b",
  });
  const catalog = await catalogOf(tree.path);
  const options = { maxBytes: 1024 };
  const bom = only(await readSkillResource(catalog, "skill://s/bom.txt", options));
  assert.deepEqual(bom, {
    uri: "skill://s/bom.txt",
    mimeType: "text/plain",
    text: "\uFEFFhello\n",
  });
  const png = only(await readSkillResource(catalog, "skill://s/logo.png", options));
  assert.equal(png.mimeType, "image/png");
  assert.deepEqual(Uint8Array.fromBase64(png.blob as string), BINARY);
  const latin1 = only(await readSkillResource(catalog, "skill://s/latin1.txt", options));
  assert.deepEqual(Uint8Array.fromBase64(latin1.blob as string), LATIN1);
  assert.equal(latin1.text, undefined);
  const nul = only(await readSkillResource(catalog, "skill://s/with%20nul.txt", options));
  assert.equal(nul.uri, "skill://s/with%20nul.txt");
  assert.deepEqual(Uint8Array.fromBase64(nul.blob as string), new TextEncoder().encode("a\0b"));
});

Deno.test("readSkillResource() answers with the canonical URI for an equivalent spelling", async () => {
  await using tree = await makeTree({ "s/SKILL.md": skillMd("s"), "s/a/b.md": "# B\n" });
  const catalog = await catalogOf(tree.path);
  const content = only(await readSkillResource(catalog, "skill://s/a%2Fb.md", { maxBytes: 64 }));
  assert.deepEqual(content, { uri: "skill://s/a/b.md", mimeType: "text/markdown", text: "# B\n" });
});

Deno.test("readSkillResource() refuses a file over the cap whole, naming size, cap and skill_file", async () => {
  await using tree = await makeTree({ "s/SKILL.md": skillMd("s"), "s/big.txt": "x".repeat(100) });
  const catalog = await catalogOf(tree.path);
  await assert.rejects(
    () => readSkillResource(catalog, "skill://s/big.txt", { maxBytes: 99 }),
    isMcpError(-32602, /is 100 bytes, over the 99-byte cap.*skill_file.*"offset":0/),
  );
  const exact = only(await readSkillResource(catalog, "skill://s/big.txt", { maxBytes: 100 }));
  assert.equal(exact.text, "x".repeat(100));
});

Deno.test("readSkillResource() refuses a symlink planted after listing", async () => {
  await using tree = await makeTree({
    "s/SKILL.md": skillMd("s"),
    "s/notes.md": "notes\n",
    "secret.txt": "secret\n",
  });
  const catalog = await catalogOf(tree.path);
  await Deno.remove(tree.at("s/notes.md"));
  await Deno.symlink(tree.at("secret.txt"), tree.at("s/notes.md"));
  await assert.rejects(
    () => readSkillResource(catalog, "skill://s/notes.md", { maxBytes: 1024 }),
    isMcpError(-32002, /"skill:\/\/s\/notes\.md" is not served: path "notes\.md" leads outside/),
  );
});

Deno.test("readSkillResource() answers -32002 naming the URI for anything not listed", async () => {
  await using tree = await makeTree({ "s/SKILL.md": skillMd("s"), "s/.env": "KEY=1\n" });
  const catalog = await catalogOf(tree.path);
  await Deno.writeTextFile(tree.at("s/later.md"), "added after listing\n");
  const table: [string, RegExp][] = [
    ["skill://s/later.md", /lists no file "later\.md"/],
    ["skill://s/.env", /hidden entry/],
    ["skill://t/SKILL.md", /no skill named "t"/],
    ["skill://s/../s/SKILL.md", /"\.\." segment/],
    ["file:///etc/passwd", /scheme/],
  ];
  for (const [uri, reason] of table) {
    await assert.rejects(
      () => readSkillResource(catalog, uri, { maxBytes: 1024 }),
      (error: unknown) => {
        assert.ok(isMcpError(-32002, reason)(error));
        assert.ok((error as ProtocolError).message.includes(JSON.stringify(uri)), "names the URI");
        assert.deepEqual((error as ProtocolError).data, { uri });
        return true;
      },
      uri,
    );
  }
});
