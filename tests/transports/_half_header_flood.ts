/**
 * A worker (its own thread, so it floods while the server's thread is busy)
 * that opens `total` connections to `port`, `concurrency` at a time, each
 * sending half a request head and never the rest; a connection is dropped
 * once the server closes it or when the flood ends. Posts "started" after
 * the first wave and "done" with counts at the end. Bounded by `total`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

self.onmessage = async (
  event: MessageEvent<{ port: number; total: number; concurrency: number }>,
) => {
  const { port, total, concurrency } = event.data;
  const half = new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  let opened = 0;
  let closedByServer = 0;
  const open = new Set<Deno.Conn>();
  let isStartedSent = false;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (opened < total) {
      opened++;
      let conn: Deno.Conn;
      try {
        conn = await Deno.connect({ hostname: "127.0.0.1", port });
      } catch {
        continue;
      }
      open.add(conn);
      if (!isStartedSent && opened >= concurrency) {
        isStartedSent = true;
        self.postMessage({ kind: "started" });
      }
      try {
        await conn.write(half);
        const buffer = new Uint8Array(1024);
        while ((await conn.read(buffer)) !== null) { /* a 408, if any */ }
        closedByServer++;
      } catch {
        /* reset */
      } finally {
        if (open.delete(conn)) conn.close();
      }
    }
  }));
  for (const conn of open) conn.close();
  self.postMessage({ kind: "done", opened, closedByServer });
};
