/**
 * Which transport a client's lists and watches take: its own HTTP/1.1
 * socket (`_http1_stream.ts`) or `fetch`, which alone knows proxies and
 * HTTP/2; and the proxy variables of the environment that `fetch` follows,
 * read by its rules. Internal module.
 *
 * @module
 */

import {
  Http1RefusedError,
  streamGet,
  type StreamRequest,
} from "./_http1_stream.ts";
import type { SocketTls } from "./_socket_tls.ts";

/**
 * A client's choice of transport for its lists and watches: its own socket
 * (see {@link streamGet}) or `fetch`. The socket is not used when the
 * cluster is reached through a proxy (the config's `proxyUrl`, or a proxy
 * variable of the environment that `fetch` would follow), nor once a
 * server answered that it speaks HTTP/2 only.
 */
export class ListWatchTransport {
  #socket: boolean;

  /**
   * @param server the API server's URL
   * @param socket whether the socket is wanted (`listWatchTransport:
   * "socket"` and no `proxyUrl`)
   * @param env reads an environment variable, or null when the
   * environment cannot be read; default {@link readableEnv}
   */
  constructor(
    server: string,
    socket: boolean,
    env: EnvReader | null = readableEnv(),
  ) {
    this.#socket = socket && !envProxyApplies(new URL(server), env);
  }

  /** Whether the next list or watch reads a socket of its own. */
  get socket(): boolean {
    return this.#socket;
  }

  /**
   * {@link streamGet}; when the server refuses HTTP/1.1 in the TLS
   * handshake, `viaFetch()` instead, and `fetch` from then on.
   */
  async get(
    url: string,
    headers: Headers,
    signal: AbortSignal,
    tls: SocketTls,
    request: StreamRequest,
    viaFetch: () => Promise<Response>,
  ): Promise<Response> {
    try {
      return await streamGet(url, headers, signal, tls, request);
    } catch (err) {
      if (!(err instanceof Http1RefusedError) || signal.aborted) throw err;
      this.#socket = false;
      return await viaFetch();
    }
  }
}

/** Reads an environment variable. */
type EnvReader = (name: string) => string | undefined;

/** The variables Deno's `fetch` reads to pick a proxy, in both cases. */
const PROXY_VARS = ["ALL_PROXY", "HTTPS_PROXY", "HTTP_PROXY"];
const NO_PROXY_VARS = ["NO_PROXY", "no_proxy"];

/**
 * `Deno.env.get` when every proxy variable may be read, else null.
 * Asked with `querySync`, so that no permission prompt appears: a program
 * without `--allow-env` cannot tell whether `fetch` uses a proxy.
 */
export function readableEnv(): EnvReader | null {
  const names = [
    ...PROXY_VARS.flatMap((n) => [n, n.toLowerCase()]),
    ...NO_PROXY_VARS,
  ];
  try {
    for (const variable of names) {
      const { state } = Deno.permissions.querySync({ name: "env", variable });
      if (state !== "granted") return null;
    }
  } catch {
    return null;
  }
  return (name) => Deno.env.get(name);
}

/**
 * Whether `fetch` may go through a proxy for `url`: a proxy variable is set
 * (any of them, for any scheme: a wrong guess costs only the faster reads)
 * and `NO_PROXY` (else `no_proxy`) does not exempt the host by Deno's rules:
 * comma-separated entries; `*`; a domain, with or without a leading dot,
 * matching itself and its subdomains; an IPv4 address or CIDR block; an
 * IPv6 address. An environment that cannot be read (`env` null) may.
 */
export function envProxyApplies(
  url: URL,
  env: EnvReader | null,
): boolean {
  if (env === null) return true;
  const set = PROXY_VARS.some((n) => env(n) || env(n.toLowerCase()));
  if (!set) return false;
  const list = env("NO_PROXY") ?? env("no_proxy") ?? "";
  return list === "" || !noProxyExempts(list, url.hostname);
}

function noProxyExempts(list: string, hostname: string): boolean {
  const entries = list.split(",").map((e) => e.trim());
  if (hostname.startsWith("[")) {
    // An IPv6 host matches an equal address (CIDR blocks are not read:
    // such a host keeps to fetch).
    return entries.some((e) => e.includes(":") && ipv6(e) === hostname);
  }
  const ip = ipv4(hostname);
  if (ip !== undefined) {
    return entries.some((e) => {
      const [addr, bits, extra] = e.split("/");
      const a = ipv4(addr);
      if (a === undefined || extra !== undefined) return false;
      if (bits === undefined) return a === ip;
      if (!/^(3[0-2]|[12]?\d)$/.test(bits)) return false;
      const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
      return ((a & mask) >>> 0) === ((ip & mask) >>> 0);
    });
  }
  const h = hostname;
  return entries.some((d) =>
    d === h || d === `.${h}` || d === "*" ||
    (h.endsWith(d) && (d.startsWith(".") || h[h.length - d.length - 1] === "."))
  );
}

/** A dotted-quad IPv4 address (no leading zeros) as a number, else undefined. */
function ipv4(s: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  let n = 0;
  for (const part of m.slice(1)) {
    if ((part.length > 1 && part[0] === "0") || Number(part) > 255) {
      return undefined;
    }
    n = n * 256 + Number(part);
  }
  return n;
}

/** An IPv6 address in the URL's canonical bracketed form, else undefined. */
function ipv6(s: string): string | undefined {
  try {
    return new URL(`http://[${s}]/`).hostname;
  } catch {
    return undefined;
  }
}
