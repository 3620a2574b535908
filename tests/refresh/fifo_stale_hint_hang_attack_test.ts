/**
 * Attack (r11 on s24 + s26): a FIFO made in a watched root stops Deno's
 * watcher thread in its open (README, s26), so no event arrives; then a
 * door refused a listed file (swapped for a symlink leading out) reads its
 * skill again (s24's stale hint). That refresh must not open a watcher
 * while the watcher thread is stuck: the server must go on answering.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 15_000;

function within<T>(what: string, call: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ceiling = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer in ${CEILING_MS} ms`)),
      CEILING_MS,
    );
  });
  return Promise.race([call, ceiling]).finally(() => clearTimeout(timer));
}

Deno.test("attack: a FIFO in a watched root, then a refused read of a swapped file: the server still answers", async () => {
  const root = await Deno.makeTempDir({ prefix: "r11-fifo-hint-" });
  const outside = await Deno.makeTempDir({ prefix: "r11-fifo-out-" });
  const fifo = join(root, "alpha", "pipe");
  let release: (() => Promise<void>) | undefined;
  try {
    await Deno.mkdir(join(root, "alpha"));
    await Deno.writeTextFile(
      join(root, "alpha", "SKILL.md"),
      "---\nname: alpha\ndescription: First.\n---\nBody.\n",
    );
    await Deno.writeTextFile(join(root, "alpha", "notes.md"), "notes\n");
    await Deno.writeTextFile(join(outside, "notes.md"), "OUTSIDE\n");
    const session = await connectStdio(["serve", root, "--tools=always"]);
    try {
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assert.equal(made.code, 0);
      release = async () => {
        const handle = await Deno.open(fifo, { read: true, write: true });
        handle.close();
      };
      await new Promise((resolve) => setTimeout(resolve, 500));
      await Deno.remove(join(root, "alpha", "notes.md"));
      await Deno.symlink(join(outside, "notes.md"), join(root, "alpha", "notes.md"));
      const read = await within(
        "skill_file",
        session.call("skill_file", { name: "alpha", paths: ["notes.md"] }),
      );
      assert.doesNotMatch(JSON.stringify(read), /OUTSIDE/);
      for (let round = 0; round < 5; round++) {
        await within(`skill_list (round ${round + 1})`, session.call("skill_list", {}));
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    } finally {
      await release?.();
      await session[Symbol.asyncDispose]();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
