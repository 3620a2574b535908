/**
 * Issue 11 item 9: `skill_file` paging covers the bytes present at read, so
 * it always progresses and ends, also on a file that grew or shrank after the
 * listing (under `--static` the listing never catches up).
 */

import assert from "node:assert/strict";
import type { FileAnswer, FileErrorAnswer } from "../../../src/mcp/tools/skill_file.ts";
import { type Connected, connectStdio } from "../../support/program.ts";
import { makeTree, skillMd } from "../../skills/_tree.ts";

type Entry = FileAnswer | FileErrorAnswer;

async function page(
  session: Connected,
  path: string,
  offset: number,
  length: number,
): Promise<Entry> {
  const result = await session.call("skill_file", {
    name: "demo",
    paths: [{ path, offset, length }],
  });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const [entry] = (result.structuredContent as { files: Entry[] }).files;
  assert.ok(entry !== undefined);
  return entry;
}

/** Pages through a file to its end; returns the bytes as text and the offsets asked. */
async function pageToEnd(session: Connected, path: string, length: number) {
  const offsets: number[] = [];
  const chunks: number[] = [];
  let offset = 0;
  const finish = () => new TextDecoder().decode(Uint8Array.from(chunks));
  for (let calls = 0; calls < 200; calls++) {
    offsets.push(offset);
    const entry = await page(session, path, offset, length);
    assert.ok("content" in entry, JSON.stringify(entry));
    const bytes = entry.encoding === "utf-8"
      ? new TextEncoder().encode(entry.content)
      : Uint8Array.from(atob(entry.content), (c) => c.charCodeAt(0));
    chunks.push(...bytes);
    if (!entry.truncated) return { text: finish(), offsets, last: entry };
    assert.ok(entry.nextOffset !== undefined && entry.nextOffset > offset, "nextOffset advances");
    offset = entry.nextOffset;
  }
  throw new Error(`paging did not end after 200 pages (offsets ${offsets.join(",")})`);
}

Deno.test("attack: a file that grew after listing pages to its end under --static, nextOffset strictly increasing", async () => {
  const listed = "0123456789abcdefghij\n";
  const grown = listed + "GROWN-PART-".repeat(5) + "end\n";
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo"), "demo/log.txt": listed });
  await using session = await connectStdio(["serve", tree.path, "--static"]);
  await Deno.writeTextFile(tree.at("demo/log.txt"), grown);
  const { text, offsets, last } = await pageToEnd(session, "log.txt", 8);
  assert.equal(text, grown, "every byte present at read is served");
  assert.equal(last.size, new TextEncoder().encode(grown).length);
  assert.ok(offsets.every((o, i) => i === 0 || o > (offsets[i - 1] ?? -1)));
  // The same bytes resources/read returns.
  const read = await session.client.readResource({ uri: "skill://demo/log.txt" });
  assert.equal((read.contents[0] as { text?: string }).text, text);
});

Deno.test("attack: a page asked exactly at the listed end of a grown file is not empty and moves on", async () => {
  const listed = "0123456789";
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo"), "demo/log.txt": listed });
  await using session = await connectStdio(["serve", tree.path, "--static"]);
  await Deno.writeTextFile(tree.at("demo/log.txt"), listed + "more bytes here");
  const entry = await page(session, "log.txt", listed.length, 1_000);
  assert.ok("content" in entry, JSON.stringify(entry));
  assert.equal(entry.content, "more bytes here");
  assert.equal(entry.truncated, false);
  assert.equal(entry.nextOffset, undefined);
});

Deno.test("a file that shrinks between pages ends paging: the rest to the new end, then offset-beyond-end", async () => {
  const full = "abcdefghijklmnopqrstuvwxyz0123456789";
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo"), "demo/f.txt": full });
  await using session = await connectStdio(["serve", tree.path, "--static"]);
  const first = await page(session, "f.txt", 0, 10);
  assert.ok("content" in first && first.nextOffset === 10, JSON.stringify(first));
  await Deno.writeTextFile(tree.at("demo/f.txt"), full.slice(0, 14));
  const second = await page(session, "f.txt", 10, 10);
  assert.ok("content" in second, JSON.stringify(second));
  assert.equal(second.content, "klmn");
  assert.equal(second.size, 14);
  assert.equal(second.truncated, false, "paging ends at the new end");
  await Deno.writeTextFile(tree.at("demo/f.txt"), "abc");
  const past = await page(session, "f.txt", 10, 10);
  assert.ok("error" in past, JSON.stringify(past));
  assert.equal(past.error, "offset-beyond-end");
});

Deno.test("skill_file: a page shorter than one UTF-8 character comes as base64 and nextOffset still advances", async () => {
  const text = "éàü";
  await using tree = await makeTree({ "demo/SKILL.md": skillMd("demo"), "demo/u.txt": text });
  await using session = await connectStdio(["serve", tree.path, "--static"]);
  const { text: paged, offsets } = await pageToEnd(session, "u.txt", 1);
  assert.equal(paged, text);
  assert.deepEqual(offsets, [0, 1, 2, 3, 4, 5]);
});

Deno.test("skill_file: a grown file paged beside others takes only the call's unreserved budget and still advances", async () => {
  await using tree = await makeTree({
    "demo/SKILL.md": skillMd("demo"),
    "demo/big.txt": "b".repeat(1_000),
    "demo/grown.txt": "g".repeat(10),
  });
  await using session = await connectStdio(
    ["serve", tree.path, "--static", "--max-call-bytes=1024"],
  );
  await Deno.writeTextFile(tree.at("demo/grown.txt"), "g".repeat(500));
  const result = await session.call("skill_file", {
    name: "demo",
    paths: ["big.txt", { path: "grown.txt", offset: 10 }],
  });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const [big, grown] = (result.structuredContent as { files: Entry[] }).files;
  assert.ok(big !== undefined && "content" in big && grown !== undefined && "content" in grown);
  assert.equal(big.content.length, 1_000);
  // 1,024 - (1,000 reserved for big.txt + 1 for grown.txt) = 23 unreserved bytes.
  assert.equal(grown.content.length, 24);
  assert.equal(grown.nextOffset, 34);
  assert.equal(grown.size, 500);
  assert.ok(big.content.length + grown.content.length <= 1_024, "the call budget holds");
});
