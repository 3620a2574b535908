/**
 * The worker's side of a settings view's write: asks the trusted part, which
 * alone may write `overrides.json`, over postMessage. The worker holds no
 * write permission for the owner's files.
 *
 * @module
 */

import type {
  ViewOverrideAnswer,
  ViewOverrideRequest,
} from "../config/file/view_override_write.ts";
import type { OverrideWriteRequestMessage } from "./messages.ts";
import { createTrustedRequester, type RequestPort } from "./trusted_request.ts";

/** Asks the trusted part to set one override switch; never rejects. */
export type OverrideWriter = (request: ViewOverrideRequest) => Promise<ViewOverrideAnswer>;

/** The answer when the trusted part did not reply in time: nothing was written, say so. */
const NO_REPLY: ViewOverrideAnswer = Object.freeze({
  ok: false,
  code: "SETTINGS_UNAVAILABLE",
  message: "skillgate did not confirm the write in time; overrides.json may be unchanged",
  hint: "Open the settings view again to see what is in force",
});

/**
 * Creates the writer the settings tools use.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The writer. A request without a reply within
 *   `TRUSTED_REPLY_TIMEOUT_MS` resolves to a `SETTINGS_UNAVAILABLE` refusal.
 */
export function createOverrideWriteClient(
  port: RequestPort<OverrideWriteRequestMessage>,
): OverrideWriter {
  const ask = createTrustedRequester<OverrideWriteRequestMessage, ViewOverrideAnswer>(port, {
    replyType: "override-write-reply",
    readAnswer: (reply) => readAnswer(reply.answer),
    onTimeout: NO_REPLY,
  });
  return (request) => ask({ type: "override-write", request });
}

function readAnswer(value: unknown): ViewOverrideAnswer {
  if (typeof value !== "object" || value === null) return NO_REPLY;
  const answer = value as Record<string, unknown>;
  if (answer.ok === true) return { ok: true, changed: answer.changed === true };
  if (
    typeof answer.code === "string" && typeof answer.message === "string" &&
    typeof answer.hint === "string"
  ) {
    return answer as unknown as ViewOverrideAnswer;
  }
  return NO_REPLY;
}
