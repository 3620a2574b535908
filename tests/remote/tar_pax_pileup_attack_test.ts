/**
 * Review r14: a tarball's pax extended headers (`x`) are each capped at 1 MiB,
 * but `extractTarball()` merges every record of consecutive headers into one
 * object (`pax = { ...pax, ...parsePax(data) }`) until the next member: records
 * with keys it never uses pile up, and every merge copies all of them again
 * (quadratic). Measured here (scratch, 2 loaded cores): 8 MiB of such headers
 * (1.5 MB gzip) took 18 s, 16 MiB 72 s (RSS 520 MiB), 32 MiB (5.9 MB gzip) 176 s
 * and 1.25 GiB RSS, where the caps promise 256 MiB unpacked; the deadline is
 * looked at only between headers. A hostile (allowlisted) repository or
 * publisher archive so holds a core and a GiB of the serving process at every
 * poll. This test bounds memory, not time: extracting in a process whose V8
 * heap is capped at 40 MiB, main dies of "Fatal JavaScript out of memory"
 * (all 8 headers' records held and copied); kept to the keys used, one
 * header's records at a time fit in 24 MiB (checked with that fix applied).
 */

import { join } from "node:path";
import { assertEquals } from "./_assert.ts";

function header(name: string, size: number, type: string): Uint8Array {
  const block = new Uint8Array(512);
  const text = new TextEncoder();
  block.set(text.encode(name), 0);
  block.set(text.encode("0000644\0"), 100);
  block.set(text.encode("0000000\0"), 108);
  block.set(text.encode("0000000\0"), 116);
  block.set(text.encode(`${size.toString(8).padStart(11, "0")}\0`), 124);
  block.set(text.encode("00000000000\0"), 136);
  block[156] = type.charCodeAt(0);
  block.set(text.encode("ustar\u000000"), 257);
  block.fill(32, 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  block.set(text.encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
  return block;
}

function padded(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / 512) * 512);
  out.set(data);
  return out;
}

/** `headers` pax headers of ~1 MiB each, every record a key never used before, then one file. */
async function pileUp(headers: number): Promise<Uint8Array> {
  const blocks: Uint8Array[] = [header("top/", 0, "5")];
  let key = 0;
  for (let h = 0; h < headers; h++) {
    const records: string[] = [];
    let length = 0;
    while (length < 1024 * 1024 - 32) {
      const record = `13 k${(key++).toString(16).padStart(7, "0")}=\n`;
      records.push(record);
      length += record.length;
    }
    const data = new TextEncoder().encode(records.join(""));
    blocks.push(header("top/PaxHeader", data.length, "x"), padded(data));
  }
  blocks.push(header("top/a.txt", 1, "0"), padded(new Uint8Array([65])));
  blocks.push(new Uint8Array(1024));
  const tar = await new Blob(blocks as Uint8Array<ArrayBuffer>[]).bytes();
  return await new Response(new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip")))
    .bytes();
}

/** Old-space heap the extracting process gets, in MiB: many times one 1 MiB header's records. */
const HEAP_MIB = 40;

/**
 * Extracts `gzip` in a fresh Deno process whose V8 old space is capped at
 * {@linkcode HEAP_MIB} (no other test's garbage in it), as the fetcher
 * worker would under a tighter heap limit.
 *
 * @returns The process's exit code, the files it extracted, and its stderr.
 */
async function extractWithHeapCap(
  gzip: Uint8Array,
): Promise<{ code: number; files: string[]; stderr: string }> {
  const dir = await Deno.makeTempDir({ prefix: "r14-pax-" });
  try {
    const archive = join(dir, "pileup.tar.gz");
    await Deno.writeFile(archive, gzip);
    const code = `
      const { extractTarball } = await import(${JSON.stringify(EXTRACT.href)});
      const { DEFAULT_REMOTE_CAPS } = await import(${JSON.stringify(CAPS.href)});
      const dest = ${JSON.stringify(join(dir, "out"))};
      await Deno.mkdir(dest);
      try {
        const result = await extractTarball(await Deno.readFile(${
      JSON.stringify(archive)
    }), dest, "", {
          caps: DEFAULT_REMOTE_CAPS,
          signal: AbortSignal.timeout(600000),
        });
        console.log(JSON.stringify([...result.files.keys()]));
      } catch (error) {
        console.log(JSON.stringify(["refused: " + error.message]));
      }
    `;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--cached-only", `--v8-flags=--max-old-space-size=${HEAP_MIB}`, code],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout).trim();
    return {
      code: output.code,
      files: output.code === 0 ? JSON.parse(stdout) as string[] : [],
      stderr: new TextDecoder().decode(output.stderr).slice(-400),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const EXTRACT = new URL("../../src/remote/tar_extract.ts", import.meta.url);
const CAPS = new URL("../../src/remote/remote_caps.ts", import.meta.url);

Deno.test("attack: pax records piled up over many extended headers are not all held (a small heap suffices)", async () => {
  // 8 MiB of records, 1.5 MB compressed: far under every cap. Held and re-copied all at once
  // (main) they exhaust HEAP_MIB; read one header at a time, they fit in far less.
  const result = await extractWithHeapCap(await pileUp(8));
  assertEquals(
    result.code,
    0,
    `extracting 8 MiB of unused pax records ran out of a ${HEAP_MIB} MiB heap: ${result.stderr}`,
  );
  // Refused once the headers before one member pass 1 MiB in all: no real archive has that.
  assertEquals(result.files, [
    "refused: The extended headers before one member are over 1 MiB in all",
  ]);
});

Deno.test("a pax header of unused records (under 1 MiB) before a member is read past, the member extracted", async () => {
  const result = await extractWithHeapCap(await pileUp(1));
  assertEquals(result.code, 0, result.stderr);
  assertEquals(result.files, ["a.txt"]);
});
