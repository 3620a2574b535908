/**
 * Session 13, hA: the owner-file watch's first read accepts only files it
 * could read and parse (as start-up does, which refuses to start on such a
 * file). A file planted after start-up's read that is not a regular file (a
 * FIFO, a folder) or not valid is not accepted: `onUnread` names it (serve
 * then refuses the waiting requests), `onFirstRead` waits; the file's next
 * change, or `readWanted`, reads it again. The real watch, real files.
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

/** The watch over `folder`, recording every callback in order. */
function startWatch(folder: string) {
  const input = { args: ["/skills"], getEnv: () => undefined, cwd: "/" };
  const running = parseCommandLine(input);
  const events: string[] = [];
  const overlays: CatalogOverlay[] = [];
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
      onChange: ({ overlay }) => (overlays.push(overlay), events.push("change")),
      log: (line) => lines.push(line),
      quietMs: 20,
      onFirstRead: () => events.push("first-read"),
      onUnread: (paths) => events.push(`unread ${paths.join(" ")}`),
    },
  );
  assert.ok(watch !== null);
  return { watch, events, overlays, lines };
}

Deno.test("attack (s13 hA): a FIFO planted as overrides.json before the first read is not accepted (onUnread names it; nothing reads as current), and once replaced by a valid file its narrowing is posted, then onFirstRead", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-first-read-" });
  try {
    const fifo = new Deno.Command("mkfifo", { args: [`${dir}/overrides.json`] });
    assert.equal((await fifo.output()).code, 0);
    const { watch, events, overlays, lines } = startWatch(dir);
    try {
      await until("the first read's outcome", () => events.some((e) => e.startsWith("unread")));
      assert.ok(!events.includes("first-read"), events.join(", "));
      assert.ok(events.includes(`unread ${dir}/overrides.json`), events.join(", "));
      assert.ok(
        lines.some((line) => /overrides\.json.*is not a regular file/.test(line)),
        lines.join("\n"),
      );
      // Asked again (a request came): read again, still not accepted.
      const unreadBefore = events.filter((e) => e.startsWith("unread")).length;
      watch.readWanted();
      await until(
        "the second read",
        () => events.filter((e) => e.startsWith("unread")).length > unreadBefore,
      );
      assert.ok(!events.includes("first-read"));
      // The owner fixes it (and turns pdf off), replacing the FIFO whole by a rename: the change
      // is read, its overlay posted first. (A remove, then a write, would let a read in between
      // find no overrides.json at all, a valid state of its own: the flake CI showed.)
      await Deno.writeTextFile(
        `${dir}/overrides.json.new`,
        '{ "skills": { "pdf": { "enabled": false } } }',
      );
      await Deno.rename(`${dir}/overrides.json.new`, `${dir}/overrides.json`);
      await until("the first accepted read", () => events.includes("first-read"));
      const at = events.indexOf("first-read");
      assert.equal(events[at - 1], "change", events.join(", "));
      assert.deepEqual(overlays.at(-1)!.overrides, { pdf: { enabled: false } });
      // After it, readWanted says it again (the worker may have missed it); no read is refused.
      watch.readWanted();
      assert.equal(events.filter((e) => e === "first-read").length, 2);
    } finally {
      await watch.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("s13 hA: a configuration file that is not valid at the first read is not accepted either (start-up would refuse it); a folder in overrides.json's place neither", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-first-read-" });
  try {
    await Deno.writeTextFile(`${dir}/config.json`, "{ not json");
    await Deno.mkdir(`${dir}/overrides.json`);
    const { watch, events } = startWatch(dir);
    try {
      await until("the first read's outcome", () => events.some((e) => e.startsWith("unread")));
      assert.ok(
        events.includes(`unread ${dir}/config.json ${dir}/overrides.json`),
        events.join(", "),
      );
      assert.ok(!events.includes("first-read"));
    } finally {
      await watch.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
