/**
 * `skillgate health [--url=URL]`: probes a running skillgate's `/healthz` and exits 0 when it
 * answers 200, 1 otherwise, with the reason on stderr. It is the container image's
 * HEALTHCHECK (the image carries no curl or wget) and works as an orchestrator's exec probe.
 *
 * @module
 */

import { cutToWidth, oneLine } from "./terminal_text.ts";

/** How long one probe may take, in milliseconds, before it counts as a failure. */
export const HEALTH_TIMEOUT_MS = 5_000;

/** The port probed when neither --url nor a numeric SKILLGATE_HTTP says (--http's default). */
const DEFAULT_PORT = 3000;

/** A bad `health` command line; main.ts prints it and exits with the usage code. */
export class HealthUsageError extends Error {}

/**
 * Decides the URL to probe.
 *
 * @param args The arguments after `health`: nothing, or `--url=URL` (http or https; a
 *   server's base URL or its `/mcp` endpoint means its `/healthz`).
 * @param getEnv Reads SKILLGATE_HTTP: a port number there gives http://127.0.0.1:PORT/healthz.
 * @returns The URL.
 * @throws {HealthUsageError} On an unknown argument or a URL that is not http(s).
 */
export function healthUrl(
  args: readonly string[],
  getEnv: (name: string) => string | undefined,
): URL {
  let url: string | null = null;
  for (const arg of args) {
    if (arg.startsWith("--url=")) url = arg.slice("--url=".length);
    else {
      throw new HealthUsageError(
        `health takes only --url=URL (e.g. --url=http://127.0.0.1:8080/healthz), not "${
          arg.slice(0, 40)
        }"`,
      );
    }
  }
  if (url === null) {
    const env = getEnv("SKILLGATE_HTTP") ?? "";
    const port = /^\d{1,5}$/.test(env) ? Number(env) : DEFAULT_PORT;
    return new URL(`http://127.0.0.1:${port}/healthz`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HealthUsageError("--url must be an absolute http:// or https:// URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new HealthUsageError("--url must be an absolute http:// or https:// URL");
  }
  // The server's base URL or its MCP endpoint (what clients are given) means its /healthz.
  if (/^\/(?:mcp\/?)?$/.test(parsed.pathname) && parsed.search === "") {
    parsed.pathname = "/healthz";
  }
  return parsed;
}

/**
 * Probes the URL once.
 *
 * @param url What {@linkcode healthUrl} decided.
 * @param writeErr Writes the one-line outcome (stderr).
 * @param timeoutMs Give-up time in milliseconds (default {@linkcode HEALTH_TIMEOUT_MS}).
 * @returns 0 when the answer is 200, else 1. Needs --allow-net to the URL's host.
 */
export async function runHealthCommand(
  url: URL,
  writeErr: (text: string) => Promise<void>,
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<number> {
  try {
    // skillgate's /healthz never redirects; whoever else holds the port must not send the probe on.
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
    // The body comes from whoever holds the port: escaped before it reaches the terminal (r12 F3).
    const body = cutToWidth(oneLine(await response.text()), 80);
    if (response.status === 200) {
      await writeErr(`skillgate: healthy (${url.origin}${url.pathname}: ${body || "200"})\n`);
      return 0;
    }
    const hint = url.pathname === "/healthz" || url.pathname === "/readyz"
      ? ""
      : ` (is that skillgate's /healthz? it needs no token: --url=${url.origin}/healthz)`;
    await writeErr(
      `skillgate: unhealthy: ${url.origin}${url.pathname} answered ${response.status}${hint}\n`,
    );
    return 1;
  } catch (error) {
    if (error instanceof DOMException && error.name === "TimeoutError") {
      await writeErr(
        `skillgate: unhealthy: ${url.origin}${url.pathname}: no answer within ${timeoutMs} ms\n`,
      );
      return 1;
    }
    const reason = cutToWidth(oneLine(error instanceof Error ? error.message : String(error)), 200);
    await writeErr(
      `skillgate: unhealthy: nothing answers at ${url.host} (${reason}); is skillgate serve ` +
        "--http running there? Pass --url=URL, or set SKILLGATE_HTTP to its port\n",
    );
    return 1;
  }
}
