/**
 * watchOwnerFiles(): the trusted part's watch, without a worker. It hands
 * over each new overlay after an edit, also when the configuration folder
 * did not exist at start (the first `skillgate override` creates it).
 */

import assert from "node:assert/strict";
import { parseCommandLine } from "../../../src/config/cli.ts";
import type { CatalogOverlay } from "../../../src/skills/overrides.ts";
import { watchOwnerFiles } from "../../../src/config/file/watch_owner_files.ts";

const CEILING_MS = 20_000;

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${CEILING_MS} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function startWatch(folder: string) {
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
    {
      onChange: ({ overlay }) => seen.push(overlay),
      log: (line) => lines.push(line),
      quietMs: 20,
    },
  );
  assert.ok(watch !== null);
  return { watch, seen, lines };
}

Deno.test("watchOwnerFiles() hands over the narrowed overrides after an edit, and the problems of a bad one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-watch-" });
  const { watch, seen, lines } = startWatch(dir);
  try {
    await Deno.writeTextFile(
      `${dir}/overrides.json`,
      '{ "skills": { "pdf": { "enabled": false } } }',
    );
    await until("the overlay", () => seen.length === 1);
    assert.deepEqual(seen[0]!.overrides, { pdf: { enabled: false } });
    await Deno.writeTextFile(`${dir}/config.json`, '{ "maxSkills": "x" }');
    await until("the problem", () => seen.length === 2);
    assert.equal(seen[1]!.problems[0]?.reason, "config-invalid");
    assert.deepEqual(seen[1]!.overrides, { pdf: { enabled: false } });
    assert.ok(
      lines.some((line) =>
        line.startsWith(`skillgate: ${dir}/config.json:1:16: config-invalid: "maxSkills" must be`)
      ),
      lines.join("\n"),
    );
  } finally {
    await watch.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("watchOwnerFiles() waits for a configuration folder that does not exist yet", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-watch-" });
  const folder = `${dir}/config/skillgate`;
  const { watch, seen } = startWatch(folder);
  try {
    await Deno.mkdir(`${dir}/config`);
    await Deno.mkdir(folder);
    await Deno.writeTextFile(
      `${folder}/overrides.json`,
      '{ "skills": { "a": { "userInvocable": false } } }',
    );
    await until("the overlay", () => seen.length >= 1);
    assert.deepEqual(seen.at(-1)!.overrides, { a: { userInvocable: false } });
  } finally {
    await watch.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("attack: a FIFO in the folder watched while waiting for the configuration folder does not stop live edits (nor hang this thread)", async () => {
  // Deno's watcher thread opened each event's path; a FIFO's open waits for a writer for good.
  // Then the folder made next was seen, the parent's watcher closed here, and the close left this
  // thread's event loop stuck. inotify opens nothing (only a ceiling bounds the wait).
  const dir = await Deno.makeTempDir({ prefix: "skillgate-watch-fifo-" });
  const folder = `${dir}/skillgate`;
  const { watch, seen } = startWatch(folder);
  const fifo = `${dir}/pipe`;
  try {
    await Deno.mkdir(folder);
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(made.code, 0);
    await Deno.writeTextFile(
      `${folder}/overrides.json`,
      '{ "skills": { "a": { "enabled": false } } }',
    );
    await until("the overlay", () => seen.length >= 1);
    assert.deepEqual(seen.at(-1)!.overrides, { a: { enabled: false } });
    // And a later edit, in the watched folder itself, after a FIFO made there too.
    const inside = await new Deno.Command("mkfifo", { args: [`${folder}/pipe`] }).output();
    assert.equal(inside.code, 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await Deno.writeTextFile(
      `${folder}/overrides.json`,
      '{ "skills": { "b": { "enabled": false } } }',
    );
    await until("the later overlay", () => seen.at(-1)?.overrides.b?.enabled === false);
  } finally {
    await watch.close();
    // Unblocks whatever still waits in a FIFO's open (a stuck watcher thread), then cleans up.
    for (const path of [fifo, `${folder}/pipe`]) {
      try {
        const handle = await Deno.open(path, { read: true, write: true });
        handle.close();
      } catch { /* not made */ }
    }
    await Deno.remove(dir, { recursive: true });
  }
});
