/**
 * A streaming GET over a socket of its own, speaking HTTP/1.1: the watch
 * transport. `fetch` hands a response body over one HTTP chunk per read,
 * and an API server flushes each watch event as its own chunk, so a watch
 * over `fetch` costs a read promise, a stream round and a decode per event
 * even when the socket holds hundreds of them. Here each read takes what
 * the socket has (up to 64 KiB), strips the chunked framing and hands the
 * payload on as one piece, so a backlog is decoded in one pass while a
 * lone event still goes on as soon as it arrives. Internal module;
 * `KubeClient` uses it for watches without a proxy.
 *
 * @module
 */

/** What a socket needs beyond the URL: the cluster's CA and a client certificate. */
export interface SocketTls {
  /** PEM of the CA to trust besides the system roots. */
  caData?: string;
  /** PEM client certificate and key. */
  clientCert?: { cert: string; key: string };
}

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
 * Send `GET url` with `headers` on a new connection and resolve with the
 * response once its head has arrived; the body streams each socket read's
 * payload as one chunk. Aborting `signal` (before or after the head) closes
 * the connection; so does cancelling the body or reading it to its end.
 * Rejects like `fetch`: a TypeError when the connection fails or the answer
 * is not HTTP/1.x, `signal.reason` on abort.
 *
 * `request` makes it another method with a body, and adds header lines
 * sent one per value (`Headers` joins repeated names with ", ", which a Go
 * server reads as one value: several `Impersonate-Group` lines must stay
 * lines).
 */
export async function streamGet(
  url: string,
  headers: Headers,
  signal: AbortSignal,
  tls: SocketTls,
  request: {
    method?: string;
    body?: string;
    headerLines?: readonly (readonly [string, string])[];
  } = {},
): Promise<Response> {
  signal.throwIfAborted();
  const u = new URL(url);
  const https = u.protocol === "https:";
  // URL keeps an IPv6 literal's brackets; connect wants the address alone.
  const hostname = u.hostname.startsWith("[")
    ? u.hostname.slice(1, -1)
    : u.hostname;
  const port = Number(u.port || (https ? 443 : 80));
  let conn: Deno.Conn;
  try {
    conn = https
      ? await Deno.connectTls({
        hostname,
        port,
        caCerts: tls.caData ? [tls.caData] : undefined,
        alpnProtocols: ["http/1.1"],
        ...(tls.clientCert ?? {}),
      })
      : await Deno.connect({ hostname, port, signal });
  } catch (err) {
    signal.throwIfAborted();
    throw new TypeError(`error sending request for url (${url}): ${msg(err)}`, {
      cause: err,
    });
  }
  const socket = new Socket(conn, signal);
  try {
    signal.throwIfAborted();
    const method = request.method ?? "GET";
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
    const res = await readHead(socket);
    return new Response(res.body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  } catch (err) {
    socket.close();
    signal.throwIfAborted();
    if (err instanceof TypeError) throw err;
    throw new TypeError(
      `error sending request for url (${url}): ${msg(err)}`,
      { cause: err },
    );
  }
}

/** A connection that closes once, on abort, on cancel or at the body's end. */
class Socket {
  #conn: Deno.Conn;
  #signal: AbortSignal;
  #closed = false;
  #onAbort = () => this.close();

  constructor(conn: Deno.Conn, signal: AbortSignal) {
    this.#conn = conn;
    this.#signal = signal;
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  async write(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) {
      off += await this.#conn.write(bytes.subarray(off));
    }
  }

  /** Read into `buf`; null at the end of the stream. */
  read(buf: Uint8Array): Promise<number | null> {
    return this.#conn.read(buf);
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal.removeEventListener("abort", this.#onAbort);
    try {
      this.#conn.close();
    } catch {
      // Already closed by the peer's reset: nothing to release.
    }
  }
}

interface Head {
  status: number;
  statusText: string;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

/** Read the status line and headers; the body framing follows from them. */
async function readHead(socket: Socket): Promise<Head> {
  let buf = new Uint8Array(READ_SIZE);
  let len = 0;
  for (;;) {
    // 1xx answers (100 Continue) precede the real one; skip them.
    let end: number;
    while ((end = headEnd(buf, len)) < 0) {
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
    const text = new TextDecoder("latin1").decode(buf.subarray(0, end));
    const lines = text.split("\r\n");
    const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0]);
    if (!m) {
      throw new ProtocolError(
        `not an HTTP/1.x status line: ${JSON.stringify(lines[0].slice(0, 40))}`,
      );
    }
    const status = Number(m[1]);
    const rest = buf.slice(end + 4, len);
    if (status < 200) {
      buf.set(rest);
      len = rest.length;
      continue;
    }
    const headers = new Headers();
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(":");
      if (colon <= 0) throw new ProtocolError(`a malformed header line`);
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    // Statuses that carry no body (Response refuses one for them).
    if (status === 204 || status === 205 || status === 304) {
      socket.close();
      return { status, statusText: m[2] ?? "", headers, body: null };
    }
    const te = headers.get("transfer-encoding");
    const cl = headers.get("content-length");
    let framing: Framing;
    if (te !== null) {
      if (!/(^|,)\s*chunked\s*$/i.test(te)) {
        throw new ProtocolError(`an unsupported transfer-encoding ${te}`);
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
    return {
      status,
      statusText: m[2] ?? "",
      headers,
      body: bodyStream(socket, framing, rest),
    };
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
 */
function bodyStream(
  socket: Socket,
  framing: Framing,
  first: Uint8Array,
): ReadableStream<Uint8Array> {
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
              throw new TypeError(
                "error reading a body from connection: the connection closed before the body ended",
              );
            }
            bytes = buf.subarray(0, n);
          }
          const out = framing.payload(bytes);
          if (out.length > 0) {
            controller.enqueue(out);
            if (framing.done) {
              socket.close();
              controller.close();
            }
            return;
          }
        }
        socket.close();
        controller.close();
      } catch (err) {
        socket.close();
        controller.error(
          err instanceof TypeError ? err : new TypeError(
            `error reading a body from connection: ${msg(err)}`,
            {
              cause: err,
            },
          ),
        );
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
}

/** A body of `Content-Length` bytes. */
class Sized implements Framing {
  #left: number;
  readonly endsAtClose = false;
  constructor(n: number) {
    this.#left = n;
  }
  get done(): boolean {
    return this.#left === 0;
  }
  payload(bytes: Uint8Array): Uint8Array {
    const n = Math.min(this.#left, bytes.length);
    this.#left -= n;
    return bytes.slice(0, n);
  }
}

/** A body that ends when the server closes the connection. */
class UntilClose implements Framing {
  readonly done = false;
  readonly endsAtClose = true;
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
            throw new TypeError(
              "error reading a body from connection: a chunk does not end with CRLF",
            );
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
            throw new TypeError(
              "error reading a body from connection: a chunk size line is too long",
            );
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
          if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) {
            throw new TypeError(
              `error reading a body from connection: a chunk size of ${
                JSON.stringify(hex.slice(0, 20))
              }`,
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
