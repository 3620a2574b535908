/**
 * Sending a request the SDK client has no schema for (the skills extension's
 * `skills/list`, `skills/get`, `resources/directory/read`) and taking its
 * result as a loose object.
 *
 * @module
 */

import * as z from "zod";
import type { Client } from "./sdk_client.ts";

/**
 * Sends `method` with `params` and returns the result unchecked.
 *
 * @param client A connected SDK client.
 * @param method The method name, e.g. `skills/get`.
 * @param params The request's params. @default {}
 * @returns The result object.
 * @throws {McpError} When the server answers with an error.
 */
export async function looseRequest(
  client: Client,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return await client.request({ method, params } as never, z.looseObject({})) as Record<
    string,
    unknown
  >;
}
