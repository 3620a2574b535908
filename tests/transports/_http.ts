/**
 * Fixtures for the HTTP transport tests: a configuration, a catalog store
 * over the example skills, a handler, and the SDK's Streamable HTTP client
 * talking to the handler through a `fetch` that never opens a port.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { parseCommandLine } from "../../src/config/cli.ts";
import type { Config } from "../../src/config/config.ts";
import { createSkillServer } from "../../src/mcp/server.ts";
import { buildCatalog } from "../../src/skills/catalog.ts";
import { type CatalogStore, createCatalogStore } from "../../src/skills/catalog_store.ts";
import {
  createHttpHandler,
  type HttpHandler,
  type HttpHandlerOptions,
} from "../../src/transports/http/handler.ts";
import { Client, StreamableHTTPClientTransport } from "../support/sdk_client.ts";

/** The `initialize` body and POST headers, shared with the end-to-end tests and the benchmark. */
export { INITIALIZE, POST_HEADERS } from "../support/mcp_messages.ts";

/** The port the test configurations name (nothing listens on it). */
export const TEST_PORT = 39_871;
/** The example skills (read only). */
export const EXAMPLES = fileURLToPath(new URL("../../examples/skills", import.meta.url));
/** A token long enough for the start-up rule. */
export const TEST_TOKEN = "test-token-0123456789abcdef";

/**
 * The configuration `skillgate serve examples/skills --http=TEST_PORT FLAGS` gets.
 *
 * @param flags Extra flags.
 * @param env Extra environment (e.g. `SKILLGATE_HTTP_TOKEN`).
 * @returns The configuration.
 */
export function httpConfig(
  flags: readonly string[] = [],
  env: Record<string, string> = {},
): Config {
  return parseCommandLine({
    args: ["serve", EXAMPLES, `--http=${TEST_PORT}`, ...flags],
    getEnv: (name) => env[name],
    cwd: "/",
  });
}

/**
 * A store over the example skills.
 *
 * @param config The configuration (roots and caps).
 * @returns The store.
 */
export async function exampleStore(config: Config): Promise<CatalogStore> {
  return createCatalogStore(await buildCatalog(config.roots, config.caps));
}

/** A handler over the example skills, disposed by draining it. */
export interface TestHandler extends AsyncDisposable {
  readonly http: HttpHandler;
  readonly config: Config;
}

/**
 * Creates a handler serving the example skills with the real server factory.
 *
 * @param config The configuration.
 * @param options Overrides of the handler options.
 * @returns The handler; dispose it to close every session.
 */
export async function testHandler(
  config: Config,
  options: Partial<HttpHandlerOptions> = {},
): Promise<TestHandler> {
  const http = createHttpHandler(config, {
    store: options.store ?? await exampleStore(config),
    createServer: (store, info) =>
      createSkillServer({ store, config, isStateless: info.isStateless }),
    ...options,
  });
  return { http, config, [Symbol.asyncDispose]: async () => void await http.drain() };
}

/**
 * Sends one request to a handler, as a client on loopback would.
 *
 * @param http The handler.
 * @param init Method, path, headers and body; `Host` defaults to `127.0.0.1:TEST_PORT`.
 * @returns The response with its body read as text.
 */
export async function send(
  http: HttpHandler,
  init: { method?: string; path?: string; headers?: Record<string, string>; body?: BodyInit },
): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const headers = new Headers({ host: `127.0.0.1:${TEST_PORT}`, ...init.headers });
  const request = new Request(`http://127.0.0.1:${TEST_PORT}${init.path ?? "/mcp"}`, {
    method: init.method ?? "GET",
    headers,
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  // `new Request` drops a forbidden `Host` header in some runtimes; set it again.
  request.headers.set("host", headers.get("host") ?? "");
  const response = await http.handler(request);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

/**
 * A `fetch` that hands requests to `http` in-process. Aborting a request's
 * signal cancels the response body on the server side (as a dropped
 * connection would), so no SSE stream outlives its client.
 *
 * @param http The handler.
 * @param headers Headers added to every request (e.g. `Authorization`).
 * @returns The fetch function.
 */
export function fetchVia(
  http: HttpHandler,
  headers: Record<string, string> = {},
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const request = new Request(url, init);
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    request.headers.set("host", new URL(url).host);
    const response = await http.handler(request);
    if (response.body === null) return response;
    const reader = response.body.getReader();
    const signal = init.signal ?? null;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal?.addEventListener("abort", () => {
          reader.cancel().catch(() => {});
          try {
            controller.error(new DOMException("The request was aborted", "AbortError"));
          } catch { /* already closed */ }
        }, { once: true });
      },
      async pull(controller) {
        try {
          const { value, done } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          try {
            controller.error(error);
          } catch { /* already errored */ }
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** A connected SDK client over a handler; dispose it to end the session. */
export interface HttpClientSession extends AsyncDisposable {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

/**
 * Connects the SDK client to `http` through {@linkcode fetchVia}.
 *
 * @param http The handler.
 * @param options Extra headers on every request.
 * @returns The connected client.
 */
export async function connectClient(
  http: HttpHandler,
  options: { headers?: Record<string, string> } = {},
): Promise<HttpClientSession> {
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://127.0.0.1:${TEST_PORT}/mcp`),
    { fetch: fetchVia(http, options.headers) },
  );
  const client = new Client({ name: "skillgate-tests", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    transport,
    [Symbol.asyncDispose]: async () => {
      await client.close();
    },
  };
}
