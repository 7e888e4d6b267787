/**
 * Idle HTTP/1.1 connections of the list and watch socket
 * (`_http1_stream.ts`), kept per server and TLS identity for the next GET,
 * as Go's `http.Transport` keeps its idle connections. Internal module.
 *
 * @module
 */

import type { SocketTls } from "./_socket_tls.ts";
import { type Clock, RealClock } from "../api/clock.ts";

/** Bytes the read watching an idle connection takes at most (a socket read's). */
const IDLE_READ_BYTES = 64 * 1024;

/** What makes one connection unlike another: where it goes and its TLS identity. */
export function poolKey(
  https: boolean,
  hostname: string,
  port: number,
  tls: SocketTls,
): string {
  return JSON.stringify([
    https,
    hostname,
    port,
    https ? tls.caData ?? "" : "",
    https ? tls.clientCert?.cert ?? "" : "",
    https ? tls.clientCert?.key ?? "" : "",
  ]);
}

/**
 * Idle connections kept per key, at most: client-go's 25
 * (`MaxIdleConnsPerHost` of its transports). Informers list at once and
 * then each opens its watch: with fewer kept, a Manager of 10 controllers
 * closed 8 of its 10 list connections and opened 8 new ones (TLS
 * handshakes included) for the watches a moment later.
 */
const MAX_IDLE_PER_KEY = 25;
/**
 * Idle connections kept in all, at most: a client certificate that
 * rotates (an exec plugin's, rotated files) makes a new key each time, and
 * the oldest connections, likely of a certificate no longer used, go.
 */
const MAX_IDLE = 32;
/**
 * How long a connection stays idle before it is closed: client-go's
 * `IdleConnTimeout`, 90 s.
 */
export const IDLE_TIMEOUT_MS = 90_000;

/**
 * An idle connection and the read that watches it while it waits: its
 * result is the first read of the next request sent on it.
 */
export interface IdleConn {
  conn: Deno.Conn;
  /** The read started when the connection went idle. */
  read: Promise<number | null>;
  /** Where that read puts its bytes. */
  buf: Uint8Array;
}

/** An idle connection in the pool: its key and how to stop its idle timer. */
type Entry = IdleConn & { key: string; stopTimer: () => void };

/**
 * Idle HTTP/1.1 connections, by where they go and their TLS identity (CA,
 * client certificate), for `streamGet` to reuse: a paged list then
 * costs one connect and TLS handshake, not one per page. At most two per
 * key and 32 in all (the oldest are closed), each for at most 90 s (Go's
 * `IdleConnTimeout` in client-go's transports). Each idle connection has a
 * read pending, as Go's transport keeps one per idle connection: bytes
 * that arrive while no request is out (an answer nobody asked for, which
 * the next request would take for its own) or the server's close make the
 * pool close it at once. That read does not keep the process alive
 * (`unref`). `close()` closes them all and every connection given back
 * later.
 */
export class ConnectionPool {
  /** Oldest first. */
  #idle: Entry[] = [];
  #closed = false;
  #clock: Clock | undefined;

  /**
   * @param clock times the idle timeout (a FakeClock in tests); the real
   *   clock's timer does not keep the process alive, as the idle read does
   *   not
   */
  constructor(clock?: Clock) {
    this.#clock = clock instanceof RealClock ? undefined : clock;
  }

  /**
   * The connection given back last under `key` (the likeliest to be
   * alive), if any, with its pending read.
   */
  take(key: string): IdleConn | undefined {
    const i = this.#idle.findLastIndex((e) => e.key === key);
    if (i < 0) return undefined;
    const idle = this.#idle.splice(i, 1)[0];
    idle.stopTimer();
    idle.conn.ref();
    return idle;
  }

  /** Keep `conn` for reuse under `key`, or close it when the pool is closed. */
  put(key: string, conn: Deno.Conn): void {
    if (this.#closed) {
      closeConn(conn);
      return;
    }
    conn.unref();
    const buf = new Uint8Array(IDLE_READ_BYTES);
    const entry: Entry = {
      key,
      conn,
      buf,
      read: conn.read(buf),
      stopTimer: () => {},
    };
    // Whatever the read ends with while the connection is idle, it cannot
    // carry a request's answer any more; once taken, the taker reads it.
    const evict = () => {
      const i = this.#idle.indexOf(entry);
      if (i >= 0) this.#drop(i);
    };
    entry.read.then(evict, evict);
    entry.stopTimer = this.#timer(evict);
    this.#idle.push(entry);
    const same = this.#idle.findIndex((e) => e.key === key);
    if (this.#idle.filter((e) => e.key === key).length > MAX_IDLE_PER_KEY) {
      this.#drop(same);
    }
    if (this.#idle.length > MAX_IDLE) this.#drop(0);
  }

  /** Close the idle connection at `i` and forget it. */
  #drop(i: number): void {
    const [entry] = this.#idle.splice(i, 1);
    entry.stopTimer();
    closeConn(entry.conn);
  }

  /** Call `expire` after the idle timeout; returns what cancels it. */
  #timer(expire: () => void): () => void {
    const clock = this.#clock;
    if (clock === undefined) {
      const id = setTimeout(expire, IDLE_TIMEOUT_MS);
      Deno.unrefTimer(id);
      return () => clearTimeout(id);
    }
    const stop = new AbortController();
    clock.sleep(IDLE_TIMEOUT_MS, stop.signal).then(expire, () => {});
    return () => stop.abort();
  }

  /** How many connections are idle. */
  get size(): number {
    return this.#idle.length;
  }

  /** Close every idle connection, and those given back from now on. */
  close(): void {
    this.#closed = true;
    for (const { conn, stopTimer } of this.#idle) {
      stopTimer();
      closeConn(conn);
    }
    this.#idle = [];
  }
}

/** Close `conn`, whatever state the peer left it in. */
export function closeConn(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed by the peer's reset: nothing to release.
  }
}
