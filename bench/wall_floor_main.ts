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

const worker = new Worker(new URL("./wall_floor_worker.ts", import.meta.url), {
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
