/**
 * Test fixture for `primeStdin()` (run as a program by
 * `tests/transports/stdio_prime_test.ts`): primes stdin, waits until the
 * test says so (a `go` file appears) so the primed read has completed or
 * stdin has ended meanwhile, then connects the stdio transport and prints
 * each message it receives as one JSON line, and `END` once stdin ends.
 *
 * @module
 */

import { DrainingStdioTransport, primeStdin } from "../../src/transports/stdio.ts";

const goFile = Deno.args[0];
if (goFile === undefined) throw new TypeError("Usage: _prime_stdin_fixture.ts GO_FILE");
primeStdin();
primeStdin(); // a second call changes nothing
console.log("PRIMED");
for (;;) {
  try {
    Deno.statSync(goFile);
    break;
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const transport = new DrainingStdioTransport();
transport.onmessage = (message) => console.log(JSON.stringify(message));
transport.onstdinend = () => {
  console.log("END");
  transport.close().catch(() => {});
};
await transport.start();
