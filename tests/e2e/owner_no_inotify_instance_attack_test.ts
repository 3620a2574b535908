/**
 * review r18, r18-3: the real `serve` with one inotify instance left
 * (`fs.inotify.max_user_instances`, shared by every watcher of the user):
 * the roots' watch takes it, the owner files' watch gets none. Its edits
 * must still be applied (both files read periodically) and stderr must say
 * so once. The limit is lowered to 1 in a user namespace of the test's own
 * (`unshare --user --map-root-user`: `user.max_inotify_instances` is per
 * namespace), so nothing else on the machine is touched; where no user
 * namespace can be made, the test is ignored.
 */

import assert from "node:assert/strict";
import { type CallToolResult, Client, StdioClientTransport } from "../support/sdk_client.ts";
import { programCommand, programEnv, REPO_ROOT } from "../support/program.ts";

const CEILING_MS = 30_000;

/** Whether this machine lets the test lower the instance limit in a user namespace of its own. */
function canLowerInstanceLimit(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    const probe = new Deno.Command("unshare", {
      args: [
        "--user",
        "--map-root-user",
        "sh",
        "-c",
        "echo 1 > /proc/sys/user/max_inotify_instances",
      ],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return probe.success;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${CEILING_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function writeSkill(root: string, name: string): Promise<void> {
  await Deno.mkdir(`${root}/${name}`, { recursive: true });
  await Deno.writeTextFile(
    `${root}/${name}/SKILL.md`,
    `---\nname: ${name}\ndescription: Skill ${name} for the instance test\n---\n# ${name}\n`,
  );
}

Deno.test({
  name:
    "attack (r18, r18-3): one inotify instance left: the roots' watch takes it, the owner's narrowing edit is still applied (files read periodically), said once",
  ignore: !canLowerInstanceLimit(),
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "skillgate-r18-instances-" });
    const root = `${dir}/skills`;
    await writeSkill(root, "alpha");
    await writeSkill(root, "beta");
    const folder = `${dir}/cfg/skillgate`;
    await Deno.mkdir(folder, { recursive: true });
    await Deno.writeTextFile(`${folder}/config.json`, JSON.stringify({ roots: [root] }));
    const transport = new StdioClientTransport({
      command: "unshare",
      args: [
        "--user",
        "--map-root-user",
        "sh",
        "-c",
        'echo 1 > /proc/sys/user/max_inotify_instances && exec "$@"',
        "sh",
        Deno.execPath(),
        ...programCommand(["serve"]),
      ],
      env: programEnv({ XDG_CONFIG_HOME: `${dir}/cfg` }),
      cwd: REPO_ROOT,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Uint8Array) => {
      stderr += new TextDecoder().decode(chunk);
    });
    const client = new Client({ name: "skillgate-tests", version: "1.0.0" }, {});
    await client.connect(transport);
    try {
      const names = async () =>
        (((await client.callTool({
          name: "skill_list",
          arguments: { limit: 100 },
        })) as CallToolResult)
          .structuredContent as { skills: { name: string }[] }).skills.map((skill) => skill.name);
      assert.deepEqual((await names()).sort(), ["alpha", "beta"]);
      // The owner watch opens after the first answer, finds no instance, and says so.
      const ownerLines = () =>
        stderr.split("\n").filter((line) => line.includes(`edits to ${folder}`));
      await until(
        "the owner watch says its edits are read periodically",
        () => ownerLines().length > 0,
      );
      assert.match(ownerLines()[0]!, /not applied live .*max_user_instances.*read again every 2 s/);
      // The roots kept the one instance: they are watched live (no polling line for them).
      assert.ok(
        !/live refresh is off|read again every 30 s|instead/.test(
          stderr.split("\n").filter((line) => !line.includes(`edits to ${folder}`)).join("\n"),
        ),
        stderr,
      );
      // The owner turns beta off: applied within the poll period.
      await Deno.writeTextFile(
        `${folder}/overrides.json`,
        JSON.stringify({ skills: { beta: { enabled: false } } }),
      );
      await until("beta out of the list", async () => !(await names()).includes("beta"));
      assert.equal(ownerLines().length, 1, stderr);
    } finally {
      await client.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
