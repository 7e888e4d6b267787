/**
 * Explanations for `fetch` failures that come from a kubeconfig setting
 * Deno cannot apply, so every program (not only the CLI) says what to do.
 *
 * @module
 */

import type { KubeConfig } from "./config.ts";

/**
 * `err` as thrown by `fetch` for `config`, or, when it is a certificate
 * failure and the config sets `insecure-skip-tls-verify` (from a kubeconfig
 * or a flag), a `TypeError`
 * (the class `fetch` throws) that names the setting and the process flag
 * that applies it, with `err` (and its certificate detail) as the `cause`.
 */
export function explainConnectError(err: unknown, config: KubeConfig): unknown {
  if (!config.tls.insecureSkipTlsVerify || !(err instanceof TypeError)) {
    return err;
  }
  if (!/certificate|tls|ssl|handshake/i.test(messages(err))) return err;
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
