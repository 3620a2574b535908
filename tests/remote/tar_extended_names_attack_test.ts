/**
 * Attack (r12, pins a guarantee not tested yet): a hostile repository's
 * tarball names a member through the extended headers rather than the plain
 * ustar name field: a pax `path` record (type `x`), a GNU long name (type
 * `L`), the ustar `prefix` field, or a global pax header (type `g`) whose
 * `path` must apply to nothing. Each must be judged as strictly as the plain
 * name: no absolute path, no `..`, nothing written outside the destination.
 */
import { join } from "node:path";
import { assertEquals, assertRejects } from "./_assert.ts";
import { DEFAULT_REMOTE_CAPS } from "../../src/remote/remote_caps.ts";
import { RemoteError } from "../../src/remote/remote_error.ts";
import { extractTarball } from "../../src/remote/tar_extract.ts";

/** One raw member: the name and prefix fields, the type flag and the data. */
interface RawMember {
  readonly name: string;
  readonly prefix?: string;
  readonly flag: string;
  readonly data?: Uint8Array;
}

function field(block: Uint8Array, offset: number, length: number, text: string): void {
  block.set(new TextEncoder().encode(text).subarray(0, length), offset);
}

function header(member: RawMember): Uint8Array {
  const block = new Uint8Array(512);
  field(block, 0, 100, member.name);
  field(block, 100, 8, "0000644\0");
  field(block, 108, 8, "0000000\0");
  field(block, 116, 8, "0000000\0");
  field(block, 124, 12, `${(member.data?.length ?? 0).toString(8).padStart(11, "0")}\0`);
  field(block, 136, 12, "00000000000\0");
  field(block, 156, 1, member.flag);
  field(block, 257, 6, "ustar\0");
  field(block, 263, 2, "00");
  if (member.prefix !== undefined) field(block, 345, 155, member.prefix);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  field(block, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

async function tarball(members: readonly RawMember[]): Promise<Uint8Array> {
  const blocks: Uint8Array[] = [];
  for (const member of members) {
    blocks.push(header(member));
    const data = member.data ?? new Uint8Array(0);
    const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
    padded.set(data);
    blocks.push(padded);
  }
  blocks.push(new Uint8Array(1024));
  const tar = await new Blob(blocks as Uint8Array<ArrayBuffer>[]).bytes();
  return await new Response(new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip")))
    .bytes();
}

function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`;
  let length = body.length + 1;
  while (`${length}${body}`.length !== length) length++;
  return new TextEncoder().encode(`${length}${body}`);
}

const text = (value: string) => new TextEncoder().encode(value);

const HOSTILE: Record<string, RawMember[]> = {
  "a pax path climbing out with ..": [
    { name: "top/", flag: "5" },
    { name: "PaxHeaders/x", flag: "x", data: paxRecord("path", "top/../../escaped") },
    { name: "top/harmless", flag: "0", data: text("x") },
  ],
  "an absolute pax path": [
    { name: "top/", flag: "5" },
    { name: "PaxHeaders/x", flag: "x", data: paxRecord("path", "/tmp/escaped") },
    { name: "top/harmless", flag: "0", data: text("x") },
  ],
  "a GNU long name climbing out with ..": [
    { name: "top/", flag: "5" },
    { name: "././@LongLink", flag: "L", data: text("top/../../escaped\0") },
    { name: "top/harmless", flag: "0", data: text("x") },
  ],
  "a ustar prefix climbing out with ..": [
    { name: "top/", flag: "5" },
    { name: "escaped", prefix: "top/../..", flag: "0", data: text("x") },
  ],
};

for (const [what, members] of Object.entries(HOSTILE)) {
  Deno.test(`attack: extractTarball() refuses ${what} and writes nothing outside dest`, async () => {
    const outer = await Deno.makeTempDir({ prefix: "skillgate-tar-names-" });
    try {
      const dest = join(outer, "a", "dest");
      await Deno.mkdir(dest, { recursive: true });
      const error = await assertRejects(
        async () =>
          await extractTarball(await tarball(members), dest, "", {
            caps: DEFAULT_REMOTE_CAPS,
            signal: AbortSignal.timeout(60_000),
          }),
        RemoteError,
      );
      assertEquals(error.reason, "unsafe-archive");
      const outside: string[] = [];
      for await (const entry of Deno.readDir(outer)) outside.push(entry.name);
      for await (const entry of Deno.readDir(join(outer, "a"))) outside.push(`a/${entry.name}`);
      assertEquals(outside.sort(), ["a", "a/dest"]);
    } finally {
      await Deno.remove(outer, { recursive: true });
    }
  });
}

Deno.test("attack: a global pax header's path names no member (each keeps its own name)", async () => {
  const dest = await Deno.makeTempDir({ prefix: "skillgate-tar-global-" });
  try {
    const result = await extractTarball(
      await tarball([
        { name: "pax_global_header", flag: "g", data: paxRecord("path", "../../escaped") },
        { name: "top/", flag: "5" },
        { name: "top/skill/SKILL.md", flag: "0", data: text("---\nname: skill\n---\n") },
      ]),
      dest,
      "",
      { caps: DEFAULT_REMOTE_CAPS, signal: AbortSignal.timeout(60_000) },
    );
    assertEquals([...result.files.keys()], ["skill/SKILL.md"]);
  } finally {
    await Deno.remove(dest, { recursive: true });
  }
});
