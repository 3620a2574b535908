/**
 * The wall floor's worker: the floor server over stdio, with no permission
 * beyond loading its modules. Posts `exit` when stdin ends.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import process from "node:process";
import { StdioServerTransport } from "../src/mcp/sdk.ts";
import { createFloorServer } from "./floor_server.ts";

await createFloorServer().connect(new StdioServerTransport());
process.stdin.on("end", () => self.postMessage({ type: "exit" }));
