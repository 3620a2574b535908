import assert from "node:assert/strict";
import { computeWorkerPermissions, toWorkerOption } from "../../src/sandbox/worker_permissions.ts";

Deno.test("computeWorkerPermissions() gives the worker exactly the HTTP listen address as net", () => {
  const roots = [{ path: "/skills", realPath: "/skills" }];
  assert.deepEqual(computeWorkerPermissions(roots).permissions.net, []);
  assert.equal(toWorkerOption(computeWorkerPermissions(roots).permissions).net, false);
  const table: [string, string][] = [
    ["127.0.0.1", "127.0.0.1:3000"],
    ["localhost", "localhost:3000"],
    ["::1", "[::1]:3000"],
    ["0.0.0.0", "0.0.0.0:3000"],
    ["::", "[::]:3000"],
  ];
  for (const [host, expected] of table) {
    const explained = computeWorkerPermissions(roots, { listen: { host, port: 3000 } });
    assert.deepEqual(explained.permissions.net, [expected], host);
    assert.match(explained.reasons[`net:${expected}`] ?? "", /HTTP listen address/);
    assert.deepEqual(toWorkerOption(explained.permissions).net, [expected]);
  }
});
