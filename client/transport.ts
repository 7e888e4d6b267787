/**
 * The transport half of `KubeClient` (client-go `transport` and the round
 * trippers under `rest.Request`): the `Deno.HttpClient` a `KubeConfig`
 * asks for ({@link createHttpClient}: CA, client certificate, proxy), and
 * {@link HttpTransport}, which sends one request and receives its answer:
 * the headers (Accept, User-Agent, credentials, impersonation), a non-2xx
 * answer as a `StatusError`, the idle timer of each call (headers, then
 * each gap between body chunks) that tells a late wake-up of the event
 * loop from a silent server, one `Deno.HttpClient` per client certificate
 * (an exec plugin's, or rotated certificate files), and lists and watches
 * read from a socket of the client's own with its idle connections. The
 * verbs, paths and options are in `rest.ts`. Internal: not exported from
 * `client/mod.ts`.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import { RequestTimeoutError, StatusError } from "../api/errors.ts";
import type { Authenticator } from "./auth.ts";
import { type KubeConfig, KubeConfigError, type TlsConfig } from "./config.ts";
import { explainConnectError } from "./connect_error.ts";
import { streamGet } from "./_http1_stream.ts";
import { ConnectionPool } from "./_connection_pool.ts";
import {
  envProxyApplies,
  ListWatchTransport,
  readableEnv,
} from "./_list_watch_transport.ts";
import { impersonationHeaders } from "./_impersonate.ts";
import { CertFiles } from "./_cert_files.ts";
import { warnOfExtraRoots } from "./_ca_roots.ts";
import { concat, parseJson } from "./list_decoder.ts";
import { DEFAULT_MAX_OBJECT_BYTES } from "./_json_limits.ts";

/**
 * Options of {@link createHttpClient}.
 *
 * @example A client certificate from elsewhere
 * ```ts
 * import { createHttpClient, type HttpClientOptions } from "./transport.ts";
 * import assert from "node:assert/strict";
 *
 * const opts: HttpClientOptions = {}; // or { clientCert: { cert, key }, proxyUrl }
 * const client = createHttpClient({ insecureSkipTlsVerify: false }, opts);
 * assert.ok(client instanceof Deno.HttpClient);
 * client.close();
 * ```
 */
export interface HttpClientOptions {
  /** A client certificate overriding the config's (one an exec plugin issued). */
  clientCert?: { cert: string; key: string };
  /** The config's `proxyUrl` (a kubeconfig `proxy-url`). */
  proxyUrl?: string;
}

/**
 * Create the `Deno.HttpClient` for a config: its CA (added to the system
 * roots), client certificate, and `proxy-url` (http and https proxies,
 * HTTP CONNECT for https servers, basic auth from the URL's user info;
 * `socks5://` resolves host names at the proxy, as Go's SOCKS5 dialer
 * does).
 * @param tls the TLS settings
 * @param opts a client certificate overriding the config's, the proxy URL
 * @returns a new client; the caller closes it
 *
 * @example Through a proxy
 * ```ts
 * import { KubeConfig } from "@kubecache/core";
 * import { createHttpClient } from "./transport.ts";
 * import assert from "node:assert/strict";
 * const config = KubeConfig.fromOptions({
 *   server: "https://internal.example.test:6443",
 *   proxyUrl: "http://127.0.0.1:3128",
 * });
 * using client = createHttpClient(config.tls, { proxyUrl: config.proxyUrl });
 * assert.ok(client instanceof Deno.HttpClient);
 * ```
 */
export function createHttpClient(
  tls: TlsConfig,
  opts: HttpClientOptions = {},
): Deno.HttpClient {
  const cert = opts.clientCert ??
    (tls.certData && tls.keyData
      ? { cert: tls.certData, key: tls.keyData }
      : undefined);
  const options: Deno.CreateHttpClientOptions = {};
  if (tls.caData) options.caCerts = [tls.caData];
  if (opts.proxyUrl) options.proxy = proxyOf(opts.proxyUrl);
  return cert
    ? Deno.createHttpClient({ ...options, cert: cert.cert, key: cert.key })
    : Deno.createHttpClient(options);
}

/** Deno's proxy settings for a kubeconfig `proxy-url`. */
function proxyOf(url: string): Deno.Proxy {
  // Go's SOCKS5 dialer sends the host name for the proxy to resolve (the
  // API server's name may only resolve there); Deno does so for socks5h.
  if (new URL(url).protocol === "socks5:") {
    return { transport: "socks5", url: `socks5h:${url.slice(7)}` };
  }
  // Deno sends the URL's user info as Proxy-Authorization itself.
  return { url };
}

/** What one request carries (`RawRequestOptions` and the list options fit). */
export interface SendOptions {
  /** Aborts the request; its reason is what the call throws. */
  signal?: AbortSignal;
  /** Idle time limit of this call in ms, overriding the transport's. */
  timeoutMs?: number;
  /** Query parameters. */
  query?: URLSearchParams;
  /** JSON-serialisable body. */
  body?: unknown;
  /** Content type of the body. Default `application/json`. */
  contentType?: string;
  /** `Accept` header. Default `application/json`. */
  accept?: string;
}

/** A 2xx answer whose body is still to be read. */
export interface Sent {
  /** The response; its body is unread. */
  response: Response;
  /** Stops the idle timer and detaches the caller's signal; call once the body is done. */
  release: () => void;
  /** Marks body data seen, so the idle timer restarts (once per chunk). */
  touch: () => void;
  /** Aborted by the caller's signal or the idle timeout (its reason says which). */
  signal: AbortSignal;
}

/** How a {@link HttpTransport} sends: its clock, limits, credentials. */
export interface HttpTransportOptions {
  /** Clock of the idle timer, Retry-After dates and certificate file checks. */
  clock: Clock;
  /** Default idle time limit in ms; 0 for none. */
  timeoutMs: number;
  /** Credentials of each request. */
  auth: Authenticator;
  /** `User-Agent` header. */
  userAgent: string;
  /** How a list or a watch is read: a socket of the client's own, or fetch. */
  listWatchTransport: "socket" | "fetch";
  /**
   * Send every request over a socket of the client's own, as a config
   * impersonating several groups does (the differential test of the two
   * transports sends every verb through each).
   */
  socketForEveryRequest?: boolean;
  /**
   * Told about certificate files that cannot be read, and (once per
   * process) that the config's CA is trusted beside Deno's root store.
   * Default `console.warn`.
   */
  onWarning?: (message: string) => void;
  /** Told of each request once its response (or failure) is in. */
  observe?: RequestObserver;
  /**
   * The longest error answer body read, in bytes (the client's
   * `maxObjectBytes`; a Status is one object). Default 16 MiB.
   */
  maxObjectBytes?: number;
}

/**
 * Hears of one request once its response is in: its method, path, status
 * code (`"<error>"` when it failed before one) and when it was sent
 * (`clock.now()`).
 */
export type RequestObserver = (
  method: string,
  path: string,
  code: string,
  sentAt: number,
) => void;

/** Sends requests to one server, and owns every `Deno.HttpClient` it made. */
export class HttpTransport {
  #config: KubeConfig;
  #auth: Authenticator;
  #clock: Clock;
  #timeoutMs: number;
  #userAgent: string;
  #http: Deno.HttpClient;
  #httpCert: { cert: string; key: string } | undefined;
  /**
   * Every HTTP client made (a new exec certificate or a rotated certificate
   * file makes a new one) with its requests in flight. One that is no longer
   * current is closed when its last request ends (a watch may still use
   * it); close() closes all.
   */
  #clients = new Map<Deno.HttpClient, number>();
  /** The config's client certificate files, re-read when they change. */
  #certFiles: CertFiles | undefined;
  #closed = false;
  /** Told of each request once its response (or failure) is in. */
  #observe: RequestObserver | undefined;
  /** The longest error answer body read, in bytes. */
  #maxErrorBytes: number;
  #listWatch: ListWatchTransport;
  /** Idle connections of socket GETs, closed by close(). */
  #pool: ConnectionPool;
  /** The config's `Impersonate-*` headers, sent with every request. */
  #impersonation: [string, string][];
  /**
   * Set when a header name repeats (several groups, or several values of
   * an extra key): `fetch` would join them into one line, which the API
   * server reads as one value, so every request then goes over a socket of
   * its own that writes one line per value.
   */
  #impersonationRepeats: boolean;
  /** Every request goes over a socket of its own (see the options). */
  #socketForEveryRequest: boolean;

  /**
   * Create a transport.
   * @param config the server, its TLS settings, impersonation
   * @param opts clock, timeout, credentials, user agent, how lists and
   * watches are read
   * @throws {KubeConfigError} when the config impersonates several groups
   * or extra values through a `proxyUrl` or a proxy of the environment
   */
  constructor(config: KubeConfig, opts: HttpTransportOptions) {
    this.#config = config;
    this.#clock = opts.clock;
    this.#pool = new ConnectionPool(opts.clock);
    this.#timeoutMs = opts.timeoutMs;
    this.#auth = opts.auth;
    this.#userAgent = opts.userAgent;
    this.#impersonation = impersonationHeaders(config.impersonate);
    this.#impersonationRepeats =
      new Set(this.#impersonation.map(([name]) => name)).size <
        this.#impersonation.length;
    this.#socketForEveryRequest = this.#impersonationRepeats ||
      opts.socketForEveryRequest === true;
    if (this.#impersonationRepeats) {
      // Such requests go over a socket of their own, which knows no proxy.
      const env = readableEnv();
      const via = config.proxyUrl
        ? "a proxy-url"
        : env !== null && envProxyApplies(new URL(config.server), env)
        ? "a proxy of the environment (HTTPS_PROXY, HTTP_PROXY or ALL_PROXY; exempt the server with NO_PROXY)"
        : undefined;
      if (via !== undefined) {
        throw new KubeConfigError(
          `Cannot impersonate several groups or extra values through ${via}: Deno's fetch joins repeated headers into one, which the API server reads as one group or value`,
        );
      }
    }
    warnOfExtraRoots(
      config.server,
      config.tls,
      opts.onWarning ?? ((m) => console.warn(m)),
    );
    this.#observe = opts.observe;
    this.#maxErrorBytes = opts.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    this.#listWatch = new ListWatchTransport(
      config.server,
      opts.listWatchTransport === "socket" && !config.proxyUrl,
    );
    this.#http = createHttpClient(config.tls, { proxyUrl: config.proxyUrl });
    this.#clients.set(this.#http, 0);
    const { certFile, keyFile, certData, keyData } = config.tls;
    if (certFile && keyFile) {
      this.#certFiles = new CertFiles({
        certFile,
        keyFile,
        initial: certData && keyData
          ? { cert: certData, key: keyData }
          : undefined,
      }, {
        clock: this.#clock,
        onWarning: opts.onWarning ?? ((m) => console.warn(m)),
      });
      this.#httpCert = certData && keyData
        ? { cert: certData, key: keyData }
        : undefined;
    }
  }

  /** Release the HTTP client(s); later sends throw. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const c of this.#clients.keys()) c.close();
    this.#clients.clear();
    this.#pool.close();
  }

  /** The config's own client certificate, if it has one. */
  #configCert(): { cert: string; key: string } | undefined {
    const { certData, keyData } = this.#config.tls;
    return certData && keyData ? { cert: certData, key: keyData } : undefined;
  }

  /**
   * The HTTP client for a request presenting `cert` (undefined: the
   * current one), counted as in use until `done` is called.
   */
  #client(
    cert: { cert: string; key: string } | undefined,
  ): { http: Deno.HttpClient; done: () => void } {
    if (
      cert !== undefined && (this.#httpCert?.cert !== cert.cert ||
        this.#httpCert.key !== cert.key)
    ) {
      // A new certificate (an exec plugin's, or rotated files) needs a new
      // TLS client; the old one is closed once its last request (maybe a
      // long watch) ends.
      const old = this.#http;
      this.#http = createHttpClient(this.#config.tls, {
        clientCert: cert,
        proxyUrl: this.#config.proxyUrl,
      });
      this.#httpCert = cert;
      this.#clients.set(this.#http, 0);
      if (this.#clients.get(old) === 0) {
        this.#clients.delete(old);
        old.close();
      }
    }
    const http = this.#http;
    this.#clients.set(http, (this.#clients.get(http) ?? 0) + 1);
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      const n = (this.#clients.get(http) ?? 1) - 1;
      if (n > 0 || http === this.#http) {
        if (this.#clients.has(http)) this.#clients.set(http, n);
      } else if (this.#clients.delete(http)) http.close();
    };
    return { http, done };
  }

  /**
   * Send one request and decode its whole body with `decode`, which calls
   * `onChunk` for each chunk so the idle timeout restarts. `kind` "list"
   * reads a GET's answer as a list is read (see {@link send}).
   */
  async receive(
    method: string,
    path: string,
    opts: SendOptions,
    decode: BodyDecoder,
    kind: "request" | "list" = "request",
  ): Promise<unknown> {
    const sent = await this.send(method, path, opts, kind);
    const { response, release, touch, signal } = sent;
    try {
      const body = response.body ?? new Blob().stream();
      return await decode(body, `the response to ${method} ${path}`, touch);
    } catch (err) {
      // A read cut by the timeout or the caller's signal reports why.
      if (signal.aborted) throw signal.reason;
      throw err;
    } finally {
      release();
    }
  }

  /**
   * Send one request. Resolves with a 2xx response and a `release` that
   * must be called when its body is done (it stops the timer and detaches
   * the caller's signal); throws a StatusError for anything else. The
   * timeout bounds the wait for the headers, then (not for a watch) each
   * wait for body data: the reader calls `touch` per chunk. A GET of
   * `kind` "list" or "watch" reads its answer over a socket of the
   * client's own when {@link ListWatchTransport} allows.
   */
  async send(
    method: string,
    path: string,
    opts: SendOptions,
    kind: "request" | "list" | "watch",
  ): Promise<Sent> {
    if (this.#closed) {
      throw new TypeError("Cannot send a request: KubeClient is closed");
    }
    const what = `${method} ${path}`;
    const { signal } = opts;
    signal?.throwIfAborted();
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = new AbortController();
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    const clock = this.#clock;
    let lastData = clock.now();
    // Per chunk only a timestamp: the one timer re-arms when it finds data.
    const touch = () => (lastData = clock.now());
    if (timeoutMs > 0) {
      idleTimer(clock, timeoutMs, () => lastData, timer.signal).then(
        () => ctrl.abort(new RequestTimeoutError(what, timeoutMs)),
        () => {},
      );
    }
    const stopTimer = () => timer.abort();
    let clientDone = () => {};
    const release = () => {
      stopTimer();
      signal?.removeEventListener("abort", onAbort);
      clientDone();
    };
    try {
      const creds = await this.#auth.credentials(ctrl.signal);
      ctrl.signal.throwIfAborted();
      const headers = new Headers({
        Accept: opts.accept ?? "application/json",
        "User-Agent": this.#userAgent,
        // gzip alone, on every request whichever transport carries it, as
        // Go's transport asks for it under client-go: an API server gzips
        // an answer over 128 KB (a list; never a watch), and fetch left to
        // itself would also offer br, which the socket does not read.
        "Accept-Encoding": "gzip",
      });
      if (creds.authorization) {
        headers.set("Authorization", creds.authorization);
      }
      let body: string | undefined;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers.set("Content-Type", opts.contentType ?? "application/json");
      }
      const query = opts.query?.toString();
      const url = `${this.#config.server}${path}${query ? `?${query}` : ""}`;
      const cert = creds.clientCert ??
        (this.#certFiles ? await this.#certFiles.current() : undefined);
      ctrl.signal.throwIfAborted();
      let response: Response;
      const sentAt = clock.now();
      try {
        const tls = {
          caData: this.#config.tls.caData,
          clientCert: cert ?? this.#configCert(),
        };
        // Impersonation goes as header lines, one per value: the socket
        // writes them so; fetch gets them appended to its Headers (never
        // with a name repeated: such a config sends over the socket only).
        const headerLines = this.#impersonation;
        const viaFetch = () => {
          const client = this.#client(cert);
          clientDone = client.done;
          const all = new Headers(headers);
          for (const [name, value] of headerLines) all.append(name, value);
          return fetch(url, {
            method,
            headers: all,
            body,
            signal: ctrl.signal,
            client: client.http,
            // The socket follows none either: see redirectRefused.
            redirect: "manual",
          });
        };
        if (this.#socketForEveryRequest) {
          response = await streamGet(url, headers, ctrl.signal, tls, {
            method,
            body,
            headerLines,
            pool: this.#pool,
          });
        } else if (
          kind !== "request" && method === "GET" && this.#listWatch.socket
        ) {
          // A list or a watch reads its socket directly: up to 64 KiB per
          // read (one TLS record over TLS), where fetch hands over one HTTP
          // chunk (one watch event) per read, each a promise and a stream
          // round. Through a proxy, fetch knows the way.
          response = await this.#listWatch.get(
            url,
            headers,
            ctrl.signal,
            tls,
            { pool: this.#pool, headerLines },
            viaFetch,
          );
        } else {
          response = await viaFetch();
        }
      } catch (err) {
        this.#observe?.(method, path, "<error>", sentAt);
        throw explainConnectError(err, this.#config);
      }
      this.#observe?.(method, path, String(response.status), sentAt);
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => {});
        throw redirectRefused(what, response, this.#config.server);
      }
      if (!response.ok) {
        const text = await readPrefix(response.body, this.#maxErrorBytes);
        if (response.status === 401) this.#auth.unauthorized();
        throw StatusError.fromResponse(response.status, text, {
          retryAfter: response.headers.get("Retry-After"),
          now: this.#clock.now(),
        });
      }
      // A watch stream outlives the request timeout.
      if (kind === "watch") stopTimer();
      touch();
      return { response, release, touch, signal: ctrl.signal };
    } catch (err) {
      release();
      // fetch rejects with the signal's reason; make sure the timeout shows.
      if (ctrl.signal.aborted && !(err instanceof StatusError)) {
        throw ctrl.signal.reason;
      }
      throw err;
    }
  }
}

/**
 * The error for a redirect, which no request follows, whichever transport
 * carried it: a `StatusError` with the 3xx code, reason `Redirect` and a
 * message naming where it pointed. client-go follows up to ten through
 * Go's `http.Client`, but its credentials are added by round trippers
 * under that client, so a bearer token and the client certificate go to
 * wherever the redirect points, another host included (the class of
 * CVE-2022-3172, an aggregated API server sending clients elsewhere), and
 * a 301, 302 or 303 turns a POST, PUT or PATCH into a GET without its
 * body: a create that silently becomes a read. An API server never
 * redirects the requests this client sends; a redirect comes from
 * something between the two, and the place to fix is the kubeconfig's
 * `server`.
 */
function redirectRefused(
  what: string,
  response: Response,
  server: string,
): StatusError {
  const location = response.headers.get("Location");
  let to = "nowhere (no Location)";
  if (location !== null) {
    try {
      to = new URL(location, server).href;
    } catch {
      to = JSON.stringify(location.slice(0, 200));
    }
  }
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: response.status,
    reason: "Redirect",
    message:
      `The server answered ${what} with a redirect (${response.status}) to ${to}; redirects are not followed (credentials would go where it points, and a write could turn into a read): set the kubeconfig's server to where the API server answers`,
  });
}

/** Decodes a response body; calls `onChunk` per chunk; `what` names it in errors. */
export type BodyDecoder = (
  body: ReadableStream<Uint8Array>,
  what: string,
  onChunk: () => void,
) => Promise<unknown>;

/**
 * The first `max` bytes of a body as text, the rest not read (the body is
 * cancelled): an error answer is read for its Status, and one that never
 * ends, or a small gzip answer that decompresses to gigabytes, must not
 * hold the process's memory.
 */
async function readPrefix(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<string> {
  if (body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    while (size < max) {
      const read = await reader.read();
      if (read.done) break;
      const part = read.value.subarray(0, max - size);
      chunks.push(part);
      size += part.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(concat(chunks, size));
}

/** Read a whole body and parse it as JSON. */
export async function readJson(
  body: ReadableStream<Uint8Array>,
  what: string,
  onChunk: () => void,
  maxDepth: number,
): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    onChunk();
    chunks.push(chunk);
    size += chunk.length;
  }
  return parseJson(concat(chunks, size), what, maxDepth);
}

/**
 * Resolve once `lastData()` is `ms` or more in the past; reject when
 * `signal` aborts. Sleeps until the earliest moment that can be true, so
 * a steady stream costs one timer per `ms`, not one per chunk. A timer
 * that wakes late (the event loop was busy) starts a new window instead
 * of timing out a call whose answer may already be waiting.
 */
async function idleTimer(
  clock: Clock,
  ms: number,
  lastData: () => number,
  signal: AbortSignal,
): Promise<void> {
  let wait = ms;
  for (;;) {
    const due = clock.now() + wait;
    await clock.sleep(wait, signal);
    const now = clock.now();
    const idle = now - lastData();
    if (idle < ms) {
      wait = ms - idle;
    } else if (now - due > LATE_WAKE_MS) {
      // Woken late: synchronous work (a long burst of handlers or store
      // writes) held the event loop, so data may be waiting behind this
      // timer, unread. Idle time counts only while data could be seen:
      // measure a fresh window from now.
      wait = ms;
    } else {
      return;
    }
  }
}

/** A timer firing this much (ms) after its due time means the loop was held. */
const LATE_WAKE_MS = 50;
