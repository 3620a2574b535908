import { assertEquals, assertRejects } from "./_assert.ts";
import { join } from "node:path";
import { DEFAULT_REMOTE_CAPS, type RemoteCaps } from "../../src/remote/remote_caps.ts";
import { RemoteError } from "../../src/remote/remote_error.ts";
import { extractTarball } from "../../src/remote/tar_extract.ts";
import { buildTarball, githubMembers, type TarMember } from "./_tarball.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "skillgate-tar-" });
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

function extract(gzip: Uint8Array, dest: string, subPath = "", caps: Partial<RemoteCaps> = {}) {
  return extractTarball(gzip, dest, subPath, {
    caps: { ...DEFAULT_REMOTE_CAPS, ...caps },
    signal: AbortSignal.timeout(60_000),
  });
}

Deno.test("extractTarball() writes the source PATH of a GitHub tarball with digests", async () => {
  await using dir = await tempDir();
  const gzip = await buildTarball(githubMembers("acme-skills-0123456", SHA, {
    "README.md": "top",
    "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: d\n---\nbody",
    "skills/pdf/scripts/a.py": "print(1)",
  }));
  const result = await extract(gzip, dir.path, "skills");
  assertEquals([...result.files.keys()], ["pdf/SKILL.md", "pdf/scripts/a.py"]);
  assertEquals(await listTree(dir.path), [
    "pdf/",
    "pdf/SKILL.md",
    "pdf/scripts/",
    "pdf/scripts/a.py",
  ]);
  const expected = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode("print(1)")),
  );
  assertEquals(
    result.files.get("pdf/scripts/a.py")?.digest,
    `sha256:${Array.from(expected, (b) => b.toString(16).padStart(2, "0")).join("")}`,
  );
  assertEquals((await Deno.stat(join(dir.path, "pdf/scripts/a.py"))).mode! & 0o777, 0o600);
});

const HOSTILE: Array<[string, TarMember[], RemoteError["reason"]]> = [
  ["a `../x` member", [{ name: "top/" }, { name: "top/../x", data: "x" }], "unsafe-archive"],
  ["an absolute member", [{ name: "/etc/cron.d/x", data: "x" }], "unsafe-archive"],
  ["a symbolic link", [{ name: "top/" }, {
    name: "top/s/link",
    type: "symlink",
    linkname: "/etc/passwd",
  }], "unsafe-archive"],
  ["a hard link", [{ name: "top/" }, {
    name: "top/s/hard",
    type: "hardlink",
    linkname: "top/s/other",
  }], "unsafe-archive"],
  ["a device", [{ name: "top/" }, { name: "top/s/dev", type: "chardev" }], "unsafe-archive"],
  [
    "a second top folder",
    [{ name: "top/a", data: "x" }, { name: "other/b", data: "y" }],
    "unsafe-archive",
  ],
  [
    "a duplicate member",
    [{ name: "top/s/a", data: "x" }, { name: "top/s/a", data: "y" }],
    "unsafe-archive",
  ],
  ["an oversize member", [{ name: "top/s/big", data: new Uint8Array(4096) }], "too-large"],
];

for (const [what, members, reason] of HOSTILE) {
  Deno.test(`attack: extractTarball() refuses ${what} and writes nothing outside dest`, async () => {
    await using outer = await tempDir();
    const dest = join(outer.path, "dest");
    await Deno.mkdir(dest);
    const gzip = await buildTarball(members);
    const error = await assertRejects(
      () => extract(gzip, dest, "", { maxMemberBytes: 1024 }),
      RemoteError,
    );
    assertEquals(error.reason, reason);
    assertEquals(
      await listTree(outer.path).then((all) => all.filter((p) => !p.startsWith("dest"))),
      [],
    );
    for (const path of await listTree(dest)) {
      const info = await Deno.lstat(join(dest, path));
      assertEquals(info.isSymlink, false, path);
    }
  });
}

Deno.test("extractTarball() skips a link outside the source PATH (never written)", async () => {
  await using dir = await tempDir();
  const gzip = await buildTarball([
    { name: "top/" },
    { name: "top/docs/link", type: "symlink", linkname: "/etc/passwd" },
    { name: "top/skills/a/SKILL.md", data: "x" },
  ]);
  const result = await extract(gzip, dir.path, "skills");
  assertEquals([...result.files.keys()], ["a/SKILL.md"]);
});

Deno.test("attack: extractTarball() stops a gzip bomb at the unpacked cap", async () => {
  await using dir = await tempDir();
  const gzip = await buildTarball([{ name: "top/zeros", data: new Uint8Array(4 * 1024 * 1024) }]);
  const error = await assertRejects(
    () => extract(gzip, dir.path, "", { maxUnpackedBytes: 1024 * 1024 }),
    RemoteError,
  );
  assertEquals(error.reason, "too-large");
  assertEquals(await listTree(dir.path), []);
});

Deno.test("attack: extractTarball() refuses more members than the cap", async () => {
  await using dir = await tempDir();
  const members = Array.from({ length: 20 }, (_, i) => ({ name: `top/f${i}`, data: "x" }));
  const gzip = await buildTarball(members);
  const error = await assertRejects(
    () => extract(gzip, dir.path, "", { maxMembers: 10 }),
    RemoteError,
  );
  assertEquals(error.reason, "too-large");
});

Deno.test("extractTarball() refuses bytes that are not a gzip tarball", async () => {
  await using dir = await tempDir();
  const error = await assertRejects(
    () => extract(new TextEncoder().encode("<html>rate limited</html>"), dir.path),
    RemoteError,
  );
  assertEquals(error.reason, "bad-archive");
});
