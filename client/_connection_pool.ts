/**
 * Idle HTTP/1.1 connections of the list and watch socket
 * (`_http1_stream.ts`), kept per server and TLS identity for the next GET,
 * as Go's `http.Transport` keeps its idle connections. Internal module.
 *
 * @module
 */

import type { SocketTls } from "./_socket_tls.ts";

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

/** Idle connections kept per key, at most. */
const MAX_IDLE_PER_KEY = 2;
/**
 * Idle connections kept in all, at most: a client certificate that
 * rotates (an exec plugin's, rotated files) makes a new key each time, and
 * the oldest connections, likely of a certificate no longer used, go.
 */
const MAX_IDLE = 8;

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

/**
 * Idle HTTP/1.1 connections, by where they go and their TLS identity (CA,
 * client certificate), for `streamGet` to reuse: a paged list then
 * costs one connect and TLS handshake, not one per page. At most two per
 * key and eight in all (the oldest are closed). Each idle connection has a
 * read pending, as Go's transport keeps one per idle connection: bytes
 * that arrive while no request is out (an answer nobody asked for, which
 * the next request would take for its own) or the server's close make the
 * pool close it at once. That read does not keep the process alive
 * (`unref`). `close()` closes them all and every connection given back
 * later.
 */
export class ConnectionPool {
  /** Oldest first. */
  #idle: (IdleConn & { key: string })[] = [];
  #closed = false;

  /**
   * The connection given back last under `key` (the likeliest to be
   * alive), if any, with its pending read.
   */
  take(key: string): IdleConn | undefined {
    const i = this.#idle.findLastIndex((e) => e.key === key);
    if (i < 0) return undefined;
    const idle = this.#idle.splice(i, 1)[0];
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
    const entry = { key, conn, buf, read: conn.read(buf) };
    // Whatever the read ends with while the connection is idle, it cannot
    // carry a request's answer any more; once taken, the taker reads it.
    const evict = () => {
      const i = this.#idle.indexOf(entry);
      if (i >= 0) closeConn(this.#idle.splice(i, 1)[0].conn);
    };
    entry.read.then(evict, evict);
    this.#idle.push(entry);
    const same = this.#idle.findIndex((e) => e.key === key);
    if (this.#idle.filter((e) => e.key === key).length > MAX_IDLE_PER_KEY) {
      closeConn(this.#idle.splice(same, 1)[0].conn);
    }
    if (this.#idle.length > MAX_IDLE) closeConn(this.#idle.shift()!.conn);
  }

  /** How many connections are idle. */
  get size(): number {
    return this.#idle.length;
  }

  /** Close every idle connection, and those given back from now on. */
  close(): void {
    this.#closed = true;
    for (const { conn } of this.#idle) closeConn(conn);
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
