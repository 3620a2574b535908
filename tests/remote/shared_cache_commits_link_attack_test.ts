/**
 * Review r14 (H1's precondition, a worse outcome): another user who may write
 * the sources cache puts a symlink at `<key>/commits` pointing at a folder of
 * the owner's. The fetcher's Deno permission (read/write on the cache) is
 * lexical, so every path under `<cache>/<key>/commits/` passes it; after a
 * successful fetch `swapIn()` removes every entry of `commits/` but the
 * commits it keeps: every file of the owner's folder is deleted.
 */

import { join } from "node:path";
import { runProgram } from "../support/program.ts";
import { parseRemoteSpec } from "../../src/remote/remote_source.ts";
import { sourceKey } from "../../src/remote/sources_cache.ts";
import { assertEquals } from "./_assert.ts";
import { publish, remoteFixture, V1 } from "./_remote_fixture.ts";

const SPEC = "github:acme/skills/skills@main";

Deno.test("attack: a commits/ symlink planted in a shared sources cache makes sync delete the owner's files", async () => {
  await using fx = await remoteFixture();
  await publish(fx.fake, "acme/skills", "main", V1);
  const cacheHome = join(fx.dir, "shared-cache");
  const sources = join(cacheHome, "skillgate", "sources");
  await Deno.mkdir(sources, { recursive: true });
  await Deno.chmod(sources, 0o777); // a cache folder another user may write
  // The owner's folder, outside the cache.
  const precious = join(fx.dir, "owner-notes");
  await Deno.mkdir(precious);
  await Deno.writeTextFile(join(precious, "thesis.md"), "years of work\n");
  // The other user, knowing the public spec, plants the link.
  const key = await sourceKey(parseRemoteSpec(SPEC));
  await Deno.mkdir(join(sources, key));
  await Deno.symlink(precious, join(sources, key, "commits"));

  const sync = await runProgram([
    "sync",
    `--source=${SPEC}`,
    "--github-allow=acme",
    `--github-api=${fx.fake.apiUrl}`,
    `--github-download-host=${fx.fake.downloadHost}`,
    `--lock=${join(fx.dir, "skillgate.lock")}`,
  ], { env: { XDG_CACHE_HOME: cacheHome } });

  const left = [...Deno.readDirSync(precious)].map((entry) => entry.name).sort();
  assertEquals(
    left.includes("thesis.md"),
    true,
    `sync (exit ${sync.code}) deleted the owner's file; the folder now holds ${
      JSON.stringify(left)
    }\n${sync.stdout}\n${sync.stderr}`,
  );
  // Nothing of the fetch lands in the owner's folder either.
  assertEquals(left, ["thesis.md"]);
});
