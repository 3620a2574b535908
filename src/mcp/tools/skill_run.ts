/**
 * `skill_run`: runs a script a skill declares and the owner granted, after
 * the user confirms exactly what will run. Every refusal comes before anyone
 * is asked. Confirmation is an elicitation prompt when the client supports
 * it; otherwise the first call answers `confirmation-required` with a preview
 * and a token, and a second call carrying the token runs it.
 *
 * @module
 */

import { previewAsShown } from "./remote_cache_paths.ts";
import * as z from "zod";
import { PROXY_ENV_NAMES } from "../../scripts/script_env.ts";
import { missingMountNote } from "../../scripts/sandbox/missing_mount.ts";
import { missingInterpreterNote } from "../../scripts/sandbox/missing_interpreter.ts";
import {
  MAX_ARGS,
  MAX_ARGS_BYTES,
  prepareRun,
  type RunPreview,
} from "../../scripts/prepare_run.ts";
import { RunQueueFullError } from "../../scripts/queue.ts";
import { type RunOutcome, runScript } from "../../scripts/runner/run_script.ts";
import type { ScriptService } from "../../scripts/service.ts";
import { toolError, type ToolResult, toolSuccess } from "../tool_result.ts";
import { MAX_CLIENT_NAME_CHARS, MAX_PATH_CHARS } from "../../caps.ts";
import { isSkill, lookUpSkill } from "./lookup.ts";
import type { CatalogStore } from "../../skills/catalog_store.ts";
import { canonicalJson } from "../../scripts/confirm/canonical_json.ts";
import type { Catalog, Skill } from "../../skills/skill.ts";
import { defineTool, type ToolCallExtra, type UserAnswer } from "./tool.ts";
import type { InputRequiredResult } from "../sdk.ts";

/** How often progress is reported while a run waits or runs, in ms (at least once a second). */
export const PROGRESS_INTERVAL_MS = 500;

const inputSchema = z.object({
  name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS).describe(
    "The skill's name, as skill_list shows it",
  ),
  script: z.string().min(1).max(MAX_PATH_CHARS).describe(
    "The script's path exactly as the skill declares it (skill_load lists them)",
  ),
  args: z.array(z.string().max(8192)).max(MAX_ARGS).optional().describe(
    `Arguments passed to the script as-is, no shell (at most ${MAX_ARGS}, 8 KiB in all)`,
  ),
  confirmToken: z.string().max(512).optional().describe(
    "The confirmToken from a confirmation-required answer, after the user agreed to the preview",
  ),
}).strict();

const willRunShape = z.object({
  skill: z.string(),
  script: z.string(),
  interpreter: z.string(),
  argv: z.array(z.string()),
  cwd: z.string(),
  envNames: z.array(z.string()),
  timeoutMs: z.number().int(),
});

const outputSchema = z.object({
  status: z.enum(["completed", "confirmation-required"]),
  dispatched: z.boolean(),
  confirmToken: z.string().optional(),
  preview: z.object({
    willRun: willRunShape,
    note: z.string(),
    envUnset: z.array(z.string()).optional(),
    envWarning: z.string().optional(),
  }).optional(),
  skill: z.string().optional(),
  script: z.string().optional(),
  interpreter: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  truncated: z.object({ stdout: z.boolean(), stderr: z.boolean() }).optional(),
  timedOut: z.boolean().optional(),
  timeoutMs: z.number().int().optional(),
  durationMs: z.number().int().optional(),
  env: z.array(z.string()).optional(),
  isolation: z.enum(["sandbox", "pid-namespace", "process-group"]).optional(),
  networkNote: z.string().optional(),
  sandboxNote: z.string().optional(),
  envNote: z.string().optional(),
  note: z.string().optional(),
});

/** The JSON `skill_run` answers with. */
export type SkillRunAnswer = z.infer<typeof outputSchema>;

/** The `skill_run` tool. */
export const skillRunTool = defineTool({
  name: "skill_run",
  title: "Run a skill's script",
  description:
    "Run a script that a skill declares (skill_load lists them with whether each can run " +
    "here), with arguments passed as-is (no shell). The user confirms first: either the " +
    "client asks them, or this tool answers confirmation-required with a preview of exactly " +
    "what will run and a confirmToken; show the preview to the user and, if they agree, call " +
    "again with the same arguments and the confirmToken. A non-zero exit code is a normal " +
    "result: read stderr.",
  inputSchema,
  outputSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  call: async (input, context, extra) => {
    const service = context.scripts;
    if (service === undefined) {
      return toolError(
        "SCRIPTS_DISABLED",
        "This server does not run scripts",
        "Follow the skill's instructions without running its scripts",
      );
    }
    if (context.runRefusal !== undefined && context.runRefusal !== null) {
      return toolError("SCRIPTS_DISABLED", context.runRefusal.message, context.runRefusal.hint);
    }
    const first = await prepareFromCurrent(input, context.store, service);
    if (!first.ok) return first.refusal;
    const { prepared, found, catalog } = first;
    if (!service.queue.hasRoom()) return queueFull();
    if (service.confirmMode === "ask-user") {
      // Hosted, the preview names the skill's folder by its root's label, not the host path.
      const preview = previewAsShown(prepared.preview, found, catalog.roots, {
        hosted: context.hosted,
      });
      const refusal = await confirm(preview, input.confirmToken, service, extra);
      if (refusal !== null) return refusal;
    }
    // The user's answer and a free slot may come long after this snapshot: the
    // run is decided again from the catalog in force just before it starts.
    return await execute(
      prepared,
      () => prepareFromCurrent(input, context.store, service),
      service,
      extra,
    );
  },
});

/** What a request prepares to against one snapshot: the run, or the tool error to answer. */
type PreparedNow =
  | {
    readonly ok: true;
    readonly prepared: Prepared;
    readonly found: Skill;
    readonly catalog: Catalog;
  }
  | { readonly ok: false; readonly refusal: ToolResult };

type Prepared = Extract<Awaited<ReturnType<typeof prepareRun>>, { ok: true }>;

/**
 * Looks the skill up in the catalog in force now (overrides applied) and
 * prepares the run against that snapshot's plan: the one decision both the
 * first look and the last-moment check (just before spawning) make.
 */
async function prepareFromCurrent(
  input: { name: string; script: string; args?: string[] | undefined },
  store: Pick<CatalogStore, "current">,
  service: ScriptService,
): Promise<PreparedNow> {
  const catalog = store.current();
  const found = lookUpSkill(catalog, input.name);
  if (!isSkill(found)) return { ok: false, refusal: found };
  const prepared = await prepareRun(found, {
    script: input.script,
    args: input.args ?? [],
  }, {
    plan: service.plan(catalog),
    facts: service.facts,
    dataDir: service.dataDir,
    releaseEnv: service.releaseEnv,
  });
  if (!prepared.ok) {
    return { ok: false, refusal: toolError(prepared.code, prepared.message, prepared.hint) };
  }
  return { ok: true, prepared, found, catalog };
}

/** Asks the user or checks the token; null means confirmed. */
async function confirm(
  preview: RunPreview,
  token: string | undefined,
  service: ScriptService,
  extra: ToolCallExtra | undefined,
): Promise<ToolResult | InputRequiredResult | null> {
  // One rule for every way a preview reaches the user (r15): the elicitation dialog, and the
  // confirmation-required answer (or DRAFT_CHANGED error) whose preview the model shows them.
  // Either way the user confirms what they read, so the text with every invisible or look-alike
  // character spelled out is bounded before any of it is shown or any token issued.
  const message = confirmationMessage(preview);
  if (utf8Bytes(message) > MAX_CONFIRMATION_BYTES) return tooLongToConfirm(utf8Bytes(message));
  const round = extra?.inputRound;
  if (round !== undefined && round.state !== undefined) {
    // 2026-07-28 retry: the echoed requestState is a confirmation token, checked
    // like any token (HMAC over this exact preview, single use, expiring) before
    // the user's answer is even read; tampered or replayed state is refused.
    const verdict = await service.confirmer.check(round.state, preview);
    if (verdict === "ok") return declinedOrNull(preview, round.answer ?? "cancel");
    return await refuseToken(verdict, preview, service);
  }
  if (round !== undefined && round.canElicit) {
    return round.ask(message, await service.confirmer.issue(preview));
  }
  if (extra?.askUser !== undefined) {
    let answer;
    try {
      answer = await extra.askUser(message);
    } catch {
      answer = "cancel" as const;
    }
    return declinedOrNull(preview, answer);
  }
  if (token === undefined) {
    return toolSuccess(
      {
        status: "confirmation-required",
        dispatched: false,
        confirmToken: await service.confirmer.issue(preview),
        preview: structuredClone(preview) as SkillRunAnswer["preview"],
      } satisfies SkillRunAnswer,
    );
  }
  const verdict = await service.confirmer.check(token, preview);
  if (verdict === "ok") return null;
  return await refuseToken(verdict, preview, service);
}

/** Null when the user accepted; otherwise the CONFIRMATION_DECLINED error. */
function declinedOrNull(preview: RunPreview, answer: UserAnswer): ToolResult | null {
  if (answer === "accept") return null;
  return toolError(
    "CONFIRMATION_DECLINED",
    `The user did not agree to run "${preview.willRun.script}" (${answer})`,
    "Do not run it again unless the user asks; carry on without it",
  );
}

/** The tool error for a token (or 2026-07-28 requestState) that did not verify. */
async function refuseToken(
  verdict: Exclude<Awaited<ReturnType<ScriptService["confirmer"]["check"]>>, "ok">,
  preview: RunPreview,
  service: ScriptService,
): Promise<ToolResult> {
  if (verdict === "DRAFT_CHANGED") {
    // Review n8: the hint did not say which arguments to send with the new token, and the
    // message named only two of the causes (the token signs the whole preview).
    return toolError(
      "DRAFT_CHANGED",
      "The confirmToken does not confirm what would run now: the arguments differ from its " +
        "preview, or the script's declaration, folder or environment changed since (or the " +
        "token was issued for another preview)",
      "Show the user the preview in this answer (what would run now); if they agree, call " +
        "skill_run again with exactly these arguments and this answer's confirmToken",
      { confirmToken: await service.confirmer.issue(preview), preview },
    );
  }
  const messages: Record<typeof verdict, [string, string]> = {
    TOKEN_INVALID: [
      "The confirmToken is not one this server issued",
      "Call skill_run without a confirmToken to get a preview and a token",
    ],
    TOKEN_REUSED: [
      "The confirmToken was already used; each token runs the script once",
      "Call skill_run without a confirmToken for a new preview, and confirm it with the user",
    ],
    TOKEN_EXPIRED: [
      "The confirmToken has expired (tokens last MCP_CONFIRM_TTL_SECONDS and end when the " +
      "server restarts)",
      "Call skill_run without a confirmToken for a new preview, and confirm it with the user",
    ],
  };
  const [message, hint] = messages[verdict];
  return toolError(verdict, message, hint);
}

/**
 * Runs a confirmed request once a slot is free. In the slot, before any
 * variable is released or anything spawned, the request is prepared again
 * from the catalog in force (`again`): a skill disabled, removed or kept at its
 * last good entry, or a script no longer declared or granted, refuses with that
 * snapshot's error, and any change to what would run (the preview) refuses
 * with DRAFT_CHANGED (review r16, A1: the dialog and the queue may
 * wait for minutes, and the owner's narrowing is in force at once).
 */
async function execute(
  confirmed: Prepared,
  again: () => Promise<PreparedNow>,
  service: ScriptService,
  extra: ToolCallExtra | undefined,
): Promise<ToolResult> {
  const startedAt = performance.now();
  let outputBytes = 0;
  let running = false;
  const progress = extra?.sendProgress;
  const ticker = progress === undefined ? undefined : setInterval(() => {
    const elapsedMs = Math.round(performance.now() - startedAt);
    const message = running
      ? `Running for ${(elapsedMs / 1000).toFixed(1)} s; ${outputBytes} bytes of output so far`
      : `Waiting for a free slot (${service.queue.waiting()} waiting)`;
    progress(elapsedMs, message).catch(() => {});
  }, PROGRESS_INTERVAL_MS);
  const signal = extra?.signal === undefined
    ? service.stopSignal
    : AbortSignal.any([extra.signal, service.stopSignal]);
  let outcome: RunOutcome | { readonly refusal: ToolResult };
  let prepared = confirmed;
  let ranEnvNames: readonly string[] = prepared.envNames;
  let withheld: readonly string[] = [];
  try {
    outcome = await service.track(service.queue.run(async () => {
      running = true;
      const now = await again();
      if (!now.ok) return { refusal: now.refusal };
      if (canonicalJson(now.prepared.preview) !== canonicalJson(confirmed.preview)) {
        return { refusal: changedSinceConfirmed() };
      }
      prepared = now.prepared;
      // The granted names' values, released by the trusted part for this run only.
      const released = await service.releaseEnv({
        skill: prepared.planned.skill,
        script: prepared.planned.script,
        dir: prepared.skillDir,
        names: prepared.planned.grantedEnv,
      });
      const env = { ...released, ...prepared.spec.env };
      ranEnvNames = Object.keys(env).sort();
      withheld = prepared.planned.grantedEnv.filter((name) => !(name in env));
      return runScript({ ...prepared.spec, env }, {
        killer: service.killer,
        signal,
        onOutputBytes: (bytes) => {
          outputBytes = bytes;
        },
      });
    }, signal));
  } catch (error) {
    if (error instanceof RunQueueFullError) return queueFull();
    if (error instanceof DOMException && error.name === "AbortError") return cancelled();
    throw error;
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
  }
  if ("refusal" in outcome) return outcome.refusal;
  if (outcome.spawnError !== undefined) {
    return toolError(
      "RUN_FAILED",
      `The script could not be started (${outcome.spawnError})`,
      "Tell the server's owner; the interpreter may have moved since skillgate started",
    );
  }
  if (outcome.cancelled) return cancelled();
  const answer = describeOutcome(prepared, outcome, service, ranEnvNames);
  if (withheld.length > 0) {
    // Said, never silent: a granted name the script did not receive (review r12, F11).
    answer.envNote = `Granted but not passed: ${withheld.join(", ")} (not set in skillgate's ` +
      "environment, or withheld by skillgate's own check of the skill's declaration); tell the " +
      "server's owner";
  }
  return toolSuccess(answer);
}

/** The refusal when what would run now differs from what was confirmed. */
function changedSinceConfirmed(): ToolResult {
  return toolError(
    "DRAFT_CHANGED",
    "What would run changed while the run waited for confirmation or a free slot (the " +
      "skill's declaration, folder, environment or the owner's grant), so nothing ran",
    "Call skill_run again to see what would run now, and confirm that with the user",
  );
}

function describeOutcome(
  prepared: Prepared,
  outcome: RunOutcome,
  service: ScriptService,
  envNames: readonly string[],
): SkillRunAnswer {
  const planned = prepared.planned;
  const answer: SkillRunAnswer = {
    status: "completed",
    dispatched: true,
    skill: planned.skill,
    script: planned.script,
    interpreter: planned.interpreter,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    truncated: outcome.truncated,
    timedOut: outcome.timedOut,
    timeoutMs: planned.timeoutMs,
    durationMs: outcome.durationMs,
    env: [...envNames],
    isolation: service.facts.isolation.mode,
  };
  const proxies = envNames.filter((name) => PROXY_ENV_NAMES.includes(name));
  if ((outcome.exitCode !== 0 || outcome.timedOut) && proxies.length > 0) {
    answer.networkNote = `The script received ${proxies.join(", ")}; if it failed to reach ` +
      "the network, the proxy may be why";
  }
  if (prepared.layout !== undefined && (outcome.exitCode !== 0 || outcome.signal !== null)) {
    // Review n8: an exec script whose #! interpreter the sandbox does not mount failed with no
    // note (bubblewrap names the script, which is mounted).
    const note = (prepared.shebang === undefined ? null : missingInterpreterNote(
      outcome.stderr,
      prepared.layout,
      { skill: planned.skill, script: planned.script, shebang: prepared.shebang },
    )) ?? missingMountNote(outcome.stderr, prepared.layout, planned);
    if (note !== null) answer.sandboxNote = note;
  }
  if (outcome.pipesAbandoned) {
    answer.note = "A process the script left behind kept its output open; output written " +
      "after the script ended was not collected";
  }
  return answer;
}

/**
 * The most a confirmation dialog's text may take, in UTF-8 bytes. The user
 * confirms what they read, so the whole text must be shown: a longer one is
 * refused before anyone is asked, since a client that cuts or scrolls it
 * could hide a word behind padding (review r13). The same bound holds where
 * no dialog is shown but a preview is handed over for the user to read (the
 * `confirmation-required` answer, a DRAFT_CHANGED error's fresh preview;
 * review r15): the preview's dialog text is measured, and over the bound no
 * preview or token is given. Arguments are capped at
 * `MAX_ARGS_BYTES` (8 KiB), but their display is not: every invisible or
 * look-alike character is written as `\u{...}` (up to 8 bytes) and listed a
 * second time, so a few KiB of them made a dialog of tens of KiB. Twice the
 * argument cap: plain printable arguments up to that cap always fit, with the
 * dialog's other lines (a folder path of up to 4 KiB included).
 */
export const MAX_CONFIRMATION_BYTES = 2 * MAX_ARGS_BYTES;

/** The length of a text in UTF-8 bytes. */
function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * The CONFIRMATION_TOO_LONG tool error: the dialog (or the preview the user
 * would read) would exceed {@linkcode MAX_CONFIRMATION_BYTES}, so the user is
 * not asked, no preview or token is given, and nothing runs.
 */
function tooLongToConfirm(bytes: number): ToolResult {
  return toolError(
    "CONFIRMATION_TOO_LONG",
    `The confirmation the user must read in full would be ${bytes} bytes, over the limit of ` +
      `${MAX_CONFIRMATION_BYTES}; the user was not asked and nothing ran`,
    "Call skill_run again with fewer or shorter arguments (put long input in a file the script " +
      "reads, such as one under its data folder)",
    { bytes, limitBytes: MAX_CONFIRMATION_BYTES },
  );
}

/**
 * The text shown to the user in an elicitation prompt: exactly what will run.
 * The caller refuses to ask, or to hand out a preview, when it is over
 * {@linkcode MAX_CONFIRMATION_BYTES}.
 *
 * @param preview The preview.
 * @returns Plain text, a few lines; unbounded (the command words in full).
 */
export function confirmationMessage(preview: RunPreview): string {
  const run = preview.willRun;
  const lines = [
    `Run script "${visible(run.script)}" of skill "${visible(run.skill)}" with ` +
    `${visible(run.interpreter)}?`,
    "",
    `Command: ${run.argv.map((arg) => visible(JSON.stringify(arg))).join(" ")}`,
    `Folder: ${visible(run.cwd)}`,
    `Environment: ${visible(run.envNames.join(", ")) || "(none)"}`,
    ...(preview.envUnset === undefined
      ? []
      : [`Not set here, so not passed: ${visible(preview.envUnset.join(", "))}`]),
    `Time limit: ${run.timeoutMs / 1000} s`,
  ];
  // A word a reader could take for another (a look-alike dash or letter, a filler that draws as
  // a space: review r12, F7) is shown a second time with every character beyond printable ASCII
  // as its code point, numbered as in the Command line (1 = the program).
  const beyondAscii = run.argv.flatMap((arg, index) =>
    NOT_PRINTABLE_ASCII.test(arg) ? [`  word ${index + 1}: ${spelledOut(arg)}`] : []
  );
  if (beyondAscii.length > 0) {
    lines.push(
      "",
      "Command words holding characters beyond printable ASCII (control characters, or " +
        "look-alikes that can read as another; check them):",
      ...beyondAscii,
    );
  }
  if (preview.envWarning !== undefined) lines.push("", `Warning: ${visible(preview.envWarning)}`);
  return lines.join("\n");
}

/** Any character outside printable ASCII (U+0020-U+007E). */
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/u;

/**
 * A command word as JSON with every character beyond printable ASCII
 * written as `\u{...}`, so `\u{2010}\u{2010}dry-run` never reads as
 * `--dry-run`.
 */
function spelledOut(arg: string): string {
  return JSON.stringify(arg).replace(
    /[^\x20-\x7e]/gu,
    (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`,
  );
}

/**
 * Every control, format (bidi marks, embeddings, overrides and isolates,
 * zero-width characters, soft hyphen), line separator and paragraph
 * separator character (Unicode general categories Cc, Cf, Zl, Zp).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * Text for the user's confirmation dialog with every {@linkcode INVISIBLE}
 * character written as `\u{...}`: the dialog is where the user checks what a
 * (possibly prompt-injected) model asked to run, so U+2028 cannot fake a
 * `Folder:` line, U+202E cannot reverse the rest of a line (Trojan Source,
 * CVE-2021-42574) and a zero-width character cannot hide in an argument.
 * The argv run stays exact; only its display is escaped.
 */
function visible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}

function queueFull(): ToolResult {
  return toolError(
    "RUN_QUEUE_FULL",
    "Too many script runs are waiting; this one was not started",
    "Wait for running scripts to finish, then call skill_run again",
  );
}

function cancelled(): ToolResult {
  return toolError(
    "RUN_CANCELLED",
    "The run was cancelled",
    "Call skill_run again if still needed",
  );
}
