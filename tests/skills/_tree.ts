/**
 * Test helper: builds a folder tree in a temporary directory and removes it
 * when disposed (`await using tree = await makeTree({...})`).
 *
 * @module
 */

/** What to put at a relative path: file text or bytes, a folder, or a symlink. */
export type TreeEntry = string | Uint8Array | { readonly dir: true } | { readonly symlink: string };

/** A temporary tree; disposing it removes the folder. */
export interface Tree extends AsyncDisposable {
  /** The absolute path of the temporary folder. */
  readonly path: string;
  /** Joins relative POSIX segments onto {@linkcode Tree.path}. */
  at(relative: string): string;
}

/**
 * Creates a temporary folder holding `entries`, parents first.
 *
 * @param entries Relative POSIX paths mapped to what they hold.
 * @returns The tree, removed on dispose.
 */
export async function makeTree(entries: Record<string, TreeEntry> = {}): Promise<Tree> {
  const path = await Deno.makeTempDir({ prefix: "skillgate-test-" });
  const at = (relative: string) => relative === "" ? path : `${path}/${relative}`;
  await addToTree(path, entries);
  return {
    path,
    at,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/**
 * Adds entries to an existing folder.
 *
 * @param base The absolute folder path.
 * @param entries Relative POSIX paths mapped to what they hold.
 */
export async function addToTree(base: string, entries: Record<string, TreeEntry>): Promise<void> {
  for (const [relative, entry] of Object.entries(entries)) {
    const full = `${base}/${relative}`;
    const parent = full.slice(0, full.lastIndexOf("/"));
    await Deno.mkdir(parent, { recursive: true });
    if (typeof entry === "string") await Deno.writeTextFile(full, entry);
    else if (entry instanceof Uint8Array) await Deno.writeFile(full, entry);
    else if ("dir" in entry) await Deno.mkdir(full, { recursive: true });
    else await Deno.symlink(entry.symlink, full);
  }
}

/**
 * A minimal valid SKILL.md.
 *
 * @param name The frontmatter name.
 * @param description The description.
 * @param body The body after the frontmatter.
 * @returns The file text.
 */
export function skillMd(
  name: string,
  description = `Does ${name} things`,
  body = "Body\n",
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}
