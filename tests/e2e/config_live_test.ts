/**
 * The configuration file and overrides.json end to end: the real program
 * over stdio takes its roots from the file, the real `skillgate override`
 * command edits overrides.json while a connected SDK client watches, and
 * narrowing edits apply at once with list-changed notifications while a
 * widening edit or a broken one is reported and not applied. Every wait has
 * a generous ceiling in seconds; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { type Connected, connectStdio, runProgram } from "../support/program.ts";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from "../support/sdk_client.ts";

const CEILING_MS = 20_000;

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + CEILING_MS;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${CEILING_MS} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface ListedProblem {
  path: string;
  reason: string;
  detail: string;
  line?: number;
  column?: number;
}

async function listed(session: Connected): Promise<{ names: string[]; problems: ListedProblem[] }> {
  const answer = await session.call("skill_list", { limit: 1000 });
  const content = answer.structuredContent as {
    skills: { name: string }[];
    problems: ListedProblem[];
  };
  return { names: content.skills.map((skill) => skill.name), problems: content.problems };
}

async function promptNames(session: Connected): Promise<string[]> {
  return (await session.client.listPrompts()).prompts.map((prompt) => prompt.name);
}

async function searchNames(session: Connected, query: string): Promise<string[]> {
  const answer = await session.call("skill_search", { query });
  return (answer.structuredContent as { results: { name: string }[] }).results.map((r) => r.name);
}

async function writeSkill(root: string, name: string, description: string): Promise<void> {
  await Deno.mkdir(`${root}/${name}`, { recursive: true });
  await Deno.writeTextFile(
    `${root}/${name}/SKILL.md`,
    `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nSteps for ${name}.\n`,
  );
}

Deno.test("config file and overrides: narrowing edits apply live with notifications; widening and broken edits are reported, not applied", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "skillgate-config-e2e-" });
  try {
    const root = `${dir}/skills`;
    await writeSkill(root, "alpha", "Brews alpha coffee with a pour-over kettle");
    await writeSkill(root, "beta", "Bakes beta bread in a dutch oven");
    await writeSkill(root, "gamma", "Grows gamma tomatoes on a balcony");
    const folder = `${dir}/config/skillgate`;
    await Deno.mkdir(folder, { recursive: true });
    const configPath = `${folder}/config.json`;
    // Roots relative to the file's folder; a cap the edits below raise and lower.
    await Deno.writeTextFile(
      configPath,
      JSON.stringify({ roots: ["../../skills"], maxSkills: 100 }),
    );
    const env = { XDG_CONFIG_HOME: `${dir}/config` };
    const override = async (...args: string[]) => {
      const run = await runProgram(["override", ...args], { env });
      assert.equal(run.code, 0, run.stderr);
    };
    await using session = await connectStdio(["serve"], { env });
    const heard = { prompts: 0, resources: 0 };
    session.client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      heard.prompts++;
    });
    session.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      heard.resources++;
    });

    await t.step("the roots come from the configuration file", async () => {
      assert.deepEqual((await listed(session)).names, ["alpha", "beta", "gamma"]);
      assert.deepEqual((await promptNames(session)).sort(), ["alpha", "beta", "gamma", "skill"]);
    });

    await t.step(
      "`override beta --disable` takes beta out at once, with list_changed",
      async () => {
        const before = { ...heard };
        await override("beta", "--disable");
        await until("beta gone", async () => !(await listed(session)).names.includes("beta"));
        await until("prompts/list_changed", () => heard.prompts > before.prompts);
        await until("resources/list_changed", () => heard.resources > before.resources);
        assert.ok(!(await promptNames(session)).includes("beta"));
        const load = await session.call("skill_load", { name: "beta" });
        assert.equal(load.isError, true, "a disabled skill is not served at all");
      },
    );

    await t.step("`--hide-from-model` leaves search; `--no-prompt` drops the prompt", async () => {
      assert.ok((await searchNames(session, "coffee")).includes("alpha"));
      await override("alpha", "--hide-from-model");
      await until(
        "alpha out of search",
        async () => !(await searchNames(session, "coffee")).includes("alpha"),
      );
      assert.ok((await listed(session)).names.includes("alpha"), "still listed and served");
      assert.ok((await promptNames(session)).includes("alpha"), "still a prompt");
      const before = heard.prompts;
      await override("gamma", "--no-prompt");
      await until("prompts/list_changed", () => heard.prompts > before);
      assert.ok(!(await promptNames(session)).includes("gamma"));
      assert.ok((await searchNames(session, "tomatoes")).includes("gamma"));
    });

    await t.step("attack: `override beta --enable` widens, so it waits for a restart", async () => {
      await override("beta", "--enable");
      await until(
        "restart-needed for overrides.json",
        async () =>
          (await listed(session)).problems.some((p) =>
            p.reason === "restart-needed" && p.path === "overrides.json" &&
            p.detail.startsWith("turning back on 1 override widens")
          ),
      );
      assert.ok(!(await listed(session)).names.includes("beta"), "beta stays disabled");
      await until(
        "the owner's stderr line",
        () =>
          /overrides\.json: restart-needed: turning back on beta\.enabled/.test(session.stderr()),
      );
    });

    await t.step(
      "attack: raising a cap and adding a root in the file are not applied",
      async () => {
        await Deno.mkdir(`${dir}/elsewhere`);
        await writeSkill(`${dir}/elsewhere`, "delta", "Paints delta murals");
        await Deno.writeTextFile(
          configPath,
          JSON.stringify({ roots: ["../../skills", "../../elsewhere"], maxSkills: 5000 }),
        );
        await until("restart-needed for config.json", async () => {
          const { problems } = await listed(session);
          return problems.some((p) => p.path === "config.json" && p.detail.includes("maxSkills")) &&
            problems.some((p) => p.path === "config.json" && p.detail.includes("roots"));
        });
        assert.ok(!(await listed(session)).names.includes("delta"), "no new root is read");
      },
    );

    await t.step("lowering a cap in the file applies at once", async () => {
      const before = heard.resources;
      await Deno.writeTextFile(
        configPath,
        JSON.stringify({ roots: ["../../skills"], maxSkills: 2 }),
      );
      await until(
        "the skill cap",
        async () => (await listed(session)).problems.some((p) => p.reason === "skill-limit"),
      );
      await until("resources/list_changed", () => heard.resources > before);
      // alpha and beta fit under the cap; beta stays disabled; gamma is beyond the cap.
      assert.deepEqual((await listed(session)).names, ["alpha"]);
      const { problems } = await listed(session);
      assert.ok(
        !problems.some((p) => p.path === "config.json"),
        "the roots are back as they were, and a lower cap needs no restart",
      );
    });

    await t.step("a broken edit keeps the last good configuration and says where", async () => {
      await Deno.writeTextFile(configPath, '{\n  "maxSkills": 100,\n  "tools": "sometimes"\n}\n');
      await until(
        "config-invalid",
        async () => (await listed(session)).problems.some((p) => p.reason === "config-invalid"),
      );
      const problem = (await listed(session)).problems.find((p) => p.reason === "config-invalid")!;
      assert.equal(problem.path, "config.json", "the client sees the file's name, not its path");
      assert.equal(problem.line, 3);
      assert.equal(problem.column, 12);
      assert.match(problem.detail, /"tools" must be one of/);
      assert.equal(
        (await listed(session)).problems.filter((p) => p.reason === "skill-limit").length,
        1,
      );
      // Overrides keep applying while the configuration file is broken.
      const before = heard.prompts;
      await override("alpha", "--disable");
      await until("alpha gone", async () => !(await listed(session)).names.includes("alpha"));
      await until("prompts/list_changed", () => heard.prompts > before);
      assert.deepEqual((await listed(session)).names, []);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
