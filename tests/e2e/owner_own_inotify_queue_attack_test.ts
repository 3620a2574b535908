/**
 * review r18 (hA-7's fix): the real `serve` holds the owner files' watch in
 * an inotify descriptor (kernel queue) of its own, which holds that one
 * watch and nothing of the roots, even when the configuration folder lies
 * inside a root (so a root writer's flood cannot overflow it); and a flood
 * in the root while the owner turns a skill off does not keep the skill
 * served. Read from `/proc/<pid>/fdinfo` (Linux only; ignored elsewhere).
 * Every wait has a generous ceiling; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { connectStdio } from "../support/program.ts";

const CEILING_MS = 30_000;
const isLinux = Deno.build.os === "linux";

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${CEILING_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each inotify descriptor of `pid`: the inode numbers (hex, as fdinfo writes them) it watches. */
function inotifyWatches(pid: number): string[][] {
  const found: string[][] = [];
  for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`);
    } catch {
      continue;
    }
    if (target !== "anon_inode:inotify") continue;
    const info = Deno.readTextFileSync(`/proc/${pid}/fdinfo/${entry.name}`);
    found.push([...info.matchAll(/^inotify wd:\S+ ino:([0-9a-f]+) /gm)].map((m) => m[1] ?? ""));
  }
  return found;
}

async function writeSkill(root: string, name: string): Promise<void> {
  await Deno.mkdir(`${root}/${name}`, { recursive: true });
  await Deno.writeTextFile(
    `${root}/${name}/SKILL.md`,
    `---\nname: ${name}\ndescription: Skill ${name} for the queue test\n---\n# ${name}\n`,
  );
}

Deno.test({
  name:
    "attack (r18, hA-7): serve watches the owner's folder in an inotify queue of its own, holding no root watch, and a root flood does not keep a turned-off skill served",
  ignore: !isLinux,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "skillgate-r18-queue-" });
    try {
      const root = `${dir}/skills`;
      await writeSkill(root, "alpha");
      await writeSkill(root, "beta");
      await Deno.mkdir(`${root}/flood`);
      // The configuration folder inside the root: both watches reach its inode.
      const folder = `${root}/cfg/skillgate`;
      await Deno.mkdir(folder, { recursive: true });
      await Deno.writeTextFile(`${folder}/config.json`, JSON.stringify({ roots: ["../.."] }));
      const folderIno = Deno.statSync(folder).ino!.toString(16);
      await using session = await connectStdio(["serve"], {
        env: { XDG_CONFIG_HOME: `${root}/cfg` },
      });
      const pid = session.pid();
      assert.ok(pid !== null);
      const names = async () =>
        ((await session.call("skill_list", { limit: 100 })).structuredContent as {
          skills: { name: string }[];
        }).skills.map((skill) => skill.name);
      assert.deepEqual((await names()).sort(), ["alpha", "beta"]);
      // Both watches are up: the roots' tree reaches the configuration folder, and the owner's.
      await until(
        "two inotify descriptors both watching the configuration folder",
        () => inotifyWatches(pid).filter((inos) => inos.includes(folderIno)).length === 2,
      );
      const queues = inotifyWatches(pid);
      assert.equal(queues.length, 2, "one inotify descriptor for the roots, one for the owner");
      const owner = queues.filter((inos) => inos.length === 1 && inos[0] === folderIno);
      assert.equal(owner.length, 1, `the owner's queue holds its folder alone: ${queues}`);

      // A root writer floods; the owner turns beta off meanwhile.
      const max = Number(Deno.readTextFileSync("/proc/sys/fs/inotify/max_queued_events").trim());
      const flood = (from: number) => {
        for (let i = from; i < from + Math.ceil(max / 3) + 200; i++) {
          Deno.writeTextFileSync(`${root}/flood/f${i}`, "x");
        }
      };
      flood(0);
      await Deno.writeTextFile(
        `${folder}/overrides.json`,
        JSON.stringify({ skills: { beta: { enabled: false } } }),
      );
      flood(1_000_000);
      await until("beta out of the list", async () => !(await names()).includes("beta"));
      const load = await session.call("skill_load", { name: "beta" });
      assert.equal(load.isError, true, "a turned-off skill is not served");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
