/**
 * The fixture corpus holds what its README promises (CRLF, BOM, block
 * scalars, groups, scripts, valid binaries, nothing over 1 MiB), its binaries
 * are exactly what their generators make, and a test run says once on stderr
 * which corpora it uses.
 */

import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { inflateSync } from "node:zlib";
import { corpora, corporaLine, FIXTURE_CORPUS, skillDir } from "./corpora.ts";
import { FIXTURE_BINARIES } from "./fixture_binaries.ts";
import { LARGE_FILE_BYTES } from "./large_files.ts";

const ROOT = FIXTURE_CORPUS.path;

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await filesUnder(path));
    else out.push(path);
  }
  return out.sort();
}

function u32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(at);
}

function u16(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint16(at);
}

function sfntChecksum(bytes: Uint8Array): number {
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
  padded.set(bytes);
  let sum = 0;
  for (let at = 0; at < padded.length; at += 4) sum = (sum + u32(padded, at)) % 0x100000000;
  return sum;
}

Deno.test("fixture binaries: the committed files are exactly what fixture_binaries.ts makes", async () => {
  for (const [path, make] of Object.entries(FIXTURE_BINARIES)) {
    assert.deepEqual(await Deno.readFile(join(ROOT, path)), make(), path);
  }
});

Deno.test("fixture binaries: the PNG, the TrueType font and the PDF are valid files of their kind", async () => {
  const png = await Deno.readFile(join(ROOT, "brand-kit/assets/logo.png"));
  assert.deepEqual([...png.slice(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let at = 8;
  const chunks: string[] = [];
  let idat = new Uint8Array();
  while (at < png.length) {
    const length = u32(png, at);
    const type = new TextDecoder().decode(png.slice(at + 4, at + 8));
    chunks.push(type);
    if (type === "IDAT") idat = png.slice(at + 8, at + 8 + length);
    at += 12 + length;
  }
  assert.deepEqual(chunks, ["IHDR", "IDAT", "IEND"]);
  assert.equal(u32(png, 16), 32, "width");
  assert.equal(u32(png, 20), 32, "height");
  assert.equal(inflateSync(idat).length, 32 * (1 + 32 * 4), "one filter byte + RGBA per row");

  const ttf = await Deno.readFile(join(ROOT, "brand-kit/assets/fonts/Fieldnote-Regular.ttf"));
  assert.equal(u32(ttf, 0), 0x00010000, "TrueType outlines");
  const tables = new Map<string, { offset: number; length: number }>();
  for (let index = 0; index < u16(ttf, 4); index++) {
    const record = 12 + index * 16;
    const tag = new TextDecoder().decode(ttf.slice(record, record + 4));
    const offset = u32(ttf, record + 8);
    const length = u32(ttf, record + 12);
    tables.set(tag, { offset, length });
    if (tag !== "head") {
      assert.equal(sfntChecksum(ttf.slice(offset, offset + length)), u32(ttf, record + 4), tag);
    }
  }
  for (const tag of ["cmap", "glyf", "head", "hhea", "hmtx", "loca", "maxp", "name", "post"]) {
    assert.ok(tables.has(tag), `table ${tag}`);
  }
  assert.equal(sfntChecksum(ttf), 0xb1b0afba, "whole-font checksum with head's adjustment");
  assert.equal(u32(ttf, (tables.get("head")?.offset ?? 0) + 12), 0x5f0f3cf5, "head magic");

  const pdf = new TextDecoder("latin1").decode(
    await Deno.readFile(join(ROOT, "document-themes/theme-sampler.pdf")),
  );
  assert.ok(pdf.startsWith("%PDF-1.4\n"));
  assert.ok(pdf.endsWith("%%EOF\n"));
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)?.[1]);
  assert.ok(pdf.startsWith("xref\n", startxref), "startxref points at the xref table");
  const entries = [...pdf.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)];
  assert.ok(entries.length >= 9);
  entries.forEach((entry, index) => {
    assert.ok(pdf.startsWith(`${index + 1} 0 obj\n`, Number(entry[1])), `object ${index + 1}`);
  });
  assert.match(pdf, /\/Type \/Pages \/Kids \[[^\]]+\] \/Count 3 >>/);
});

Deno.test("the fixture corpus holds what its README promises", async () => {
  const files = await filesUnder(ROOT);
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  for (const file of files) {
    const info = await Deno.stat(file);
    assert.ok(info.size < LARGE_FILE_BYTES, `${file} is generated at test time, not committed`);
  }
  for (const name of FIXTURE_CORPUS.names) {
    const dir = skillDir(FIXTURE_CORPUS, ROOT, name);
    assert.ok(readme.includes(`\`${relative(ROOT, dir)}/\``), `README describes ${name}`);
    assert.ok((await Deno.stat(join(dir, "SKILL.md"))).isFile, name);
  }
  // Group folders: no SKILL.md of their own, skills one and two levels down.
  for (const group of ["writing", "engineering", "engineering/databases"]) {
    await assert.rejects(Deno.stat(join(ROOT, group, "SKILL.md")), Deno.errors.NotFound, group);
  }
  const bytesOf = (rel: string) => Deno.readFile(join(ROOT, rel));
  const textOf = (rel: string) => Deno.readTextFile(join(ROOT, rel));
  const crlf = await textOf("engineering/databases/sql-review/SKILL.md");
  assert.equal(crlf.split("\n").length - 1, crlf.split("\r\n").length - 1, "every line ends CRLF");
  assert.ok(crlf.includes("\r\n"));
  assert.deepEqual([...(await bytesOf("spreadsheet-formulas/SKILL.md")).slice(0, 6)], [
    0xef,
    0xbb,
    0xbf,
    0x2d,
    0x2d,
    0x2d,
  ]);
  assert.match(await textOf("spreadsheet-formulas/SKILL.md"), /^description: \|-$/m);
  assert.match(await textOf("writing/meeting-notes/SKILL.md"), /^description: >$/m);
  assert.match(await textOf("payments-api/SKILL.md"), /^description: >-$/m);
  const scripted = await textOf("engineering/log-triage/SKILL.md");
  assert.match(scripted, /^mcp-host:\n {2}version: 1\n {2}run:\n {4}- script: scripts\/level/m);
  assert.ok((await Deno.stat(join(ROOT, "engineering/log-triage/scripts/level_counts.sh"))).isFile);
  // The conformance directory scenario lists the first skill's folders.
  const first = skillDir(FIXTURE_CORPUS, ROOT, FIXTURE_CORPUS.names[0] as string);
  const subfolders = (await Array.fromAsync(Deno.readDir(first))).filter((e) => e.isDirectory);
  assert.ok(subfolders.length > 0, "the first skill has a subfolder");
});

Deno.test("corpora() lists the fixture corpus first, and the real-world one only when present", () => {
  const list = corpora();
  assert.equal(list[0], FIXTURE_CORPUS);
  assert.ok(list.length === 1 || list[1]?.label === "real-world");
  assert.match(
    corporaLine(),
    /^skillgate: skills corpora used: fixture \(.*tests\/fixtures\/corpus\); /,
  );
});

Deno.test("say_corpora.ts says on stderr which corpora the run uses, and nothing on stdout", async () => {
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--allow-read",
      "--allow-env=SKILLGATE_CORPUS",
      fromFileUrl(new URL("./say_corpora.ts", import.meta.url)),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  assert.equal(new TextDecoder().decode(run.stdout), "");
  assert.equal(new TextDecoder().decode(run.stderr), `${corporaLine()}\n`);
});

Deno.test("make test and make unit say which corpora they use once, before deno test", async () => {
  for (const target of ["test", "unit"]) {
    const dry = await new Deno.Command("make", {
      args: ["-n", "-s", target, "TESTS=tests/support/fixture_corpus_test.ts"],
      cwd: fromFileUrl(new URL("../../", import.meta.url)),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(dry.stdout).split("\n");
    const said = lines.flatMap((line, index) => line.includes("say_corpora.ts") ? [index] : []);
    const tested = lines.findIndex((line) => / test --frozen/.test(line));
    assert.equal(said.length, 1, `make ${target}: ${lines.join("\n")}`);
    assert.ok(tested > (said[0] as number), `make ${target} says it before deno test`);
  }
});
