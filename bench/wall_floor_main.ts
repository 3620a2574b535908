/**
 * The benchmark's wall floor (issue 13): the floor server of
 * `bench/floor_server.ts`, started the way skillgate starts its server, as a
 * permission-narrowed worker of a minimal main module. skillgate's start-up
 * divided by this one's reads as "how many times the cost of any MCP server
 * behind the same permission wall".
 *
 * Run: `deno run <trusted flags> bench/wall_floor_main.ts` (the benchmark does).
 *
 * @module
 */

// Bundled (the benchmark's bundled floor row), this module is wall_floor_main.js beside its worker's.
const workerFile = import.meta.url.endsWith(".js")
  ? "./wall_floor_worker.js"
  : "./wall_floor_worker.ts";
const worker = new Worker(new URL(workerFile, import.meta.url), {
  type: "module",
  deno: {
    permissions: {
      read: false,
      write: false,
      net: false,
      run: false,
      env: false,
      ffi: false,
      sys: false,
      import: false,
    },
  },
});
worker.onmessage = (event: MessageEvent<{ type: string }>) => {
  if (event.data?.type === "exit") Deno.exit(0);
};
worker.onerror = (event) => {
  console.error(`wall floor: worker failed: ${event.message}`);
  Deno.exit(1);
};
