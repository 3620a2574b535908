/**
 * The trusted part's side of the declaration reader: starts the reader
 * worker (`declared_env_entry.ts`) on the first question, with a permission
 * set of reading the roots only, answers its descriptor-location requests,
 * and stops it once idle. A question that cannot be answered (the reader
 * crashed, timed out, or replied nonsense) gets no name: the answer only
 * ever narrows what is released.
 *
 * @module
 */

import { answerLocateRequest } from "./fd_locate_answer.ts";
import type { DeclarationBase, DeclaredEnvRequest } from "../skills/declared_env.ts";
import type { DeclaredEnvQuestion, DeclaredEnvReply } from "./declared_env_messages.ts";
import { MAX_ENV_REQUEST_NAMES, parseWorkerMessage } from "./messages.ts";
import { toWorkerOption, type WorkerPermissions } from "./worker_permissions.ts";

/** Asks which environment names a script declares; `close` stops the reader. */
export interface DeclaredEnvReader {
  /**
   * The names the script declares, read afresh from its SKILL.md.
   *
   * @param request The skill, the script and the folder the serving worker named.
   * @returns The declared names; empty when the reader cannot tell.
   */
  declaredEnv(request: DeclaredEnvRequest): Promise<readonly string[]>;
  /** Stops the reader now (a later question starts it again). */
  close(): void;
}

/** Options of {@linkcode createDeclaredEnvReader}. */
export interface DeclaredEnvReaderOptions {
  /** Folders a skill folder must lie inside, each with its prefix: the roots and the sources cache. */
  readonly bases: readonly DeclarationBase[];
  /** The SKILL.md read cap in bytes (the catalog's own). */
  readonly maxSkillMdBytes: number;
  /** How long one answer may take, in ms. @default 10_000 */
  readonly timeoutMs?: number;
  /** How long the reader stays up without a question, in ms. @default 30_000 */
  readonly idleMs?: number;
}

/**
 * Creates the reader's host. Nothing starts until the first question.
 *
 * @param entry URL of `src/sandbox/declared_env_entry.ts`.
 * @param permissions The reader's set: the roots (and the sources cache) read
 *   only, the environment names the YAML parser reads, nothing else.
 * @param options The bases, the read cap and the time limits.
 * @returns The reader.
 *
 * Requires `--unstable-worker-options`; the trusted part holds every
 * permission it hands down.
 */
export function createDeclaredEnvReader(
  entry: URL,
  permissions: WorkerPermissions,
  options: DeclaredEnvReaderOptions,
): DeclaredEnvReader {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const idleMs = options.idleMs ?? 30_000;
  const pending = new Map<number, (names: readonly string[]) => void>();
  let worker: Worker | null = null;
  let nextId = 1;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    clearTimeout(idle);
    worker?.terminate();
    worker = null;
    for (const answer of pending.values()) answer([]);
    pending.clear();
  };
  const start = (): Worker => {
    const started = new Worker(entry, {
      type: "module",
      name: "skillgate-declarations",
      deno: { permissions: toWorkerOption(permissions) },
    });
    started.onmessage = (event: MessageEvent) => {
      const data = event.data as Partial<DeclaredEnvReply> | null;
      if (data?.type === "declared-env-reply" && typeof data.id === "number") {
        const names = Array.isArray(data.names) && data.names.length <= MAX_ENV_REQUEST_NAMES
          ? data.names.filter((name): name is string => typeof name === "string")
          : [];
        pending.get(data.id)?.(names);
        return;
      }
      const message = parseWorkerMessage(event.data);
      answerLocateRequest(message, (answer) => started.postMessage(answer), permissions.read);
    };
    started.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      if (worker === started) stop();
    };
    return started;
  };
  return {
    declaredEnv(request) {
      clearTimeout(idle);
      worker ??= start();
      const id = nextId++;
      const question: DeclaredEnvQuestion = {
        type: "declared-env",
        id,
        request: { skill: request.skill, script: request.script, dir: request.dir },
        options: { bases: options.bases, maxSkillMdBytes: options.maxSkillMdBytes },
      };
      return new Promise<readonly string[]>((resolve) => {
        const timer = setTimeout(() => pending.get(id)?.([]), timeoutMs);
        pending.set(id, (names) => {
          clearTimeout(timer);
          pending.delete(id);
          resolve(Object.freeze([...names]));
          if (pending.size === 0 && worker !== null) {
            const timer = setTimeout(stop, idleMs);
            Deno.unrefTimer(timer);
            idle = timer;
          }
        });
        worker!.postMessage(question);
      });
    },
    close: stop,
  };
}
