/**
 * A streaming GET over a socket of its own, speaking HTTP/1.1: the list
 * and watch transport. `fetch` hands a response body over one HTTP chunk per read,
 * and an API server flushes each watch event as its own chunk, so a watch
 * over `fetch` costs a read promise, a stream round and a decode per event
 * even when the socket holds hundreds of them. Here each read takes what
 * the socket has (up to 64 KiB), strips the chunked framing and hands the
 * payload on as one piece, so a backlog is decoded in one pass while a
 * lone event still goes on as soon as it arrives. Over TLS a read returns
 * one record (16 KiB at most), as `fetch`'s do: a list gains the per-read
 * work of `fetch`'s body stream, not bigger reads.
 * Internal module; `KubeClient` uses it for lists and watches without a
 * proxy.
 *
 * @module
 */

import {
  closeConn,
  type ConnectionPool,
  type IdleConn,
  poolKey,
} from "./_connection_pool.ts";
import type { SocketTls } from "./_socket_tls.ts";

/** What a body that breaks off rejects with (fetch's message; the cause says why). */
const BODY_ERROR = "error reading a body from connection";

/** Bytes read at most per socket read. */
const READ_SIZE = 64 * 1024;
/** The longest response head accepted (status line and headers). */
const MAX_HEAD = 256 * 1024;

const CR = 0x0d;
const LF = 0x0a;

/** A response the server sent that is not HTTP/1.x (the message names what). */
class ProtocolError extends TypeError {
  constructor(message: string) {
    super(`Cannot read the response: ${message}`);
    this.name = "TypeError";
  }
}

/**
 * The API server answered the TLS handshake with `no_application_protocol`:
 * it speaks HTTP/2 only (some gateways and load balancers are set up so),
 * and this socket offers HTTP/1.1 alone. `fetch`, which offers both, works.
 */
export class Http1RefusedError extends TypeError {
  constructor(url: string, cause: unknown) {
    super(
      `error sending request for url (${url}): the server does not speak HTTP/1.1 (TLS ALPN: ${
        msg(cause)
      })`,
      { cause },
    );
    this.name = "TypeError";
  }
}

/** How {@link streamGet} sends beyond a GET with headers. */
export interface StreamRequest {
  /** The method; default GET. */
  method?: string;
  /** A body, sent with its Content-Length. */
  body?: string;
  /**
   * Header lines sent one per value (`Headers` joins repeated names with
   * ", ", which a Go server reads as one value: several
   * `Impersonate-Group` lines must stay lines).
   */
  headerLines?: readonly (readonly [string, string])[];
  /**
   * Idle connections to take one from and give it back to once the answer
   * has ended by its framing (GET only).
   */
  pool?: ConnectionPool;
}

/**
 * Send `GET url` with `headers` on a connection of its own (an idle one of
 * `request.pool` when it has one) and resolve with the response once its
 * head has arrived; the body streams each socket read's payload as one
 * chunk. Aborting `signal` (before or after the head, during the connect
 * too) closes the connection; so does cancelling the body. A body read to
 * the end its framing gives (Content-Length, the last chunk) gives the
 * connection back to the pool, unless the server said `Connection: close`;
 * one that ends at close is closed. A request on a pooled connection that
 * fails before any byte of the answer arrived (the server closed it just
 * as it was taken) is sent once more on a new one. TCP keep-alive is on
 * where Deno can set it. Rejects like `fetch`: a TypeError when the connection fails
 * or the answer is not HTTP/1.x ({@link Http1RefusedError} when the server
 * refuses HTTP/1.1 in the TLS handshake), `signal.reason` on abort.
 *
 * `request` makes it another method with a body, adds header lines sent
 * one per value and a pool. A gzip answer is decoded when `headers`
 * accept it (`Accept-Encoding: gzip`).
 */
export async function streamGet(
  url: string,
  headers: Headers,
  signal: AbortSignal,
  tls: SocketTls,
  request: StreamRequest = {},
): Promise<Response> {
  signal.throwIfAborted();
  const u = new URL(url);
  const https = u.protocol === "https:";
  // URL keeps an IPv6 literal's brackets; connect wants the address alone.
  const hostname = u.hostname.startsWith("[")
    ? u.hostname.slice(1, -1)
    : u.hostname;
  const port = Number(u.port || (https ? 443 : 80));
  const method = request.method ?? "GET";
  // Only a GET goes on a used connection: it is safe to send again.
  const pool = method === "GET" ? request.pool : undefined;
  const key = pool && poolKey(https, hostname, port, tls);
  const idle = key === undefined ? undefined : pool!.take(key);
  if (idle !== undefined) {
    try {
      return await exchange(idle.conn, idle);
    } catch (err) {
      if (!(err instanceof StaleConnection)) throw err;
    }
  }
  let conn: Deno.Conn;
  try {
    conn = await connect(hostname, port, https, signal, tls);
  } catch (err) {
    signal.throwIfAborted();
    throw new TypeError(`error sending request for url (${url}): ${msg(err)}`, {
      cause: err,
    });
  }
  return await exchange(conn);

  async function exchange(conn: Deno.Conn, idle?: IdleConn) {
    const reused = idle !== undefined;
    const socket = new Socket(
      conn,
      signal,
      key === undefined ? undefined : (c) => pool!.put(key, c),
      idle,
    );
    try {
      signal.throwIfAborted();
      if (!reused && "handshake" in conn) {
        // The handshake would run on the first write anyway; run on its own
        // it tells an HTTP/2-only server apart from other failures.
        try {
          await (conn as Deno.TlsConn).handshake();
        } catch (err) {
          if (
            err instanceof Error && /NoApplicationProtocol/.test(err.message)
          ) {
            throw new Http1RefusedError(url, err);
          }
          throw err;
        }
      }
      let head =
        `${method} ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n`;
      for (const [k, v] of headers) head += `${k}: ${v}\r\n`;
      for (const [k, v] of request.headerLines ?? []) head += `${k}: ${v}\r\n`;
      const body = request.body === undefined
        ? undefined
        : new TextEncoder().encode(request.body);
      if (body !== undefined) head += `Content-Length: ${body.length}\r\n`;
      await socket.write(new TextEncoder().encode(`${head}\r\n`));
      if (body !== undefined) await socket.write(body);
      // The content coding the request accepted is the one decoded.
      const gzip = /\bgzip\b/i.test(headers.get("accept-encoding") ?? "");
      const res = await readHead(socket, gzip);
      return new Response(res.body, {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    } catch (err) {
      socket.close();
      signal.throwIfAborted();
      // Nothing came back on a connection that sat idle: the server closed
      // it as it was taken (its idle timeout), and the GET can go again.
      if (reused && socket.bytesRead === 0) throw new StaleConnection();
      if (err instanceof TypeError) throw err;
      throw new TypeError(
        `error sending request for url (${url}): ${msg(err)}`,
        { cause: err },
      );
    }
  }
}

/** A pooled connection failed before any byte of the answer: send again. */
class StaleConnection extends Error {}

/**
 * Open the connection. TCP through `Deno.connect`, which takes the signal
 * and gives a socket that can keep alive (so a peer that vanished without
 * a FIN is noticed by the kernel's probes); TLS is started on it, unless a
 * client certificate is needed: only `Deno.connectTls` presents one, and
 * it takes no signal, so it is raced against the signal instead.
 */
async function connect(
  hostname: string,
  port: number,
  https: boolean,
  signal: AbortSignal,
  tls: SocketTls,
): Promise<Deno.Conn> {
  const caCerts = tls.caData ? [tls.caData] : undefined;
  const alpnProtocols = ["http/1.1"];
  if (https && tls.clientCert) {
    return await unlessAborted(
      Deno.connectTls({
        hostname,
        port,
        caCerts,
        alpnProtocols,
        ...tls.clientCert,
      }),
      signal,
    );
  }
  const tcp = await Deno.connect({ hostname, port, signal });
  tcp.setKeepAlive(true);
  if (!https) return tcp;
  try {
    return await Deno.startTls(tcp, { hostname, caCerts, alpnProtocols });
  } catch (err) {
    try {
      tcp.close();
    } catch {
      // startTls took the connection over and released it.
    }
    throw err;
  }
}

/**
 * `connecting`, or a rejection with `signal.reason` as soon as the signal
 * aborts; a connection that arrives after that is closed at once.
 */
function unlessAborted<T extends Deno.Conn>(
  connecting: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    connecting.then((conn) => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) conn.close();
      else resolve(conn);
    }, (err) => {
      signal.removeEventListener("abort", onAbort);
      reject(err);
    });
  });
}

/**
 * A connection that is let go once: closed on abort, on cancel or at an
 * end it cannot be reused after, else given to `reuse`.
 */
class Socket {
  #conn: Deno.Conn;
  #signal: AbortSignal;
  #reuse: ((conn: Deno.Conn) => void) | undefined;
  /** The read the pool started on the idle connection, not yet consumed. */
  #idle: IdleConn | undefined;
  /** Bytes of that read that did not fit the first buffer. */
  #left: Uint8Array | undefined;
  #closed = false;
  #onAbort = () => this.close();
  /** Bytes read so far. */
  bytesRead = 0;

  constructor(
    conn: Deno.Conn,
    signal: AbortSignal,
    reuse?: (conn: Deno.Conn) => void,
    idle?: IdleConn,
  ) {
    this.#conn = conn;
    this.#signal = signal;
    this.#reuse = reuse;
    this.#idle = idle;
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  async write(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) {
      off += await this.#conn.write(bytes.subarray(off));
    }
  }

  /** Read into `buf`; null at the end of the stream. */
  async read(buf: Uint8Array): Promise<number | null> {
    if (this.#idle !== undefined) {
      // A read is already pending on this connection: its bytes come first.
      const idle = this.#idle;
      this.#idle = undefined;
      const n = await idle.read;
      if (n === null) return null;
      this.#left = idle.buf.subarray(0, n);
    }
    let n: number | null;
    if (this.#left !== undefined) {
      n = Math.min(buf.length, this.#left.length);
      buf.set(this.#left.subarray(0, n));
      this.#left = n < this.#left.length ? this.#left.subarray(n) : undefined;
    } else {
      n = await this.#conn.read(buf);
    }
    if (n !== null) this.bytesRead += n;
    return n;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The answer is over: give the connection for reuse when `reusable`
   * (its body ended by its framing, nothing after it, no `Connection:
   * close`), nothing aborted it and no byte read is left over, else close
   * it.
   */
  done(reusable: boolean): void {
    if (
      !reusable || this.#reuse === undefined || this.#closed ||
      this.#signal.aborted || this.#left !== undefined
    ) {
      this.close();
      return;
    }
    this.#closed = true;
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#reuse(this.#conn);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal.removeEventListener("abort", this.#onAbort);
    closeConn(this.#conn);
  }
}

interface Head {
  status: number;
  statusText: string;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

/** A header field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HTTP1 = "HTTP/1.";

/**
 * Read the status line and headers; the body framing follows from them.
 * `gzip`: a gzip content coding is accepted and decoded.
 */
async function readHead(socket: Socket, gzip: boolean): Promise<Head> {
  let buf = new Uint8Array(READ_SIZE);
  let len = 0;
  for (;;) {
    // 1xx answers (100 Continue, 103 Early Hints) precede the real one;
    // skip them.
    let end: number;
    while ((end = headEnd(buf, len)) < 0) {
      expectHttp1(buf, len);
      if (len === buf.length) {
        if (buf.length >= MAX_HEAD) {
          throw new ProtocolError(`a head longer than ${MAX_HEAD} bytes`);
        }
        const bigger = new Uint8Array(buf.length * 2);
        bigger.set(buf);
        buf = bigger;
      }
      const n = await socket.read(buf.subarray(len));
      if (n === null) {
        throw new ProtocolError(
          len === 0
            ? "the connection closed before an answer"
            : "the connection closed in the middle of the head",
        );
      }
      len += n;
    }
    // ISO-8859-1 byte for byte (TextDecoder's "latin1" is windows-1252,
    // which maps 0x80-0x9F above U+00FF, and Headers refuses those).
    const lines = latin1(buf, 0, end).split("\r\n");
    const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]);
    if (!m) {
      throw new ProtocolError(
        `not an HTTP/1.x status line: ${JSON.stringify(lines[0].slice(0, 40))}`,
      );
    }
    const status = Number(m[2]);
    if (status === 101) {
      // Nothing asked to switch protocols: what follows is not HTTP/1.1.
      throw new ProtocolError(
        "101 Switching Protocols, but no upgrade was asked for",
      );
    }
    const rest = buf.slice(end + 4, len);
    if (status < 200) {
      buf.set(rest);
      len = rest.length;
      continue;
    }
    const headers = new Headers();
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      // An obs-fold continuation, or a space before the colon, could make
      // this reader and a proxy see different framing: refuse both.
      const colon = line.indexOf(":");
      const name = line.slice(0, colon);
      if (colon <= 0 || !TOKEN.test(name)) {
        throw new ProtocolError(
          `a malformed header line ${JSON.stringify(line.slice(0, 40))}`,
        );
      }
      headers.append(
        name,
        line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, ""),
      );
    }
    const ce = headers.get("content-encoding")?.trim().toLowerCase();
    const gzipped = gzip && ce === "gzip";
    if (ce !== undefined && ce !== "" && ce !== "identity" && !gzipped) {
      // Nothing else was asked for (Accept-Encoding names gzip at most);
      // decoding it as text would fail later as invalid UTF-8.
      throw new ProtocolError(
        `a content-encoding of ${
          JSON.stringify(headers.get("content-encoding"))
        }; only ${gzip ? "gzip and " : ""}identity ${gzip ? "are" : "is"} read`,
      );
    }
    // HTTP/1.1 keeps the connection open unless either side says close.
    const keepAlive = m[1] === "1" &&
      !(headers.get("connection") ?? "").split(",").some((t) =>
        t.trim().toLowerCase() === "close"
      );
    // Statuses that carry no body (Response refuses one for them).
    if (status === 204 || status === 205 || status === 304) {
      socket.done(keepAlive && rest.length === 0);
      return { status, statusText: m[3] ?? "", headers, body: null };
    }
    const te = headers.get("transfer-encoding");
    const cl = headers.get("content-length");
    let framing: Framing;
    if (te !== null) {
      // Exactly one chunked: another coding under it (gzip, chunked) would
      // pass undecoded, and chunked twice is forbidden (RFC 9112 6.1).
      if (te.trim().toLowerCase() !== "chunked") {
        throw new ProtocolError(
          `a transfer-encoding of ${JSON.stringify(te)}; only chunked is read`,
        );
      }
      framing = new Chunked();
    } else if (cl !== null) {
      const n = Number(cl);
      if (!/^\d+$/.test(cl.trim()) || !Number.isSafeInteger(n)) {
        throw new ProtocolError(`a content-length of ${JSON.stringify(cl)}`);
      }
      framing = new Sized(n);
    } else {
      framing = new UntilClose();
    }
    const body = bodyStream(socket, framing, rest, keepAlive);
    return {
      status,
      statusText: m[3] ?? "",
      headers,
      body: gzipped ? gunzip(body) : body,
    };
  }
}

/**
 * Compressed bytes handed to the decompressor at a time. It returns all
 * the output of what it is given as one chunk, and deflate reaches about
 * 1000:1: a 64 KiB read (plain HTTP) of a gzip bomb would be one 64 MiB
 * chunk, where 16 KiB make at most 16 MiB (a list compresses about 10:1,
 * so its chunks stay near 160 KB).
 */
const GZIP_SLICE = 16 * 1024;

/**
 * `body` decoded from gzip by the platform's DecompressionStream, fed
 * {@link GZIP_SLICE} bytes at a time. A gzip stream that is truncated,
 * corrupt or followed by other bytes fails the stream with a TypeError
 * that says so; an error of `body` itself goes on as it is.
 */
export function gunzip(
  body: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const source = body.getReader();
  let bodyError: { err: unknown } | undefined;
  const slices = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await source.read();
      } catch (err) {
        bodyError = { err };
        throw err;
      }
      if (read.done) return controller.close();
      const bytes = read.value;
      for (let at = 0; at < bytes.length; at += GZIP_SLICE) {
        controller.enqueue(bytes.subarray(at, at + GZIP_SLICE));
      }
    },
    cancel: (reason) => source.cancel(reason),
  }, { highWaterMark: 0 });
  const decoded = slices.pipeThrough(
    new DecompressionStream("gzip") as unknown as TransformStream<
      Uint8Array,
      Uint8Array
    >,
  ).getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const read = await decoded.read();
        if (read.done) controller.close();
        else controller.enqueue(read.value);
      } catch (err) {
        controller.error(
          bodyError !== undefined && err === bodyError.err
            ? err
            : new TypeError(
              `error decoding response body: not valid gzip: ${msg(err)}`,
              { cause: err },
            ),
        );
      }
    },
    cancel: (reason) => decoded.cancel(reason),
  }, { highWaterMark: 0 });
}

/**
 * Throw as soon as the first bytes of `buf[0, len)` cannot begin an
 * HTTP/1.x answer (an HTTP/2 frame, a TLS alert, garbage), instead of
 * waiting for a CRLFCRLF that may never come.
 */
function expectHttp1(buf: Uint8Array, len: number): void {
  const n = Math.min(len, HTTP1.length);
  for (let i = 0; i < n; i++) {
    if (buf[i] !== HTTP1.charCodeAt(i)) {
      throw new ProtocolError(
        `not an HTTP/1.x answer: ${
          JSON.stringify(latin1(buf, 0, Math.min(len, 16)))
        }`,
      );
    }
  }
}

/** Index of the CRLFCRLF that ends the head in `buf[0, len)`, or -1. */
function headEnd(buf: Uint8Array, len: number): number {
  for (
    let i = buf.indexOf(CR);
    i >= 0 && i + 3 < len;
    i = buf.indexOf(CR, i + 1)
  ) {
    if (buf[i + 1] === LF && buf[i + 2] === CR && buf[i + 3] === LF) return i;
  }
  return -1;
}

/**
 * The body as a stream: each pull reads the socket once (more only when a
 * read held framing alone) and enqueues all of its payload as one chunk.
 * At the end the framing gives, the connection is reused when `keepAlive`
 * and nothing followed the body.
 */
function bodyStream(
  socket: Socket,
  framing: Framing,
  first: Uint8Array,
  keepAlive: boolean,
): ReadableStream<Uint8Array> {
  const end = () => socket.done(keepAlive && framing.done && !framing.overrun);
  let pending: Uint8Array | undefined = first.length > 0 ? first : undefined;
  const buf = new Uint8Array(READ_SIZE);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          let bytes: Uint8Array;
          if (pending !== undefined) {
            bytes = pending;
            pending = undefined;
          } else {
            if (framing.done) break;
            const n = await socket.read(buf);
            if (n === null) {
              if (framing.endsAtClose) break;
              throw new Error("the connection closed before the body ended");
            }
            bytes = buf.subarray(0, n);
          }
          const out = framing.payload(bytes);
          if (out.length > 0) {
            controller.enqueue(out);
            if (framing.done) {
              end();
              controller.close();
            }
            return;
          }
        }
        end();
        controller.close();
      } catch (err) {
        socket.close();
        // fetch's words, whatever went wrong (the detail is the cause):
        // one error for a broken body, whichever transport read it.
        controller.error(new TypeError(BODY_ERROR, { cause: err }));
      }
    },
    cancel() {
      socket.close();
    },
  }, { highWaterMark: 0 });
}

/** How the body's end is known: it yields the payload of each read. */
interface Framing {
  /** The payload bytes in `bytes` (a copy: the read buffer is reused). */
  payload(bytes: Uint8Array): Uint8Array;
  /** The whole body has been read. */
  readonly done: boolean;
  /** The body ends where the connection does. */
  readonly endsAtClose: boolean;
  /** Bytes came after the body's end (the connection cannot be reused). */
  readonly overrun: boolean;
}

/** A body of `Content-Length` bytes. */
class Sized implements Framing {
  #left: number;
  readonly endsAtClose = false;
  overrun = false;
  constructor(n: number) {
    this.#left = n;
  }
  get done(): boolean {
    return this.#left === 0;
  }
  payload(bytes: Uint8Array): Uint8Array {
    const n = Math.min(this.#left, bytes.length);
    if (n < bytes.length) this.overrun = true;
    this.#left -= n;
    return bytes.slice(0, n);
  }
}

/** A body that ends when the server closes the connection. */
class UntilClose implements Framing {
  readonly done = false;
  readonly endsAtClose = true;
  readonly overrun = false;
  payload(bytes: Uint8Array): Uint8Array {
    return bytes.slice();
  }
}

/**
 * `Transfer-Encoding: chunked`, decoded incrementally: a size line, a
 * chunk's data, its CRLF or the trailers may each be split across reads.
 */
export class Chunked implements Framing {
  readonly endsAtClose = false;
  overrun = false;
  /** size: reading a size line; data: `#left` bytes of data; crlf: the CRLF after data; trailer: lines until an empty one. */
  #state: "size" | "data" | "crlf" | "trailer" | "end" = "size";
  #left = 0;
  /** A size or trailer line read so far (they are short). */
  #line = "";
  #crlfSeen = 0;

  get done(): boolean {
    return this.#state === "end";
  }

  payload(bytes: Uint8Array): Uint8Array {
    const parts: Uint8Array[] = [];
    let total = 0;
    let i = 0;
    const n = bytes.length;
    while (i < n && this.#state !== "end") {
      switch (this.#state) {
        case "data": {
          const take = Math.min(this.#left, n - i);
          parts.push(bytes.subarray(i, i + take));
          total += take;
          i += take;
          this.#left -= take;
          if (this.#left === 0) {
            this.#state = "crlf";
            this.#crlfSeen = 0;
          }
          break;
        }
        case "crlf": {
          const want = this.#crlfSeen === 0 ? CR : LF;
          if (bytes[i] !== want) {
            throw new Error("a chunk does not end with CRLF");
          }
          i++;
          if (++this.#crlfSeen === 2) this.#state = "size";
          break;
        }
        case "size":
        case "trailer": {
          const nl = bytes.indexOf(LF, i);
          const end = nl < 0 ? n : nl;
          this.#line += latin1(bytes, i, end);
          if (this.#line.length > 4096) {
            throw new Error("a chunk size line is too long");
          }
          i = end;
          if (nl < 0) break;
          i++; // the LF
          const line = this.#line.endsWith("\r")
            ? this.#line.slice(0, -1)
            : this.#line;
          this.#line = "";
          if (this.#state === "trailer") {
            if (line === "") this.#state = "end";
            break;
          }
          // Chunk extensions (";name=value") carry nothing for us.
          const hex = line.split(";", 1)[0].trim();
          // Leading zeros carry nothing; 12 significant hex digits stay
          // within a safe integer (the body is streamed, never held).
          if (
            !/^[0-9a-fA-F]+$/.test(hex) || hex.replace(/^0+/, "").length > 12
          ) {
            throw new Error(
              `a chunk size of ${JSON.stringify(hex.slice(0, 20))}`,
            );
          }
          const size = parseInt(hex, 16);
          if (size === 0) this.#state = "trailer";
          else {
            this.#left = size;
            this.#state = "data";
          }
          break;
        }
      }
    }
    if (i < n) this.overrun = true;
    if (parts.length === 1) return parts[0].slice();
    const out = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

function latin1(bytes: Uint8Array, from: number, to: number): string {
  let s = "";
  for (let i = from; i < to; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

function msg(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
