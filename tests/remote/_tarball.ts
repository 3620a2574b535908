/**
 * TEST-ONLY: builds real gzip tarballs the way GitHub lays them out (a
 * global pax header carrying the commit, one `OWNER-REPO-SHA7/` top folder),
 * plus hostile members for the attack tests.
 *
 * @module
 */

/** One member to write. */
export interface TarMember {
  readonly name: string;
  readonly type?: "file" | "dir" | "symlink" | "hardlink" | "chardev" | "pax-global";
  readonly data?: string | Uint8Array;
  readonly linkname?: string;
}

/**
 * Builds a gzip tarball.
 *
 * @param members Members in order.
 * @returns The gzip bytes.
 */
export async function buildTarball(members: readonly TarMember[]): Promise<Uint8Array> {
  const blocks: Uint8Array[] = [];
  for (const member of members) {
    const data = typeof member.data === "string"
      ? new TextEncoder().encode(member.data)
      : member.data ?? new Uint8Array(0);
    const type = member.type ?? (member.name.endsWith("/") ? "dir" : "file");
    const flag =
      { file: "0", dir: "5", symlink: "2", hardlink: "1", chardev: "3", "pax-global": "g" }[
        type
      ];
    const hasData = type === "file" || type === "pax-global";
    blocks.push(header(member.name, hasData ? data.length : 0, flag, member.linkname ?? ""));
    if (hasData) {
      const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
      padded.set(data);
      blocks.push(padded);
    }
  }
  blocks.push(new Uint8Array(1024));
  const tar = await new Blob(blocks as Uint8Array<ArrayBuffer>[]).bytes();
  const gzip = new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip"));
  return await new Response(gzip).bytes();
}

/**
 * The members of a GitHub-like tarball for `files` (path -> text) at `commit`.
 *
 * @param top The top folder, e.g. `acme-skills-0123456`.
 * @param commit The commit (goes in the global pax comment, as GitHub does).
 * @param files Repository files.
 * @returns Members: the pax header, the top folder, each file's folders and the files.
 */
export function githubMembers(
  top: string,
  commit: string,
  files: Readonly<Record<string, string>>,
): TarMember[] {
  const comment = `comment=${commit}\n`;
  const record = `${comment.length + 3} ${comment}`;
  const members: TarMember[] = [
    { name: "pax_global_header", type: "pax-global", data: record },
    { name: `${top}/`, type: "dir" },
  ];
  const dirs = new Set<string>();
  for (const path of Object.keys(files).sort()) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (!dirs.has(dir)) {
        dirs.add(dir);
        members.push({ name: `${top}/${dir}/`, type: "dir" });
      }
    }
    members.push({ name: `${top}/${path}`, data: files[path]! });
  }
  return members;
}

function header(name: string, size: number, flag: string, linkname: string): Uint8Array {
  const block = new Uint8Array(512);
  const put = (offset: number, text: string) => block.set(new TextEncoder().encode(text), offset);
  put(0, name);
  put(100, "0000644\0");
  put(108, "0000000\0");
  put(116, "0000000\0");
  put(124, size.toString(8).padStart(11, "0") + "\0");
  put(136, "00000000000\0");
  put(156, flag);
  put(157, linkname);
  put(257, "ustar\0");
  put(263, "00");
  block.fill(32, 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}
