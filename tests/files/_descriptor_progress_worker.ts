/**
 * Test isolate for `descriptor_shortage_test.ts`: adopts the progress buffer
 * it is sent, then gets a "descriptor" (a read that succeeds through
 * `retryingOnDescriptorShortage`) every 2 ms until told to stop, as the
 * digest isolate's reads do while the worker waits for one.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import {
  retryingOnDescriptorShortage,
  shareDescriptorProgress,
} from "../../src/files/descriptor_shortage.ts";

let timer: ReturnType<typeof setInterval> | null = null;
self.onmessage = (event: MessageEvent<{ type: string; buffer?: unknown }>) => {
  if (event.data.type === "share") shareDescriptorProgress(event.data.buffer);
  if (event.data.type === "progress") {
    timer = setInterval(() => void retryingOnDescriptorShortage(() => Promise.resolve()), 2);
    self.postMessage({ type: "progressing" });
  }
  if (event.data.type === "stop" && timer !== null) {
    clearInterval(timer);
    self.postMessage({ type: "stopped" });
  }
};
