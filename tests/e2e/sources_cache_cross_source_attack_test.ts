/**
 * Attack (review r16): the sources cache (`$XDG_CACHE_HOME/skillgate/sources/<key>/`)
 * is shared by every skillgate of a user, one `<key>` folder per source. A
 * server configured with one source gives its serving worker read of the
 * WHOLE sources folder, and its fetcher (the part that parses tarballs and
 * zips from the network) read and write of it. So a taken-over serving worker
 * reads every other source any other server fetched (private repositories
 * fetched with another configuration's GITHUB_TOKEN included), and a
 * taken-over fetcher writes into other sources' served copies. Each part
 * should reach only its own sources' folders.
 *
 * Checked on the sets skillgate itself computes (`skillgate permissions
 * --json`, the one place the worker's and the fetcher's sets are decided).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runProgram } from "../support/program.ts";

function covers(granted: string, path: string): boolean {
  return path === granted || path.startsWith(`${granted.replace(/\/$/, "")}/`);
}

Deno.test("attack: a server with one remote source may reach every other source's folder in the shared sources cache", async () => {
  const base = await Deno.makeTempDir({ prefix: "skillgate-sources-cross-" });
  try {
    const root = join(base, "skills");
    await Deno.mkdir(root);
    const cacheHome = join(base, "cache");
    await Deno.mkdir(cacheHome, { mode: 0o700 });
    const printed = await runProgram(
      [
        "permissions",
        root,
        "--source",
        "github:acme/skills",
        "--github-allow",
        "acme",
        "--json",
      ],
      { env: { XDG_CACHE_HOME: cacheHome } },
    );
    assert.equal(printed.code, 0, printed.stderr);
    const sets = JSON.parse(printed.stdout) as {
      worker: { read: string[] };
      fetcher: { read: string[]; write: string[] };
    };
    // Another server's source (another repository, maybe a private one) lives beside ours.
    const otherSource = join(cacheHome, "skillgate", "sources", "github-otherorg-private-0123abcd");
    const reaching = [
      ...sets.worker.read.filter((path) => covers(path, otherSource)).map((p) =>
        `worker read ${p}`
      ),
      ...sets.fetcher.write.filter((path) => covers(path, otherSource)).map((p) =>
        `fetcher write ${p}`
      ),
    ];
    assert.deepEqual(reaching, [], "a part of this server reaches another source's folder");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
