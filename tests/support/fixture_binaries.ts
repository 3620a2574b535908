/**
 * The generators of the fixture corpus's binary files (`tests/fixtures/corpus/`):
 * a PNG logo, a TrueType font and a PDF theme sampler, each small, valid and
 * byte-for-byte reproducible. The committed files are exactly what these
 * functions return (`tests/support/fixture_corpus_test.ts` checks it); to change one,
 * change its generator and run
 * `deno run -A tests/support/fixture_binaries.ts` to rewrite the files.
 *
 * @module
 */

import { deflateSync } from "node:zlib";

/** Where each generated file lives, relative to `tests/fixtures/corpus/`. */
export const FIXTURE_BINARIES: Readonly<Record<string, () => Uint8Array>> = Object.freeze({
  "brand-kit/assets/logo.png": makeLogoPng,
  "brand-kit/assets/fonts/Fieldnote-Regular.ttf": makeFieldnoteTtf,
  "document-themes/theme-sampler.pdf": makeThemeSamplerPdf,
});

// ---------------------------------------------------------------- bytes

class ByteWriter {
  #bytes: number[] = [];
  u8(value: number): this {
    this.#bytes.push(value & 0xff);
    return this;
  }
  u16(value: number): this {
    return this.u8(value >>> 8).u8(value);
  }
  i16(value: number): this {
    return this.u16(value < 0 ? value + 0x10000 : value);
  }
  u32(value: number): this {
    return this.u16(Math.floor(value / 0x10000) & 0xffff).u16(value & 0xffff);
  }
  bytes(values: Iterable<number>): this {
    for (const value of values) this.u8(value);
    return this;
  }
  ascii(text: string): this {
    return this.bytes([...text].map((char) => char.charCodeAt(0)));
  }
  get length(): number {
    return this.#bytes.length;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// ---------------------------------------------------------------- PNG

/**
 * The Fieldnote logo: a 32 x 32 RGBA PNG, a moss-green disc with a paper-white
 * leaf vein on a transparent background.
 *
 * @returns The PNG file's bytes (PNG 1.2: IHDR, one IDAT, IEND).
 */
export function makeLogoPng(): Uint8Array {
  const size = 32;
  const raw = new Uint8Array(size * (1 + size * 4));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 4);
    raw[row] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      const dx = x - 15.5;
      const dy = y - 15.5;
      const inDisc = dx * dx + dy * dy <= 14 * 14;
      const onVein = inDisc && Math.abs(dx + dy) <= 1 && Math.abs(dx) <= 9;
      const rgba = onVein ? [0xf6, 0xf1, 0xe7, 0xff] : inDisc ? [0x3f, 0x5e, 0x3a, 0xff] : [
        0,
        0,
        0,
        0,
      ];
      raw.set(rgba, row + 1 + x * 4);
    }
  }
  const chunk = (type: string, data: Uint8Array) => {
    const typed = new ByteWriter().ascii(type).bytes(data).done();
    return new ByteWriter().u32(data.length).bytes(typed).u32(crc32(typed)).done();
  };
  const header = new ByteWriter().u32(size).u32(size).u8(8).u8(6).u8(0).u8(0).u8(0).done();
  return new ByteWriter()
    .bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    .bytes(chunk("IHDR", header))
    .bytes(chunk("IDAT", new Uint8Array(deflateSync(raw, { level: 9 }))))
    .bytes(chunk("IEND", new Uint8Array()))
    .done();
}

// ---------------------------------------------------------------- TrueType

type Point = readonly [number, number];
/** A glyph: contours of on-curve points, clockwise for filled shapes. */
interface GlyphShape {
  readonly advance: number;
  readonly contours: readonly (readonly Point[])[];
}

function box(x0: number, y0: number, x1: number, y1: number): Point[] {
  return [[x0, y0], [x0, y1], [x1, y1], [x1, y0]];
}

function reversed(points: Point[]): Point[] {
  return [...points].reverse();
}

/** Capitals built from straight strokes; 700 units tall, strokes 100 wide. */
const GLYPHS: readonly (readonly [number | null, GlyphShape])[] = [
  [null, { advance: 600, contours: [box(50, 0, 550, 700), reversed(box(150, 100, 450, 600))] }],
  [0x20, { advance: 300, contours: [] }],
  [0x45, { // E
    advance: 560,
    contours: [
      box(60, 0, 160, 700),
      box(160, 600, 500, 700),
      box(160, 300, 440, 400),
      box(160, 0, 500, 100),
    ],
  }],
  [0x46, { // F
    advance: 540,
    contours: [box(60, 0, 160, 700), box(160, 600, 490, 700), box(160, 300, 430, 400)],
  }],
  [0x48, { // H
    advance: 640,
    contours: [box(60, 0, 160, 700), box(480, 0, 580, 700), box(160, 300, 480, 400)],
  }],
  [0x49, { advance: 260, contours: [box(80, 0, 180, 700)] }], // I
  [0x4c, { advance: 520, contours: [box(60, 0, 160, 700), box(160, 0, 480, 100)] }], // L
  [0x54, { advance: 580, contours: [box(240, 0, 340, 600), box(20, 600, 560, 700)] }], // T
];

function bounds(points: readonly Point[]): [number, number, number, number] {
  if (points.length === 0) return [0, 0, 0, 0];
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

function glyphData(shape: GlyphShape): Uint8Array {
  if (shape.contours.length === 0) return new Uint8Array();
  const points = shape.contours.flat();
  const [xMin, yMin, xMax, yMax] = bounds(points);
  const out = new ByteWriter().i16(shape.contours.length).i16(xMin).i16(yMin).i16(xMax).i16(yMax);
  let end = -1;
  for (const contour of shape.contours) out.u16(end += contour.length);
  out.u16(0); // no instructions
  for (const _ of points) out.u8(0x01); // on-curve, 16-bit signed deltas
  let last = 0;
  for (const [x] of points) out.i16(x - last), last = x;
  last = 0;
  for (const [, y] of points) out.i16(y - last), last = y;
  while (out.length % 4 !== 0) out.u8(0);
  return out.done();
}

function checksum(table: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < table.length; i += 4) {
    const word = ((table[i] ?? 0) * 0x1000000) + ((table[i + 1] ?? 0) << 16) +
      ((table[i + 2] ?? 0) << 8) + (table[i + 3] ?? 0);
    sum = (sum + word) % 0x100000000;
  }
  return sum;
}

function utf16be(text: string): number[] {
  return [...text].flatMap((char) => {
    const code = char.charCodeAt(0);
    return [code >>> 8, code & 0xff];
  });
}

/**
 * Fieldnote Regular: a TrueType font with `.notdef`, space and the capitals
 * E, F, H, I, L and T as straight-stroke outlines (1000 units per em).
 *
 * @returns The TTF file's bytes: the ten tables a TrueType reader needs
 *   (cmap format 4, glyf, head, hhea, hmtx, loca, maxp, name, OS/2, post),
 *   each checksummed, with the whole-font checksum adjustment in `head`.
 */
export function makeFieldnoteTtf(): Uint8Array {
  const glyphs = GLYPHS.map(([, shape]) => glyphData(shape));
  const offsets = [0];
  for (const glyph of glyphs) offsets.push((offsets.at(-1) as number) + glyph.length);
  const allPoints = GLYPHS.flatMap(([, shape]) => shape.contours.flat());
  const [xMin, yMin, xMax, yMax] = bounds(allPoints);
  const advances = GLYPHS.map(([, shape]) => shape.advance);
  const mapped = GLYPHS.flatMap(([code], index) => code === null ? [] : [[code, index] as const]);

  const glyf = new ByteWriter();
  for (const glyph of glyphs) glyf.bytes(glyph);
  const loca = new ByteWriter();
  for (const offset of offsets) loca.u32(offset);

  const head = new ByteWriter()
    .u32(0x00010000).u32(0x00010000).u32(0) // version, revision, checkSumAdjustment (later)
    .u32(0x5f0f3cf5).u16(0x000b).u16(1000)
    .u32(0).u32(0xe0000000).u32(0).u32(0xe0000000) // created, modified: 2019-01-01 (fixed)
    .i16(xMin).i16(yMin).i16(xMax).i16(yMax)
    .u16(0).u16(8).i16(2).i16(1).i16(0);

  const lsbs = GLYPHS.map(([, shape]) => bounds(shape.contours.flat())[0]);
  const drawn = GLYPHS.filter(([, shape]) => shape.contours.length > 0);
  const hhea = new ByteWriter()
    .u32(0x00010000).i16(800).i16(-200).i16(0)
    .u16(Math.max(...advances))
    .i16(Math.min(...drawn.map(([, shape]) => bounds(shape.contours.flat())[0])))
    .i16(Math.min(...drawn.map(([, shape]) => shape.advance - bounds(shape.contours.flat())[2])))
    .i16(xMax).i16(1).i16(0).i16(0).i16(0).i16(0).i16(0).i16(0).i16(0)
    .u16(GLYPHS.length);
  const hmtx = new ByteWriter();
  GLYPHS.forEach(([, shape], index) => hmtx.u16(shape.advance).i16(lsbs[index] as number));

  const maxContours = Math.max(...GLYPHS.map(([, shape]) => shape.contours.length));
  const maxPoints = Math.max(...GLYPHS.map(([, shape]) => shape.contours.flat().length));
  const maxp = new ByteWriter()
    .u32(0x00010000).u16(GLYPHS.length).u16(maxPoints).u16(maxContours)
    .u16(0).u16(0).u16(2).u16(0).u16(0).u16(0).u16(0).u16(0).u16(0).u16(0).u16(0);

  // cmap: one format-4 segment per mapped character, then the 0xFFFF terminator.
  const segments = [...mapped.map(([code, glyph]) => ({ code, delta: glyph - code })), {
    code: 0xffff,
    delta: 1,
  }];
  const segCount = segments.length;
  const searchRange = 2 ** Math.floor(Math.log2(segCount)) * 2;
  const subtable = new ByteWriter()
    .u16(4).u16(16 + segCount * 8).u16(0)
    .u16(segCount * 2).u16(searchRange).u16(Math.log2(searchRange / 2))
    .u16(segCount * 2 - searchRange);
  for (const segment of segments) subtable.u16(segment.code);
  subtable.u16(0);
  for (const segment of segments) subtable.u16(segment.code);
  for (const segment of segments) subtable.i16(((segment.delta + 0x8000) % 0x10000) - 0x8000);
  for (const _ of segments) subtable.u16(0);
  const cmap = new ByteWriter().u16(0).u16(1).u16(3).u16(1).u32(12).bytes(subtable.done());

  const names: [number, string][] = [
    [0, "Copyright 2026 The skillgate authors"],
    [1, "Fieldnote"],
    [2, "Regular"],
    [3, "skillgate: Fieldnote Regular: 2026"],
    [4, "Fieldnote Regular"],
    [5, "Version 1.000"],
    [6, "Fieldnote-Regular"],
    [13, "This Font Software is licensed under the SIL Open Font License, Version 1.1."],
  ];
  const strings = names.map(([, text]) => utf16be(text));
  const name = new ByteWriter().u16(0).u16(names.length).u16(6 + names.length * 12);
  let stringOffset = 0;
  names.forEach(([id], index) => {
    const length = (strings[index] as number[]).length;
    name.u16(3).u16(1).u16(0x409).u16(id).u16(length).u16(stringOffset);
    stringOffset += length;
  });
  for (const text of strings) name.bytes(text);

  const codes = mapped.map(([code]) => code);
  const os2 = new ByteWriter()
    .u16(4).i16(Math.round(advances.reduce((a, b) => a + b, 0) / advances.length))
    .u16(400).u16(5).u16(0)
    .i16(650).i16(600).i16(0).i16(75).i16(650).i16(600).i16(0).i16(350)
    .i16(50).i16(300).i16(0)
    .bytes([2, 11, 5, 3, 0, 0, 0, 0, 0, 0]) // panose: sans, book weight
    .u32(1).u32(0).u32(0).u32(0) // Basic Latin
    .ascii("NONE").u16(0x40)
    .u16(Math.min(...codes)).u16(Math.max(...codes))
    .i16(800).i16(-200).i16(0).u16(800).u16(200)
    .u32(1).u32(0)
    .i16(500).i16(700).u16(0).u16(0x20).u16(1);
  const post = new ByteWriter()
    .u32(0x00030000).u32(0).i16(-100).i16(50).u32(0).u32(0).u32(0).u32(0).u32(0);

  const tables: [string, Uint8Array][] = [
    ["OS/2", os2.done()],
    ["cmap", cmap.done()],
    ["glyf", glyf.done()],
    ["head", head.done()],
    ["hhea", hhea.done()],
    ["hmtx", hmtx.done()],
    ["loca", loca.done()],
    ["maxp", maxp.done()],
    ["name", name.done()],
    ["post", post.done()],
  ];
  const pad = (bytes: Uint8Array) => {
    const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
    padded.set(bytes);
    return padded;
  };
  const entrySelector = Math.floor(Math.log2(tables.length));
  const tableSearchRange = 2 ** entrySelector * 16;
  const font = new ByteWriter()
    .u32(0x00010000).u16(tables.length).u16(tableSearchRange).u16(entrySelector)
    .u16(tables.length * 16 - tableSearchRange);
  let offset = 12 + tables.length * 16;
  for (const [tag, data] of tables) {
    font.ascii(tag).u32(checksum(pad(data))).u32(offset).u32(data.length);
    offset += pad(data).length;
  }
  for (const [, data] of tables) font.bytes(pad(data));
  const bytes = font.done();
  const headOffset = 12 + tables.length * 16 +
    tables.slice(0, 3).reduce((sum, [, data]) => sum + pad(data).length, 0);
  const adjustment = (0xb1b0afba - checksum(bytes) + 0x100000000) % 0x100000000;
  new DataView(bytes.buffer).setUint32(headOffset + 8, adjustment);
  return bytes;
}

// ---------------------------------------------------------------- PDF

/** The sampler's pages: theme name, then four swatches (name, hex). */
const SAMPLER_PAGES: readonly (readonly [string, readonly (readonly [string, string])[]])[] = [
  ["Harbor Fog", [["Fog", "e8edf1"], ["Slate", "2e3a46"], ["Buoy", "d9822b"], ["Tide", "5b7a96"]]],
  ["Linen and Ink", [["Linen", "faf6ef"], ["Ink", "161616"], ["Vermilion", "d2452c"], [
    "Umber",
    "6b4f3a",
  ]]],
  ["Orchard", [["Cream", "fbf8ee"], ["Bark", "3b2f25"], ["Apple", "b8322c"], ["Leaf", "5f8a3c"]]],
];

function rgb(hex: string): string {
  return [0, 2, 4].map((at) => (parseInt(hex.slice(at, at + 2), 16) / 255).toFixed(3)).join(" ");
}

function pageContent(title: string, swatches: readonly (readonly [string, string])[]): string {
  const lines = [`BT /F1 28 Tf 56 740 Td (${title}) Tj ET`];
  swatches.forEach(([label, hex], index) => {
    const x = 56 + index * 125;
    lines.push(`${rgb(hex)} rg ${x} 560 110 110 re f`);
    lines.push("0 0 0 rg 0.5 w 0 0 0 RG " + `${x} 560 110 110 re S`);
    lines.push(`BT /F1 11 Tf ${x} 540 Td (${label}) Tj 0 -14 Td (#${hex}) Tj ET`);
  });
  lines.push("BT /F1 10 Tf 56 60 Td (document-themes: theme sampler) Tj ET");
  return lines.join("\n") + "\n";
}

/**
 * The theme sampler: a three-page PDF 1.4 (US Letter), one page per theme of
 * the `document-themes` skill, with its name and four colour swatches in
 * Helvetica (a standard font, so nothing is embedded).
 *
 * @returns The PDF file's bytes with an exact cross-reference table.
 */
export function makeThemeSamplerPdf(): Uint8Array {
  const objects: string[] = [];
  const pageIds = SAMPLER_PAGES.map((_, index) => 4 + index * 2);
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] ` +
    `/Count ${pageIds.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
  SAMPLER_PAGES.forEach(([title, swatches], index) => {
    const pageId = pageIds[index] as number;
    const content = pageContent(title, swatches);
    objects[pageId] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " +
      `/Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${content.length} >>\nstream\n${content}endstream`;
  });
  const infoId = objects.length;
  objects[infoId] = "<< /Title (Theme sampler) /Producer (skillgate fixture generator) >>";
  let text = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = text.length;
    text += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = text.length;
  text += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) {
    text += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  }
  text += `trailer\n<< /Size ${objects.length} /Root 1 0 R /Info ${infoId} 0 R >>\n` +
    `startxref\n${xref}\n%%EOF\n`;
  // Latin-1: every character is one byte, so the offsets above are byte offsets.
  return Uint8Array.from([...text].map((char) => char.charCodeAt(0)));
}

if (import.meta.main) {
  const corpus = new URL("../fixtures/corpus/", import.meta.url);
  for (const [path, make] of Object.entries(FIXTURE_BINARIES)) {
    const bytes = make();
    await Deno.writeFile(new URL(path, corpus), bytes);
    console.error(`wrote tests/fixtures/corpus/${path} (${bytes.length} bytes)`);
  }
}
