/**
 * The `Deno.HttpClient` a `KubeConfig` asks for (client-go
 * `transport.New`): its CA, client certificate and proxy.
 *
 * @module
 */

import type { TlsConfig } from "./config.ts";

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
