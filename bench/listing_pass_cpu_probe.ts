/**
 * Scratch-grade A/B probe of the digest isolate's listing pass alone (s11-hC):
 * one worker with read permission on the catalog only (as the digest isolate)
 * runs a tree's real `listAndHashSkills` over the first COUNT skills of ROOT
 * in jobs of 16, while this thread answers its descriptor and folder requests
 * with that tree's real `answerLocateRequest` (as the trusted part). Prints
 * each pass's CPU per thread (`/proc/self/task/TID/stat`: this thread, the
 * worker, V8's helpers) and the median of the passes. Run two trees' probes
 * one after the other, alternated: on a shared machine a thread's CPU is the
 * figure to compare, not the wall.
 *
 * ```sh
 * deno run -A --unstable-worker-options --config TREE/deno.json \
 *   bench/listing_pass_cpu_probe.ts --tree=TREE --root=ROOT [--count=3000] [--passes=3] [--by-path=false]
 * ```
 *
 * `--by-path=false` leaves the isolate's folder-by-path reader out (where
 * the tree has one). Requires `--allow-all` (`/proc`, starting the worker).
 *
 * @module
 */

const args = new Map(
  Deno.args.map((arg) => {
    const [key, ...rest] = arg.replace(/^--/, "").split("=");
    return [key ?? "", rest.join("=")] as const;
  }),
);
const tree = (args.get("tree") ?? "").replace(/\/$/, "");
const root = args.get("root") ?? "";
if (tree === "" || root === "") {
  console.error("usage: --tree=WORKTREE --root=ROOT [--count=N] [--passes=N] [--by-path=false]");
  Deno.exit(2);
}
const count = Number(args.get("count") ?? 3000);
const passes = Number(args.get("passes") ?? 3);
const byPath = args.get("by-path") !== "false";

const { answerLocateRequest } = await import(`${tree}/src/sandbox/fd_locate_answer.ts`);
const { parseWorkerMessage } = await import(`${tree}/src/sandbox/messages.ts`);
const skills = [...Deno.readDirSync(root)].map((entry) => entry.name).sort().slice(0, count).map(
  (name) => {
    const dir = `${root}/${name}`;
    const entries = [...Deno.readDirSync(dir)]
      .map(({ name, isFile, isDirectory, isSymlink }) => ({ name, isFile, isDirectory, isSymlink }))
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    return { name, dir, realDir: dir, skillMdFile: "SKILL.md", entries };
  },
);
const workerSource = `
const { installFdLocator } = await import(${
  JSON.stringify(`file://${tree}/src/files/fd_location.ts`)
});
const listing = await import(${JSON.stringify(`file://${tree}/src/files/fd_listing.ts`)});
const client = await import(${JSON.stringify(`file://${tree}/src/sandbox/fd_locate_client.ts`)});
const { listAndHashSkills } = await import(${
  JSON.stringify(`file://${tree}/src/mcp/skills_extension/digest_listing.ts`)
});
installFdLocator(client.createFdLocateClient(self));
listing.installFolderReader(client.createFolderReadClient(self));
if (${byPath} && listing.installFolderPathReader && client.createFolderPathReadClient) {
  listing.installFolderPathReader(client.createFolderPathReadClient(self));
}
self.addEventListener("message", async (event) => {
  if (event.data?.type !== "run") return;
  const caps = { maxFilesPerSkill: 500, maxFoldersPerSkill: 100 };
  let listed = 0;
  for (let start = 0; start < event.data.skills.length; start += 16) {
    const results = await listAndHashSkills(event.data.skills.slice(start, start + 16), caps);
    listed += results.filter((result) => result !== null).length;
  }
  self.postMessage({ type: "done", listed });
});
self.postMessage({ type: "up" });
`;
const moduleUrl = `data:application/javascript,${encodeURIComponent(workerSource)}`;
const worker = new Worker(moduleUrl, {
  type: "module",
  deno: { permissions: { read: [root, tree], import: true } },
} as WorkerOptions);
let onDone: (listed: number) => void = () => {};
const isUp = new Promise<void>((resolve) => {
  worker.onmessage = (event: MessageEvent) => {
    if (event.data?.type === "up") return resolve();
    if (event.data?.type === "done") return onDone(event.data.listed);
    answerLocateRequest(
      parseWorkerMessage(event.data),
      (answer: unknown) => worker.postMessage(answer),
      [root],
    );
  };
});
await isUp;

/** CPU seconds per thread name ("main" for this thread). */
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const task of Deno.readDirSync("/proc/self/task")) {
    const stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/stat`);
    const close = stat.lastIndexOf(")");
    const name = Number(task.name) === Deno.pid ? "main" : stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return out;
}

const seen = { main: [] as number[], worker: [] as number[], helpers: [] as number[] };
for (let pass = 0; pass < passes; pass++) {
  const before = threads();
  const listed = await new Promise<number>((resolve) => {
    onDone = resolve;
    worker.postMessage({ type: "run", skills });
  });
  const after = threads();
  const spent = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
  const workerName = [...after.keys()].find((name) => name.startsWith("worker")) ?? "worker-1";
  seen.main.push(spent("main"));
  seen.worker.push(spent(workerName));
  seen.helpers.push(spent("V8 DefaultWorke"));
  console.log(
    `pass ${pass + 1}: listed ${listed}, CPU s: trusted side ${spent("main").toFixed(2)}, ` +
      `isolate ${spent(workerName).toFixed(2)}, V8 helpers ${spent("V8 DefaultWorke").toFixed(2)}` +
      ` (load ${Deno.readTextFileSync("/proc/loadavg").split(" ")[0]})`,
  );
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  `median CPU s (${tree}, by path ${byPath}): trusted side ${median(seen.main).toFixed(2)}, ` +
    `isolate ${median(seen.worker).toFixed(2)}, V8 helpers ${median(seen.helpers).toFixed(2)}`,
);
worker.terminate();
