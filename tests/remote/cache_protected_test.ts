import { isForbiddenFolder, protectedFoldersOf } from "../../src/scripts/sandbox/grant_folders.ts";
import { assertEquals } from "./_assert.ts";

Deno.test("attack: a grant cannot hand a script the sources cache (or any of skillgate's cache)", () => {
  const env: Record<string, string> = { HOME: "/nonexistent-home", XDG_CACHE_HOME: "/x/cache" };
  const folders = protectedFoldersOf({
    roots: [],
    installDir: "/opt/skillgate",
    getEnv: (name) => env[name],
  });
  for (const path of ["/x/cache/skillgate/sources", "/x/cache/skillgate", "/x/cache"]) {
    assertEquals(typeof isForbiddenFolder(path, folders), "string", path);
  }
  assertEquals(isForbiddenFolder("/x/cache/other-tool", folders), null);
});
