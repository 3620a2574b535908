/**
 * Zip archives built to be read two ways: local headers that disagree with
 * the central directory, and members whose bytes overlap (the quoted
 * overlap behind the densest zip bombs). `extractZip()` must refuse each
 * before writing anything, and still read a member with a data descriptor.
 */

import { join } from "node:path";
import { DEFAULT_REMOTE_CAPS } from "../../src/remote/remote_caps.ts";
import { RemoteError } from "../../src/remote/remote_error.ts";
import { crc32, extractZip } from "../../src/remote/zip_extract.ts";
import { buildZip } from "../support/zip_builder.ts";
import { assertEquals, assertRejects } from "./_assert.ts";

const encoder = new TextEncoder();

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "skillgate-zip-attack-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names;
}

function extract(zip: Uint8Array, dest: string) {
  return extractZip(zip, dest, {
    caps: DEFAULT_REMOTE_CAPS,
    signal: AbortSignal.timeout(60_000),
  });
}

/** One stored SKILL.md whose local header is then edited by `patch`. */
async function patchedLocal(patch: (local: DataView) => void): Promise<Uint8Array> {
  const zip = await buildZip([
    { name: "README.md", data: "first", method: "stored" },
    { name: "SKILL.md", data: "---\nname: s\ndescription: d\n---\n", method: "stored" },
  ]);
  // The second member's local header follows the first's (30 + 9 + 5 bytes).
  patch(new DataView(zip.buffer, 30 + "README.md".length + "first".length));
  return zip;
}

const LOCAL_LIES: Array<[string, (local: DataView) => void]> = [
  ["another method", (local) => local.setUint16(8, 8, true)],
  ["an encryption flag", (local) => local.setUint16(6, 0x0801, true)],
  ["another CRC-32", (local) => local.setUint32(14, local.getUint32(14, true) ^ 1, true)],
  ["another compressed size", (local) => local.setUint32(18, 1, true)],
  ["another size", (local) => local.setUint32(22, 1, true)],
];

for (const [what, patch] of LOCAL_LIES) {
  Deno.test(`attack: extractZip() refuses a local header disagreeing with the central directory: ${what}`, async () => {
    await using dir = await tempDir();
    const zip = await patchedLocal(patch);
    const error = await assertRejects(() => extract(zip, dir.path), RemoteError);
    assertEquals(error.reason, "unsafe-archive", error.message);
    assertEquals(error.message.includes("disagrees with the directory"), true, error.message);
    assertEquals(await entries(dir.path), []);
  });
}

Deno.test("extractZip() reads a member whose CRC and sizes follow in a data descriptor", async () => {
  await using dir = await tempDir();
  const data = "---\nname: s\ndescription: d\n---\n";
  const zip = await buildZip([{ name: "SKILL.md", data, method: "stored" }]);
  const local = new DataView(zip.buffer);
  local.setUint16(6, 0x0808, true);
  for (const at of [14, 18, 22]) local.setUint32(at, 0, true);
  const central = new DataView(zip.buffer, 30 + "SKILL.md".length + data.length);
  central.setUint16(8, 0x0808, true);
  const result = await extract(zip, dir.path);
  assertEquals([...result.files.keys()], ["SKILL.md"]);
  assertEquals(await Deno.readTextFile(join(dir.path, "SKILL.md")), data);
});

/**
 * A stored member `outer.md` whose data is a whole second member
 * (`SKILL.md`'s local header and data), both listed in the directory.
 */
function quotedOverlap(): Uint8Array {
  const local = (name: Uint8Array, data: Uint8Array) => {
    const header = new Uint8Array(30 + name.length);
    const view = new DataView(header.buffer);
    view.setUint32(0, 0x04034b50, true);
    view.setUint16(4, 20, true);
    view.setUint32(14, crc32(data), true);
    view.setUint32(18, data.length, true);
    view.setUint32(22, data.length, true);
    view.setUint16(26, name.length, true);
    header.set(name, 30);
    return header;
  };
  const central = (name: Uint8Array, data: Uint8Array, offset: number) => {
    const header = new Uint8Array(46 + name.length);
    const view = new DataView(header.buffer);
    view.setUint32(0, 0x02014b50, true);
    view.setUint16(4, (3 << 8) | 20, true);
    view.setUint16(6, 20, true);
    view.setUint32(16, crc32(data), true);
    view.setUint32(20, data.length, true);
    view.setUint32(24, data.length, true);
    view.setUint16(28, name.length, true);
    view.setUint32(38, (0o100644 << 16) >>> 0, true);
    view.setUint32(42, offset, true);
    header.set(name, 46);
    return header;
  };
  const innerName = encoder.encode("SKILL.md");
  const innerData = encoder.encode("---\nname: s\ndescription: d\n---\n");
  const outerName = encoder.encode("outer.md");
  const outerData = new Uint8Array([...local(innerName, innerData), ...innerData]);
  const outerLocal = local(outerName, outerData);
  const body = new Uint8Array([...outerLocal, ...outerData]);
  const directory = new Uint8Array([
    ...central(outerName, outerData, 0),
    ...central(innerName, innerData, outerLocal.length),
  ]);
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(8, 2, true);
  view.setUint16(10, 2, true);
  view.setUint32(12, directory.length, true);
  view.setUint32(16, body.length, true);
  return new Uint8Array([...body, ...directory, ...end]);
}

Deno.test("attack: extractZip() refuses members whose bytes overlap (the overlapping zip bomb)", async () => {
  await using dir = await tempDir();
  const error = await assertRejects(() => extract(quotedOverlap(), dir.path), RemoteError);
  assertEquals(error.reason, "unsafe-archive", error.message);
  assertEquals(error.message.includes("overlap"), true, error.message);
  assertEquals(await entries(dir.path), []);
});
