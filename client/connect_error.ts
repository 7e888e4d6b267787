/**
 * What a `fetch` failure to connect means, in one line: the reason
 * (refused, TLS, DNS, reset), and for a kubeconfig setting Deno cannot
 * apply, what to do, so every program (not only the CLI) says it. Internal
 * (not exported from a `mod.ts`); the CLI shares its wording.
 *
 * @module
 */

import type { KubeConfig } from "./config.ts";

/**
 * `err` as thrown by `fetch` for `config`, described when it is a failure
 * to connect: a `TypeError` (the class `fetch` throws) with `err` as its
 * `cause` and a one-line message, `Cannot reach the API server at
 * <server>: connection refused` (refused, TLS handshake failed, host name
 * not found, connection reset), or, when it is a certificate failure and
 * the config sets `insecure-skip-tls-verify` (from a kubeconfig or a
 * flag), one that names the setting and the process flag that applies it.
 * Other errors are returned as they are.
 */
export function explainConnectError(err: unknown, config: KubeConfig): unknown {
  if (!isConnectError(err)) return err;
  if (
    !config.tls.insecureSkipTlsVerify ||
    !/certificate|tls|ssl|handshake/i.test(messages(err))
  ) {
    // fetch's own "TypeError: fetch failed" says nothing; the detail is
    // two causes down. One line, as the informer and the CLI word it.
    return new TypeError(
      `Cannot reach the API server at ${config.server}: ${
        connectReason(messages(err))
      }`,
      { cause: err },
    );
  }
  let host = "<host>";
  try {
    host = new URL(config.server).hostname.replace(/^\[|\]$/g, "");
  } catch {
    // The config checked the URL; keep the placeholder anyway.
  }
  return new TypeError(
    `Cannot verify the certificate of the API server at ${config.server}: ` +
      `insecure-skip-tls-verify is set, which Deno cannot apply ` +
      `per client; run deno with --unsafely-ignore-certificate-errors=${host}`,
    { cause: err },
  );
}

/** The messages of an error and its causes (fetch puts the detail in `cause`). */
function messages(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, i = 0; e instanceof Error && i < 5; e = e.cause, i++) {
    parts.push(e.message);
  }
  return parts.join(" ");
}

/** Whether `err` is fetch failing to connect (refused, DNS, TLS, reset). */
export function isConnectError(err: unknown): boolean {
  return err instanceof TypeError &&
    /fetch failed|error sending request|connect|dns|certificate|tls|refused|reset/i
      .test(messages(err));
}

/** The reason for a failed connection, in a few words, from fetch's messages. */
export function connectReason(message: string): string {
  if (/refused/i.test(message)) return "connection refused";
  // Before DNS: certificate errors name the certificate's `DnsName(...)`.
  if (/certificate|tls|ssl/i.test(message)) return "TLS handshake failed";
  if (/dns|lookup|resolve/i.test(message)) return "host name not found";
  if (/reset/i.test(message)) return "connection reset";
  // fetch's words and the socket's for a server that closed the
  // connection before its answer's head was complete.
  if (
    /closed before message completed|closed before an answer|closed in the middle of the head/i
      .test(message)
  ) {
    return "the connection closed before an answer";
  }
  return message.trim();
}
