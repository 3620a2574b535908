/**
 * The declaration reader's entry module: a worker of its own, started by the
 * trusted part on the first environment request, that answers one question
 * per message: which environment names does this script of this skill
 * declare? It reads the skill's SKILL.md through the file gate
 * (`readDeclaredEnv`), under a permission set of reading the roots only. Its
 * questions come from the trusted part; of them, the serving worker chooses
 * only the skill name, the script and the folder, each checked there (inside
 * a base, named as the skill), so a compromised serving worker cannot make it
 * report a declaration the skill lacks (issue 13).
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { installFdLocator } from "../files/fd_location.ts";
import { readDeclaredEnv } from "../skills/declared_env.ts";
import { createFdLocateClient } from "./fd_locate_client.ts";
import type { DeclaredEnvQuestion, DeclaredEnvReply } from "./declared_env_messages.ts";

// The path gate's exact check asks the trusted part where an opened file really is.
installFdLocator(createFdLocateClient(self));

self.addEventListener("message", (event: MessageEvent<DeclaredEnvQuestion>) => {
  const question = event.data;
  if (question?.type !== "declared-env") return;
  readDeclaredEnv(question.request, question.options)
    .catch(() => [] as readonly string[])
    .then((names) => {
      const reply: DeclaredEnvReply = {
        type: "declared-env-reply",
        id: question.id,
        names: [...names],
      };
      self.postMessage(reply);
    });
});
