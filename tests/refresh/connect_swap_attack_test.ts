/**
 * Attack (r11 on s24): a skill's file swapped for a symlink leading outside
 * the root right after `connect` resolved (the watcher's first moments) must
 * be seen like any later swap, and no door may ever serve the outside bytes
 * meanwhile. Four shapes of the swap: delete + symlink, a symlink renamed
 * over SKILL.md (one atomic event), a supporting file swapped the same way,
 * and the whole skill folder replaced by a symlink to an outside folder.
 * Waits are bounded; nothing measures speed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type Connected, connectStdio } from "../support/program.ts";

const CEILING_MS = 20_000;
const SECRET = "OUTSIDE-SECRET-BYTES";
const ROUNDS = 3;

interface Listed {
  skills: { name: string; description: string }[];
  problems: { path: string; reason: string }[];
}

async function listed(session: Connected): Promise<Listed> {
  return (await session.call("skill_list", { limit: 1000 })).structuredContent as unknown as Listed;
}

/** Every door a client can read palette's bytes through, as one text. */
async function everythingServed(session: Connected): Promise<string> {
  const parts: string[] = [];
  const keep = async (call: () => Promise<unknown>) => {
    try {
      parts.push(JSON.stringify(await call()));
    } catch (error) {
      parts.push(String(error));
    }
  };
  await keep(() => session.call("skill_load", { name: "palette" }));
  await keep(() =>
    session.call("skill_file", { name: "palette", paths: ["SKILL.md", "notes.md"] })
  );
  await keep(() => session.client.readResource({ uri: "skill://palette/SKILL.md" }));
  await keep(() => session.client.readResource({ uri: "skill://palette/notes.md" }));
  await keep(() => session.client.getPrompt({ name: "palette" }));
  return parts.join("\n");
}

/** Polls until `check` holds, asserting on every round that no door served the outside bytes. */
async function untilSeen(session: Connected, what: string, check: (now: Listed) => boolean) {
  const deadline = Date.now() + CEILING_MS;
  for (;;) {
    const served = await everythingServed(session);
    assert.ok(
      !served.includes(SECRET),
      `outside bytes served while waiting for ${what}: ${served}`,
    );
    if (check(await listed(session))) return;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${CEILING_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function makeDirs(): Promise<{ root: string; outside: string } & AsyncDisposable> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "r11-swap-root-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "r11-swap-out-" }));
  for (const name of ["palette", "other"]) {
    await Deno.mkdir(join(root, name));
    await Deno.writeTextFile(
      join(root, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: Good ${name}\n---\nGOOD BODY\n`,
    );
    await Deno.writeTextFile(join(root, name, "notes.md"), "good notes\n");
  }
  await Deno.writeTextFile(
    join(outside, "SKILL.md"),
    `---\nname: palette\ndescription: Outside\n---\n${SECRET}\n`,
  );
  await Deno.writeTextFile(join(outside, "notes.md"), `${SECRET}\n`);
  return {
    root,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

const escaped = (suffix: string) => (now: Listed) =>
  !now.skills.some((skill) => skill.name === "palette") &&
  now.problems.some((problem) =>
    problem.reason === "symlink-escape" && problem.path.endsWith(suffix)
  );

const SHAPES: {
  label: string;
  swap: (root: string, outside: string) => Promise<void>;
  seen: (now: Listed) => boolean;
}[] = [
  {
    label: "SKILL.md deleted and re-made as a symlink",
    swap: async (root, outside) => {
      await Deno.remove(join(root, "palette", "SKILL.md"));
      await Deno.symlink(join(outside, "SKILL.md"), join(root, "palette", "SKILL.md"));
    },
    seen: escaped("palette/SKILL.md"),
  },
  {
    label: "a symlink renamed over SKILL.md",
    swap: async (root, outside) => {
      await Deno.symlink(join(outside, "SKILL.md"), join(root, "palette", ".swap"));
      await Deno.rename(join(root, "palette", ".swap"), join(root, "palette", "SKILL.md"));
    },
    seen: escaped("palette/SKILL.md"),
  },
  {
    label: "a supporting file deleted and re-made as a symlink",
    swap: async (root, outside) => {
      await Deno.remove(join(root, "palette", "notes.md"));
      await Deno.symlink(join(outside, "notes.md"), join(root, "palette", "notes.md"));
    },
    // The skill stays; the file must leave its listing (or be reported), and never be served.
    seen: () => true,
  },
  {
    label: "the skill folder replaced by a symlink to an outside folder",
    swap: async (root, outside) => {
      await Deno.remove(join(root, "palette"), { recursive: true });
      await Deno.symlink(outside, join(root, "palette"));
    },
    seen: escaped("palette"),
  },
];

for (const shape of SHAPES) {
  Deno.test(`attack: ${shape.label} right after connect is seen and never served`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await using dirs = await makeDirs();
      await using session = await connectStdio(["serve", dirs.root, "--tools=always"]);
      await shape.swap(dirs.root, dirs.outside);
      await untilSeen(session, `${shape.label} (round ${round + 1})`, shape.seen);
      if (shape.label.startsWith("a supporting file")) {
        // A later edit proves the watch is live; the swapped file is still never served.
        await Deno.writeTextFile(
          join(dirs.root, "other", "SKILL.md"),
          "---\nname: other\ndescription: Live\n---\nLIVE\n",
        );
        await untilSeen(
          session,
          "a later edit",
          (now) => now.skills.some((skill) => skill.description === "Live"),
        );
        const resources = await session.client.listResources();
        assert.ok(
          !resources.resources.some((resource) => resource.uri === "skill://palette/notes.md"),
          "the swapped file is still listed",
        );
      }
      assert.ok(!session.stderr().includes(SECRET), "outside bytes on stderr");
    }
  });
}
