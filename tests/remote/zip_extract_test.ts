import { assertEquals, assertRejects } from "./_assert.ts";
import { join } from "node:path";
import { DEFAULT_REMOTE_CAPS, type RemoteCaps } from "../../src/remote/remote_caps.ts";
import { RemoteError } from "../../src/remote/remote_error.ts";
import { crc32, extractZip } from "../../src/remote/zip_extract.ts";
import { buildZip, type ZipMember } from "../support/zip_builder.ts";

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "skillgate-zip-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    out.push(entry.isDirectory ? `${path}/` : path);
    if (entry.isDirectory) out.push(...await listTree(dir, path));
  }
  return out.sort();
}

function extract(zip: Uint8Array, dest: string, caps: Partial<RemoteCaps> = {}) {
  return extractZip(zip, dest, {
    caps: { ...DEFAULT_REMOTE_CAPS, ...caps },
    signal: AbortSignal.timeout(60_000),
  });
}

Deno.test("crc32() gives the standard check value", () => {
  assertEquals(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
});

Deno.test("extractZip() writes stored and deflated members with digests, no execute bits", async () => {
  await using dir = await tempDir();
  const zip = await buildZip([
    { name: "SKILL.md", data: "---\nname: pdf\ndescription: d\n---\nbody\n" },
    { name: "scripts/", type: "dir" },
    { name: "scripts/a.py", data: "print(1)\n".repeat(100), method: "stored" },
    { name: "ref/notes.md", data: "notes" },
  ]);
  const result = await extract(zip, dir.path);
  assertEquals([...result.files.keys()], ["SKILL.md", "ref/notes.md", "scripts/a.py"]);
  assertEquals(await listTree(dir.path), [
    "SKILL.md",
    "ref/",
    "ref/notes.md",
    "scripts/",
    "scripts/a.py",
  ]);
  assertEquals(await Deno.readTextFile(join(dir.path, "ref/notes.md")), "notes");
  assertEquals((await Deno.stat(join(dir.path, "scripts/a.py"))).mode! & 0o777, 0o600);
  assertEquals(result.files.get("ref/notes.md")?.size, 5);
});

const HOSTILE: Array<[string, ZipMember[], RemoteError["reason"]]> = [
  [
    "a `../x` member",
    [{ name: "SKILL.md", data: "x" }, { name: "../x", data: "x" }],
    "unsafe-archive",
  ],
  ["a nested `a/../../x` member", [{ name: "a/../../x", data: "x" }], "unsafe-archive"],
  ["an absolute member", [{ name: "/etc/cron.d/x", data: "x" }], "unsafe-archive"],
  ["a drive-letter member", [{ name: "C:/x", data: "x" }], "unsafe-archive"],
  ["a backslash member", [{ name: "..\\x", data: "x" }], "unsafe-archive"],
  ["a symbolic link", [{ name: "SKILL.md", data: "x" }, {
    name: "link",
    type: "symlink",
    data: "/etc/passwd",
  }], "unsafe-archive"],
  ["a FIFO", [{ name: "fifo", type: "fifo" }], "unsafe-archive"],
  ["a duplicate member", [{ name: "a", data: "1" }, { name: "a", data: "2" }], "unsafe-archive"],
  ["a local header naming another file", [{
    name: "SKILL.md",
    localName: "../SKILL.md",
    data: "x",
  }], "unsafe-archive"],
  [
    "a member larger than it declares",
    [{ name: "a", data: "x".repeat(5000), declaredBytes: 10 }],
    "bad-archive",
  ],
];

const BUILT = new Map(
  await Promise.all(
    HOSTILE.map(async ([what, members]) => [what, await buildZip(members)] as const),
  ),
);

for (const [what, , reason] of HOSTILE) {
  Deno.test(`attack: extractZip() refuses ${what} and writes nothing outside dest`, async () => {
    await using dir = await tempDir();
    const dest = join(dir.path, "dest");
    await Deno.mkdir(dest);
    const error = await assertRejects(() => extract(BUILT.get(what)!, dest), RemoteError);
    assertEquals(error.reason, reason, error.message);
    assertEquals(await listTree(dir.path).then((t) => t.filter((p) => !p.startsWith("dest"))), []);
  });
}

Deno.test("attack: extractZip() refuses an oversize member from its declared size before writing", async () => {
  await using dir = await tempDir();
  const zip = await buildZip([{ name: "big.bin", data: new Uint8Array(4096) }]);
  const error = await assertRejects(
    () => extract(zip, dir.path, { maxMemberBytes: 1024 }),
    RemoteError,
  );
  assertEquals(error.reason, "too-large");
  assertEquals(await listTree(dir.path), []);
});

Deno.test("attack: extractZip() stops a zip bomb at the unpacked cap", async () => {
  await using dir = await tempDir();
  const members = Array.from({ length: 8 }, (_, i) => ({
    name: `f${i}`,
    data: new Uint8Array(512 * 1024),
  }));
  const zip = await buildZip(members);
  assertEquals(zip.length < 64 * 1024, true);
  const error = await assertRejects(
    () => extract(zip, dir.path, { maxUnpackedBytes: 1024 * 1024 }),
    RemoteError,
  );
  assertEquals(error.reason, "too-large");
});

Deno.test("attack: extractZip() refuses more members than the cap, a corrupt CRC and non-zip bytes", async () => {
  await using dir = await tempDir();
  const many = await buildZip([{ name: "a", data: "1" }, { name: "b", data: "2" }]);
  assertEquals(
    (await assertRejects(() => extract(many, dir.path, { maxMembers: 1 }), RemoteError)).reason,
    "too-large",
  );
  const stored = await buildZip([{ name: "a", data: "hello", method: "stored" }]);
  const flipped = stored.slice();
  flipped[30 + 1] = "j".charCodeAt(0); // the stored data right after the local header and name "a"
  assertEquals(
    (await assertRejects(() => extract(flipped, join(dir.path), {}), RemoteError)).reason,
    "bad-archive",
  );
  const junk = new TextEncoder().encode("PK not really a zip");
  assertEquals(
    (await assertRejects(() => extract(junk, dir.path), RemoteError)).reason,
    "bad-archive",
  );
});
