/**
 * One accepted TCP connection (`Deno.Conn`) as the node `Duplex` stream that
 * node:http's server parses. node:http accepts any Duplex as a connection
 * (`server.emit("connection", socket)`); this one adds the few `net.Socket`
 * members its server calls (`setTimeout` for the keep-alive idle timeout,
 * `destroySoon` after a closing answer, `setNoDelay`, addresses).
 *
 * Backpressure both ways: bytes are read from the connection only when the
 * parser asks for more (`_read`), and a write completes only once the
 * connection took every byte, so a client that stops reading stalls its own
 * answer instead of filling memory; a stall that lasts the write stall
 * timeout closes the connection, so it cannot hold what the answer reserved
 * (memory budget, request slot) for as long as the client likes.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { Duplex } from "node:stream";

/** Bytes read from a connection per read call. */
const READ_CHUNK_BYTES = 16 * 1024;

/**
 * The event a {@linkcode ConnSocket} emits just before it closes itself
 * because a write made no progress for its write stall timeout.
 */
export const WRITE_STALLED_EVENT = "writestalled";

/** A `Deno.Conn` seen through node's stream interface. */
export class ConnSocket extends Duplex {
  readonly #conn: Deno.Conn;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timeoutMs = 0;
  #isReading = false;
  #writeStallMs = 0;
  #stallTimer: ReturnType<typeof setTimeout> | undefined;
  /** The peer's address, e.g. `127.0.0.1`. */
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly remoteFamily: "IPv4" | "IPv6";
  readonly localAddress: string;
  readonly localPort: number;

  /**
   * Wraps an accepted connection; the socket owns it from now on (destroying
   * the socket closes it).
   *
   * @param conn A TCP connection from `Deno.Listener.accept()`.
   */
  constructor(conn: Deno.Conn) {
    // Half-open: node:http decides itself when to end its side (httpAllowHalfOpen).
    super({ allowHalfOpen: true });
    this.#conn = conn;
    const remote = conn.remoteAddr as Deno.NetAddr;
    const local = conn.localAddr as Deno.NetAddr;
    this.remoteAddress = remote.hostname;
    this.remotePort = remote.port;
    this.remoteFamily = remote.hostname.includes(":") ? "IPv6" : "IPv4";
    this.localAddress = local.hostname;
    this.localPort = local.port;
  }

  /**
   * Emits `timeout` after `ms` without bytes in either direction, as
   * `net.Socket#setTimeout` does (node:http uses it for the keep-alive idle
   * timeout and destroys the socket on it).
   *
   * @param ms Idle time in ms; 0 turns the timer off.
   * @param onTimeout Added once as a `timeout` listener.
   * @returns This socket.
   */
  setTimeout(ms: number, onTimeout?: () => void): this {
    this.#timeoutMs = ms;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (ms > 0) this.#touch();
    if (onTimeout !== undefined) this.once("timeout", onTimeout);
    return this;
  }

  /**
   * Closes the connection when bytes waiting to be written make no progress
   * for `ms` (the client stopped reading): emits
   * {@linkcode WRITE_STALLED_EVENT}, then destroys the socket, which ends the
   * answer being written and releases what it held. Each chunk the
   * connection takes (a partial write included) restarts the wait, so a slow
   * reader is never cut; with nothing waiting to be written no timer runs.
   *
   * @param ms The bound in ms (`HTTP_WRITE_STALL_TIMEOUT_MS`); 0 turns it off.
   * @returns This socket.
   */
  setWriteStallTimeout(ms: number): this {
    this.#writeStallMs = ms;
    return this;
  }

  /** As `net.Socket#setNoDelay`. @returns This socket. */
  setNoDelay(noDelay = true): this {
    try {
      (this.#conn as Deno.TcpConn).setNoDelay(noDelay);
    } catch { /* closed, or not TCP */ }
    return this;
  }

  /** As `net.Socket#setKeepAlive` (TCP keep-alive probes). @returns This socket. */
  setKeepAlive(keepAlive = false): this {
    try {
      (this.#conn as Deno.TcpConn).setKeepAlive(keepAlive);
    } catch { /* closed, or not TCP */ }
    return this;
  }

  /** Ends the writable side, then destroys the socket once the last byte is out. */
  destroySoon(): void {
    if (this.destroyed) return;
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once("finish", () => this.destroy());
  }

  /** No-op: the event loop is never held by a connection here. @returns This socket. */
  ref(): this {
    return this;
  }

  /** No-op (see `ref`). @returns This socket. */
  unref(): this {
    return this;
  }

  override _read(): void {
    if (this.#isReading || this.destroyed) return;
    this.#isReading = true;
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    this.#conn.read(buffer).then((read) => {
      this.#isReading = false;
      // Destroyed while the read was pending: a push now would be an error with no reader.
      if (this.destroyed) return;
      // A push runs node:http's parser and its listeners synchronously: a throw from any of
      // them ends this connection, never the worker (as an unhandled rejection would).
      try {
        if (read === null) {
          this.push(null);
          return;
        }
        this.#touch();
        if (this.push(buffer.subarray(0, read))) this._read();
      } catch (error) {
        this.destroy(asError(error));
      }
    }, (error: unknown) => {
      this.#isReading = false;
      if (!this.destroyed) this.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  }

  override _write(
    chunk: Buffer,
    _encoding: string,
    callback: (error?: Error | null) => void,
  ): void {
    this.#touch();
    this.#writeAll(chunk).then(() => callback(), (error) => callback(asError(error)));
  }

  override _writev(
    chunks: { chunk: Buffer }[],
    callback: (error?: Error | null) => void,
  ): void {
    this.#touch();
    const joined = Buffer.concat(chunks.map((entry) => entry.chunk));
    this.#writeAll(joined).then(() => callback(), (error) => callback(asError(error)));
  }

  override _final(callback: (error?: Error | null) => void): void {
    (this.#conn as Deno.TcpConn).closeWrite().then(() => callback(), () => callback());
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
    try {
      this.#conn.close();
    } catch { /* already closed */ }
    callback(error);
  }

  /**
   * Writes every byte of `bytes`; a write that waits longer than the write
   * stall timeout for the connection to take a chunk closes the socket.
   */
  async #writeAll(bytes: Uint8Array): Promise<void> {
    let written = 0;
    try {
      while (written < bytes.length) {
        this.#armStall();
        written += await this.#conn.write(bytes.subarray(written));
      }
    } finally {
      clearTimeout(this.#stallTimer);
      this.#stallTimer = undefined;
    }
  }

  #armStall(): void {
    clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
    if (this.#writeStallMs <= 0 || this.destroyed) return;
    this.#stallTimer = setTimeout(() => {
      this.#stallTimer = undefined;
      if (this.destroyed) return;
      try {
        this.emit(WRITE_STALLED_EVENT);
      } catch { /* a listener's fault must not keep the stalled connection open */ }
      // No error: the answer ends as if the client left (node:http writes nothing more).
      this.destroy();
    }, this.#writeStallMs);
  }

  #touch(): void {
    // A write settling after destroy must not arm a timer that outlives the socket.
    if (this.#timeoutMs <= 0 || this.destroyed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.destroyed) return;
      try {
        this.emit("timeout");
      } catch (error) {
        this.destroy(asError(error)); // a listener's fault ends this connection only
      }
    }, this.#timeoutMs);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
