/**
 * Serves an MCP server over the process's stdin/stdout from inside the worker.
 * When stdin ends, it waits for the answers still in flight to be written
 * before reporting that the session is over, so a client that writes its
 * requests and closes stdin still gets every answer.
 *
 * @module
 */

import process from "node:process";
import { type JSONRPCMessage, type Server, StdioServerTransport } from "../mcp/sdk.ts";

/** How long answers still in flight may take after stdin ends, in ms. */
export const DRAIN_TIMEOUT_MS = 30_000;

/**
 * Connects `server` to stdio and resolves when the session is over: stdin
 * ended (and in-flight answers were written, up to {@linkcode DRAIN_TIMEOUT_MS})
 * or the transport closed.
 *
 * @param server The MCP server.
 * @returns A promise that settles once serving started, holding `closed`,
 *   which resolves when the session is over.
 */
export async function serveOverStdio(server: Server): Promise<{ closed: Promise<void> }> {
  const transport = new StdioServerTransport();
  const inFlight = new Set<string | number>();
  let idle: (() => void) | null = null;
  const closed = new Promise<void>((resolve) => {
    let stdinEnded = false;
    const finishWhenIdle = () => {
      if (inFlight.size === 0) resolve();
      else idle = resolve;
    };
    process.stdin.on("end", () => {
      if (stdinEnded) return;
      stdinEnded = true;
      setTimeout(resolve, DRAIN_TIMEOUT_MS).unref?.();
      finishWhenIdle();
    });
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && "id" in message) inFlight.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      inFlight.delete(message.id);
      if (inFlight.size === 0 && idle !== null) idle();
    }
  };
  return { closed };
}
