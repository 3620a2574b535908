/**
 * Attack (r11 on s25): a hosted server (MCP_SKILLS_PATH set) must never show
 * a client the host's folder layout. Every door a client can open is walked
 * and every byte it answers is searched for the root's absolute path (and the
 * temporary parent it sits in): instructions, tools/list, skill_list,
 * skill_search, skill_load, skill_file (also its errors), skill_browse,
 * resources (list, templates, read, errors), prompts (list, get), the
 * skills extension (skills/list, skills/get) and the problems.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { looseRequest } from "../support/loose_request.ts";
import { connectStdio } from "../support/program.ts";

/** Writes a SKILL.md with `name` and `description`, plus an extra file. */
async function skill(root: string, folder: string, name: string, extra = ""): Promise<string> {
  const dir = join(root, folder);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: Does ${name} things for the tests.\n${extra}---\nBody of ${name}. See notes.md.\n`,
  );
  await Deno.writeTextFile(join(dir, "notes.md"), `notes of ${name}\n`);
  return dir;
}

/** A root holding good skills, a duplicate name, an escaping symlink and a broken SKILL.md. */
async function hostRoot(): Promise<{ parent: string; root: string } & AsyncDisposable> {
  const parent = await Deno.realPath(await Deno.makeTempDir({ prefix: "r11-hostlayout-" }));
  const root = join(parent, "tenant-secret-layout");
  // (The parent's name is searched for too: it holds both roots.)
  await skill(root, "alpha", "alpha");
  await skill(root, "group/beta", "beta");
  await skill(root, "g1/twin", "twin");
  await skill(root, "g2/twin", "twin");
  await skill(root, "misnamed", "other-name");
  await skill(parent, "outside", "outside");
  await Deno.symlink(join(parent, "outside"), join(root, "escaper"));
  await Deno.mkdir(join(root, "broken"));
  await Deno.writeTextFile(join(root, "broken", "SKILL.md"), "---\nname: [unclosed\n---\n");
  // More problem kinds: a nested SKILL.md, a lower-case skill.md, a file symlink leading out,
  // a script whose interpreter is missing, and a granted script (skill_run's preview).
  await skill(root, "alpha/inner", "inner");
  await Deno.mkdir(join(root, "lower"));
  await Deno.writeTextFile(
    join(root, "lower", "skill.md"),
    "---\nname: lower\ndescription: Lower case file.\n---\nBody.\n",
  );
  await Deno.symlink(join(parent, "outside", "notes.md"), join(root, "alpha", "leak.md"));
  await skill(
    root,
    "runner",
    "runner",
    "mcp-host:\n  version: 1\n  run:\n    - script: scripts/go.sh\n      interpreter: sh\n" +
      "    - script: scripts/go.py\n      interpreter: nosuchinterp\n",
  );
  await Deno.mkdir(join(root, "runner", "scripts"));
  await Deno.writeTextFile(join(root, "runner", "scripts", "go.sh"), "echo hi\n");
  await Deno.writeTextFile(join(root, "runner", "scripts", "go.py"), "print(1)\n");
  // A second root, named through a symlink to it (its real path differs from the one given).
  await skill(parent, "second-real/gamma", "gamma");
  await skill(parent, "second-real/twin", "twin");
  await Deno.symlink(
    join(parent, "outside", "notes.md"),
    join(parent, "second-real/gamma/leak.md"),
  );
  await Deno.mkdir(join(parent, "second-real", "broken2"));
  await Deno.writeTextFile(
    join(parent, "second-real", "broken2", "SKILL.md"),
    "---\nname: [x\n---\n",
  );
  await Deno.mkdir(join(parent, "second-real", "gamma", "inner"));
  await Deno.writeTextFile(
    join(parent, "second-real", "gamma", "inner", "SKILL.md"),
    "---\nname: inner2\ndescription: Nested.\n---\nBody.\n",
  );
  await Deno.symlink(join(parent, "second-real"), join(parent, "second-link"));
  return {
    parent,
    root,
    [Symbol.asyncDispose]: async () => await Deno.remove(parent, { recursive: true }),
  };
}

/** Everything thrown or answered, as text. */
async function text(call: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await call());
  } catch (error) {
    return `ERROR ${String(error)} ${JSON.stringify(error)}`;
  }
}

for (
  const capabilities of [
    {},
    { extensions: { "io.modelcontextprotocol/skills": {} } },
    { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
  ] as const
) {
  const label = !("extensions" in capabilities)
    ? "plain client"
    : "io.modelcontextprotocol/ui" in capabilities.extensions
    ? "views client"
    : "skills-extension client";
  Deno.test(`attack: a hosted server shows a ${label} no host path through any door`, async () => {
    await using host = await hostRoot();
    await using session = await connectStdio(["serve"], {
      env: {
        // Its own configuration folder: a settings write must never reach the shared default.
        XDG_CONFIG_HOME: join(host.parent, "config"),
        MCP_SKILLS_PATH: `${host.root}:${join(host.parent, "second-link")}`,
        MCP_SKILL_RUN: JSON.stringify([{ skill: "runner", script: "scripts/go.sh" }]),
      },
      // deno-lint-ignore no-explicit-any
      capabilities: capabilities as any,
    });
    const { client } = session;
    const notes: string[] = [];
    client.fallbackNotificationHandler = (notification) => {
      notes.push(JSON.stringify(notification));
      return Promise.resolve();
    };
    if (client.getServerCapabilities()?.logging !== undefined) {
      await client.setLoggingLevel("debug");
    }
    const seen: Record<string, string> = {};
    seen.instructions = client.getInstructions() ?? "";
    const tools = await client.listTools();
    seen.tools = JSON.stringify(tools);
    const names = new Set(tools.tools.map((tool) => tool.name));
    const call = (name: string, args: Record<string, unknown>) =>
      text(() => client.callTool({ name, arguments: args }));
    if (names.has("skill_list")) seen.skill_list = await call("skill_list", {});
    if (names.has("skill_search")) {
      seen.skill_search = await call("skill_search", { query: "twin alpha" });
    }
    if (names.has("skill_load")) {
      seen.skill_load = await call("skill_load", { name: "alpha" });
      seen.skill_load_dup = await call("skill_load", { name: "twin" });
      seen.skill_load_escaper = await call("skill_load", { name: "outside" });
      seen.skill_load_missing = await call("skill_load", { name: "nope" });
    }
    if (names.has("skill_file")) {
      seen.skill_file = await call("skill_file", {
        name: "alpha",
        paths: ["notes.md", "missing.md", "../beta/SKILL.md", "/etc/passwd", "./"],
      });
    }
    if (names.has("skill_browse")) seen.skill_browse = await call("skill_browse", {});
    if (names.has("skill_browse_detail")) {
      seen.skill_browse_detail = await call("skill_browse_detail", { name: "alpha" });
      seen.skill_browse_detail_missing = await call("skill_browse_detail", { name: "twin" });
    }
    if (names.has("skill_settings_write")) {
      seen.skill_settings_write = await call("skill_settings_write", {
        name: "alpha",
        switch: "enabled",
        value: false,
      });
    }
    if (names.has("skill_run")) {
      seen.skill_run = await call("skill_run", { name: "alpha", script: "x" });
      seen.skill_run_preview = await call("skill_run", { name: "runner", script: "scripts/go.sh" });
      seen.skill_run_unavailable = await call("skill_run", {
        name: "runner",
        script: "scripts/go.py",
      });
      seen.skill_run_gamma = await call("skill_run", { name: "gamma", script: "x" });
    }
    if (names.has("skill_load")) {
      seen.skill_load_gamma = await call("skill_load", { name: "gamma" });
    }
    if (names.has("skill_settings")) seen.skill_settings = await call("skill_settings", {});
    seen.resources = await text(() => client.listResources());
    seen.templates = await text(() => client.listResourceTemplates());
    seen.read = await text(() => client.readResource({ uri: "skill://alpha/SKILL.md" }));
    seen.read_missing = await text(() => client.readResource({ uri: "skill://alpha/missing.md" }));
    seen.read_dup = await text(() => client.readResource({ uri: "skill://twin/SKILL.md" }));
    seen.prompts = await text(() => client.listPrompts());
    seen.prompt = await text(() => client.getPrompt({ name: "alpha" }));
    seen.prompt_missing = await text(() => client.getPrompt({ name: "twin" }));
    if (
      "extensions" in capabilities && "io.modelcontextprotocol/skills" in capabilities.extensions
    ) {
      const request = (method: string, params: Record<string, unknown>) =>
        text(() => looseRequest(client, method, params));
      seen.skills_list = await request("skills/list", {});
      seen.skills_get = await request("skills/get", { uri: "skill://alpha/SKILL.md" });
      seen.skills_get_missing = await request("skills/get", { uri: "skill://twin/SKILL.md" });
      seen.directory = await request("resources/directory/read", { uri: "skill://alpha/" });
    }
    // A problem made while the session is live: the refresh's notifications and logs.
    await Deno.mkdir(join(host.root, "late"));
    await Deno.writeTextFile(join(host.root, "late", "SKILL.md"), "---\nname: [late\n---\n");
    await Deno.symlink(join(host.parent, "outside"), join(host.root, "late-escaper"));
    await Deno.writeTextFile(join(host.root, "alpha", "notes.md"), "changed\n");
    for (let attempt = 0; attempt < 100; attempt++) {
      const listed = await call("skill_list", {});
      if (listed.includes("late/SKILL.md") || listed.includes("late")) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    seen.skill_list_late = await call("skill_list", {});
    seen.notifications = notes.join("\n");
    if (Deno.env.get("R11_DUMP")) console.log(JSON.stringify(seen, null, 1));
    const leaks = Object.entries(seen).filter(([, value]) =>
      value.includes(host.parent) || value.includes("tenant-secret-layout") ||
      value.includes("second-real") || value.includes("second-link")
    );
    assert.deepEqual(
      leaks.map(([door, value]) => `${door}: ${value.slice(0, 600)}`),
      [],
      "a hosted client saw the host's folder layout",
    );
  });
}
