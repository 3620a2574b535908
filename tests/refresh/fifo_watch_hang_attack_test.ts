/**
 * Attack (r11 on s24/s26): a FIFO made in a watched root (anyone who may
 * write a skill folder can make one) must not stop the server. Deno's
 * watcher thread opens each event's path (a FIFO's open waits for a writer),
 * and a new `Deno.watchFs` waits for that thread's lock: a server that opens
 * watchers after catalog changes would hang its worker. Here: a FIFO, then
 * a new skill (a catalog change), then every request must still be answered
 * (bounded by a ceiling; nothing is timed).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 15_000;

/** Resolves with the call's answer, or rejects after the ceiling. */
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

Deno.test("attack: a FIFO in a watched root, then a new skill: the server still answers and serves the new skill", async () => {
  const root = await Deno.makeTempDir({ prefix: "r11-fifo-" });
  const fifo = join(root, "alpha", "pipe");
  let release: (() => Promise<void>) | undefined;
  try {
    await Deno.mkdir(join(root, "alpha"));
    await Deno.writeTextFile(
      join(root, "alpha", "SKILL.md"),
      "---\nname: alpha\ndescription: First.\n---\nBody.\n",
    );
    const session = await connectStdio(["serve", root]);
    try {
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assert.equal(made.code, 0);
      // Unblocks whatever opened the FIFO, so the test can always end.
      release = async () => {
        const handle = await Deno.open(fifo, { read: true, write: true });
        handle.close();
      };
      await Deno.mkdir(join(root, "beta"));
      await Deno.writeTextFile(
        join(root, "beta", "SKILL.md"),
        "---\nname: beta\ndescription: Second.\n---\nBody.\n",
      );
      const deadline = Date.now() + CEILING_MS;
      let names: string[] = [];
      while (!names.includes("beta") && Date.now() < deadline) {
        const answer = await within("skill_list", session.call("skill_list", {}));
        names = (answer.structuredContent as { skills: { name: string }[] }).skills.map((s) =>
          s.name
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(names.includes("beta"), `beta not served: ${names.join(", ")}`);
      // And another change after it: still answered.
      await Deno.writeTextFile(
        join(root, "alpha", "SKILL.md"),
        "---\nname: alpha\ndescription: Edited.\n---\nBody.\n",
      );
      await within("skill_list after an edit", session.call("skill_list", {}));
    } finally {
      await release?.();
      await session[Symbol.asyncDispose]();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Whether a thread of `pid` waits in a FIFO open (the kernel's `wait_for_partner`). */
function hasThreadInFifoOpen(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const wchan = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/wchan`);
      if (wchan.includes("wait_for_partner")) return true;
    }
  } catch {
    // The process ended while we looked.
  }
  return false;
}

Deno.test("attack: FIFOs made in a watched root hold no thread, and a later edit of another skill is served", async () => {
  const root = await Deno.makeTempDir({ prefix: "h2-fifo-later-" });
  let release: (() => Promise<void>) | undefined;
  const ceilingMs = CEILING_MS;
  try {
    for (const name of ["alpha", "beta"]) {
      await Deno.mkdir(join(root, name));
      await Deno.writeTextFile(
        join(root, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: Before.\n---\nBody.\n`,
      );
    }
    const session = await connectStdio(["serve", root]);
    try {
      await within("skill_list", session.call("skill_list", {}));
      // The watcher starts once the first answer went out. Deno's watchFs thread opened each
      // event's path and waited in a FIFO's open for good; the inotify watch opens nothing.
      const fifos: string[] = [];
      release = async () => {
        for (const path of fifos) {
          const handle = await Deno.open(path, { read: true, write: true });
          handle.close();
        }
      };
      for (let attempt = 0; attempt < 4; attempt++) {
        const fifo = join(root, "alpha", `pipe${attempt}`);
        const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
        assert.equal(made.code, 0);
        fifos.push(fifo);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      assert.ok(
        !hasThreadInFifoOpen(session.pid()),
        "no thread of skillgate waits in a FIFO's open",
      );
      // LATER: an edit to another skill.
      await Deno.writeTextFile(
        join(root, "beta", "SKILL.md"),
        "---\nname: beta\ndescription: Edited later.\n---\nBody.\n",
      );
      const deadline = Date.now() + ceilingMs;
      let description = "";
      while (description !== "Edited later." && Date.now() < deadline) {
        const answer = await within("skill_list", session.call("skill_list", {}));
        const skills = (answer.structuredContent as {
          skills: { name: string; description: string }[];
        }).skills;
        description = skills.find((skill) => skill.name === "beta")?.description ?? "";
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.equal(description, "Edited later.", "the later edit was served");
    } finally {
      await release?.();
      await session[Symbol.asyncDispose]();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
