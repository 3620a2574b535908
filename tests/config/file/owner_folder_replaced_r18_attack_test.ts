/**
 * review r18: the owner files' watch after its configuration folder is
 * removed and made again (a dotfile manager or a restore replaces the
 * folder whole): a narrowing edit made in the new folder must still be
 * applied live, or the watch must say that edits apply at the next start.
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import type { CatalogOverlay } from "../../../src/skills/overrides.ts";
import { watchOwnerFiles } from "../../../src/config/file/watch_owner_files.ts";

const CEILING_MS = 15_000;

async function until(what: string, check: () => boolean, lines: string[]): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${CEILING_MS} ms waiting for ${what}; log: ${lines}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("attack (r18): the configuration folder removed and made again: a narrowing edit in the new folder is applied live (or said not live)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-r18-owner-" });
  const folder = `${dir}/config/skillgate`;
  await Deno.mkdir(folder, { recursive: true });
  const input = { args: ["/skills"], getEnv: () => undefined, cwd: "/" };
  const running = parseCommandLine(input);
  const seen: CatalogOverlay[] = [];
  const lines: string[] = [];
  const watch = watchOwnerFiles(
    {
      input,
      running,
      location: {
        path: `${folder}/config.json`,
        overridesPath: `${folder}/overrides.json`,
        isExplicit: false,
      },
      overrides: {},
      caps: running.caps,
    },
    { onChange: ({ overlay }) => seen.push(overlay), log: (line) => lines.push(line), quietMs: 20 },
  );
  assert.ok(watch !== null);
  try {
    await Deno.writeTextFile(
      `${folder}/overrides.json`,
      '{ "skills": { "a": { "enabled": false } } }',
    );
    await until("the first overlay", () => seen.length >= 1, lines);
    // The folder is replaced whole, keeping the first override, and adding a narrowing one.
    await Deno.remove(folder, { recursive: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Deno.mkdir(folder);
    await Deno.writeTextFile(
      `${folder}/overrides.json`,
      '{ "skills": { "a": { "enabled": false }, "b": { "enabled": false } } }',
    );
    await until(
      "b turned off, or a not-applied-live line",
      () =>
        seen.some((overlay) => JSON.stringify(overlay.overrides).includes('"b"')) ||
        lines.some((line) => line.includes("not applied live")),
      lines,
    );
  } finally {
    await watch.close();
    await Deno.remove(dir, { recursive: true });
  }
});
