import assert from "node:assert/strict";
import { createFdLocateClient } from "../../src/sandbox/fd_locate_client.ts";
import type {
  LocateFdRequestMessage,
  LocateFdsRequestMessage,
} from "../../src/sandbox/messages.ts";
import { createTrustedRequester } from "../../src/sandbox/trusted_request.ts";

/** A port whose replies are made by `answer` (null: no reply at all). */
function fakePort<Request>(answer: (request: Request) => unknown) {
  const target = new EventTarget();
  const requests: Request[] = [];
  return {
    requests,
    postMessage: (message: Request) => {
      requests.push(message);
      const data = answer(message);
      if (data === null) return;
      queueMicrotask(() => target.dispatchEvent(new MessageEvent("message", { data })));
    },
    addEventListener: (type: "message", listener: (event: MessageEvent) => void) =>
      target.addEventListener(type, listener as EventListener),
  };
}

Deno.test("the fd locate client returns the trusted part's path for its own request", async () => {
  const port = fakePort<LocateFdRequestMessage>((request) => ({
    type: "locate-fd-reply",
    id: request.id,
    path: `/real/${request.fd}`,
  }));
  const locate = createFdLocateClient(port);
  assert.equal(await locate(7), "/real/7");
  assert.equal(await locate(9), "/real/9");
  assert.deepEqual(port.requests, [
    { type: "locate-fd", fd: 7, id: 1 },
    { type: "locate-fd", fd: 9, id: 2 },
  ]);
});

Deno.test("a trusted request ignores foreign replies and fails closed when none comes", async () => {
  // Replies of another type, or for another id, must not settle the request.
  const port = fakePort<{ id: number; type: "ask" }>((request) => ({
    type: "other-reply",
    id: request.id,
    ok: true,
  }));
  const ask = createTrustedRequester<{ id: number; type: "ask" }, boolean>(port, {
    replyType: "ask-reply",
    readAnswer: (reply) => reply.ok === true,
    onTimeout: false,
    timeoutMs: 10,
  });
  assert.equal(await ask({ type: "ask" }), false);
});

Deno.test("the fd locate client sends requests made in one synchronous run as one batch, and those made while it is in flight as the next, each answered exactly", async () => {
  const port = fakePort<LocateFdRequestMessage | LocateFdsRequestMessage>((request) =>
    request.type === "locate-fd"
      ? { type: "locate-fd-reply", id: request.id, path: `/real/${request.fd}` }
      : { type: "locate-fds-reply", id: request.id, paths: request.fds.map((fd) => `/real/${fd}`) }
  );
  const locate = createFdLocateClient(port);
  const first = Promise.all([3, 4, 5, 6].map((fd) => locate(fd)));
  // Sent after a microtask: these are asked while the first batch is in flight.
  await Promise.resolve();
  await Promise.resolve();
  const second = Promise.all([7, 8].map((fd) => locate(fd)));
  assert.deepEqual(await first, ["/real/3", "/real/4", "/real/5", "/real/6"]);
  assert.deepEqual(await second, ["/real/7", "/real/8"]);
  const lone = await locate(9);
  assert.equal(lone, "/real/9");
  assert.deepEqual(port.requests, [
    { type: "locate-fds", fds: [3, 4, 5, 6], id: 1 },
    { type: "locate-fds", fds: [7, 8], id: 2 },
    { type: "locate-fd", fd: 9, id: 1 },
  ]);
});

Deno.test("attack: a batched locate reply that is short fails closed for every descriptor in it", async () => {
  const port = fakePort<LocateFdRequestMessage | LocateFdsRequestMessage>((request) =>
    request.type === "locate-fd"
      ? { type: "locate-fd-reply", id: request.id, path: `/real/${request.fd}` }
      : { type: "locate-fds-reply", id: request.id, paths: ["/real/4"] }
  );
  const locate = createFdLocateClient(port);
  const paths = await Promise.all([3, 4, 5].map((fd) => locate(fd)));
  // One batch of three answered with one path: none of the three is taken as placed.
  assert.deepEqual(paths, ["", "", ""]);
});
