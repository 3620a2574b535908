/**
 * The digest isolate's entry module: a worker of its own that hashes skill
 * files for the serving worker's first `skills/list` while the catalog is
 * still being built (issue 13: at 10,000 skills the cold build and the
 * ~30,000 reads and hashes after it ran one after the other on one core).
 * The trusted part starts it on the serving worker's request with a
 * permission set of reading the roots only (no write, run, net, env, sys or
 * ffi; `digestIsolatePermissions` in `worker_set.ts`), answers its
 * descriptor-location requests itself (as for the worker), and ends it with
 * the worker. Its only input is the channel the trusted part hands it: jobs
 * naming a skill folder and a file path, which it reads through the same
 * gate as the worker (`digest_files.ts`), and jobs naming skill folders as
 * discovery found them, which it lists with the build's own walk and hashes
 * in the same pass (`digest_listing.ts`); what it answers is checked by the
 * worker (`digest_messages.ts`) and stored under the version its gate saw.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { installFdLocator } from "../../files/fd_location.ts";
import { installFolderPathReader, installFolderReader } from "../../files/fd_listing.ts";
import {
  createFdLocateClient,
  createFolderPathReadClient,
  createFolderReadClient,
} from "../../sandbox/fd_locate_client.ts";
import { shareDescriptorProgress } from "../../files/descriptor_shortage.ts";
import { hashThroughGate } from "./digest_files.ts";
import { listAndHashSkills } from "./digest_listing.ts";
import {
  DIGEST_HEARTBEAT_MS,
  type DigestAliveMessage,
  type DigestListReplyMessage,
  type DigestReplyMessage,
  parseDigestJob,
  parseListJob,
} from "./digest_messages.ts";

// The gate's exact check asks the trusted part (this isolate's parent) where an opened file is.
installFdLocator(createFdLocateClient(self));
// The file listing reads each folder through its descriptor, also by asking the trusted part.
installFolderReader(createFolderReadClient(self));
// ... and asks the trusted part to open each folder too, by its real path (s11-hC): this
// isolate's own open of a folder costs Deno's permission check (a `readlink` of every segment of
// the path, ~14 us), the trusted part's does not; a folder the trusted part cannot tell about is
// opened here and read through its descriptor as before.
installFolderPathReader(createFolderPathReadClient(self));

/** Jobs run one after another (each with its own bounded concurrency). */
let queue: Promise<void> = Promise.resolve();

self.addEventListener("message", (event: MessageEvent) => {
  const data = event.data as { type?: unknown; port?: unknown } | null;
  if (data?.type !== "digest-port" || !(data.port instanceof MessagePort)) return;
  const port = data.port;
  // Signs of life while the thread is free (the worker gives up on an isolate whose thread
  // stopped: digest_helper.ts); ended with the isolate.
  const alive: DigestAliveMessage = { type: "digest-alive" };
  port.postMessage(alive);
  setInterval(() => port.postMessage(alive), DIGEST_HEARTBEAT_MS);
  port.onmessage = (job: MessageEvent) => {
    const data = job.data as { type?: unknown; buffer?: unknown } | null;
    if (data?.type === "descriptor-progress") return shareDescriptorProgress(data.buffer);
    const listing = parseListJob(job.data);
    if (listing !== null) {
      queue = queue.then(async () => {
        const results = await listAndHashSkills(listing.skills, listing.caps);
        const reply: DigestListReplyMessage = {
          type: "list-skills-reply",
          id: listing.id,
          results,
        };
        port.postMessage(reply);
      });
      return;
    }
    const parsed = parseDigestJob(job.data);
    if (parsed === null) return;
    queue = queue.then(async () => {
      const results = await hashThroughGate(parsed.files);
      const reply: DigestReplyMessage = { type: "digest-files-reply", id: parsed.id, results };
      port.postMessage(reply);
    });
  };
});
