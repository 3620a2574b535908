import { buildCatalog } from "../src/skills/catalog.ts";
import { DEFAULT_CAPS } from "../src/caps.ts";
const root = Deno.args[0]!;
for (let i = 0; i < 2; i++) {
  const t = performance.now();
  const c = await buildCatalog([{ path: root, from: "argument" }], DEFAULT_CAPS);
  console.log(
    c.skills.length,
    (performance.now() - t).toFixed(0),
    "ms",
    (Deno.memoryUsage().rss / 1048576).toFixed(0),
    "MiB",
  );
}
