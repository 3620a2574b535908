/**
 * Attack (r11 on s25): the instructions and every tool description a client
 * gets name only tools that client's `tools/list` offers, in both eras
 * (2025-11-25 `initialize`, 2026-07-28 `server/discover` with the per-request
 * envelope) and for each `--tools` mode, with and without the skills
 * extension declared. Raw JSON-RPC over stdio with the real program.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnRpcChild } from "../../../bench/support/rpc_client.ts";
import { startHttpProgram } from "../../support/http_program.ts";
import { programCommand, programEnv, REPO_ROOT } from "../../support/program.ts";

const MODERN = "2026-07-28";
const SKILLS_EXTENSION = { extensions: { "io.modelcontextprotocol/skills": {} } };

async function makeRoot(): Promise<{ root: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "r11-instr-" });
  await Deno.mkdir(join(root, "greeter"));
  await Deno.writeTextFile(
    join(root, "greeter", "SKILL.md"),
    "---\nname: greeter\ndescription: Greets by name.\n---\n# Greeter\n",
  );
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

/** Every `skill_*` tool name a text mentions. */
function toolsNamed(text: string): string[] {
  return [...new Set(text.match(/\bskill_[a-z_]+\b/g) ?? [])].sort();
}

for (const tools of ["auto", "never", "always"] as const) {
  for (const extension of [false, true]) {
    for (const era of ["2025-11-25", MODERN] as const) {
      const label = `--tools=${tools}, ${era}, ${extension ? "skills extension" : "no extension"}`;
      Deno.test(`attack: instructions and tool descriptions name only offered tools (${label})`, async () => {
        await using tree = await makeRoot();
        await using child = spawnRpcChild({
          executable: Deno.execPath(),
          args: programCommand(["serve", tree.root, `--tools=${tools}`]),
          cwd: REPO_ROOT,
          env: programEnv(),
        });
        const capabilities = extension ? SKILLS_EXTENSION : {};
        let instructions: string;
        let listed: { name: string; description?: string }[];
        if (era === MODERN) {
          const meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          };
          const discover = (await child.request("server/discover", { _meta: meta }))
            .result as { instructions?: string };
          instructions = discover.instructions ?? "";
          listed = ((await child.request("tools/list", { _meta: meta })).result as {
            tools: { name: string; description?: string }[];
          }).tools;
        } else {
          const init = (await child.request("initialize", {
            protocolVersion: era,
            capabilities,
            clientInfo: { name: "r11", version: "1" },
          })).result as { instructions?: string };
          instructions = init.instructions ?? "";
          await child.notify("notifications/initialized", {});
          listed = ((await child.request("tools/list", {})).result as {
            tools: { name: string; description?: string }[];
          }).tools;
        }
        const offered = new Set(listed.map((tool) => tool.name));
        const stray: string[] = [];
        for (const name of toolsNamed(instructions)) {
          if (!offered.has(name)) stray.push(`instructions name ${name}`);
        }
        for (const tool of listed) {
          for (const name of toolsNamed(tool.description ?? "")) {
            if (!offered.has(name)) stray.push(`${tool.name}'s description names ${name}`);
          }
        }
        assert.deepEqual(stray, [], `offered: ${[...offered].join(", ")}`);
      });
    }
  }
}

for (const tools of ["auto", "never"] as const) {
  Deno.test(`attack: over HTTP, 2026-07-28 server/discover names only tools tools/list offers a skills-extension client (--tools=${tools})`, async () => {
    await using tree = await makeRoot();
    await using server = await startHttpProgram(["serve", tree.root, `--tools=${tools}`]);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": SKILLS_EXTENSION,
    };
    let id = 0;
    const post = async (method: string) => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": method,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { _meta: meta } }),
      });
      const text = await response.text();
      const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1] ?? "{}";
      return (JSON.parse(json) as { result?: Record<string, unknown> }).result ?? {};
    };
    const instructions = String((await post("server/discover")).instructions ?? "");
    const listed = ((await post("tools/list")).tools ?? []) as {
      name: string;
      description?: string;
    }[];
    assert.ok(listed.length > 0, "tools/list answered");
    assert.match(instructions, /skill_search/, "server/discover answered instructions");
    const offered = new Set(listed.map((tool) => tool.name));
    const stray = toolsNamed(instructions).filter((name) => !offered.has(name));
    for (const tool of listed) {
      for (const name of toolsNamed(tool.description ?? "")) {
        if (!offered.has(name)) stray.push(`${tool.name}'s description names ${name}`);
      }
    }
    assert.deepEqual(stray, [], `offered: ${[...offered].join(", ")}`);
  });
}
