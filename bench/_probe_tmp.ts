import { generateSkills } from "./support/skill_generator.ts";
import { measureStartup } from "./support/measure.ts";
import { skillgateCommand } from "./support/servers.ts";
await using g = await generateSkills(10_000);
for (const env of [{}, { MCP_SKILL_RUN: "[]" }, {}, { MCP_SKILL_RUN: "[]" }]) {
  const f = await measureStartup(skillgateCommand([g.root], { env }), { spawns: 2, warmups: 1 });
  console.log(JSON.stringify(env), Math.round(f.startupMs.median), "load", (await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
}
