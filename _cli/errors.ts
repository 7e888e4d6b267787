/**
 * One-line error messages of the CLI: an unreachable server, 401/403
 * (naming the kubeconfig user), a missing kubeconfig, an unknown resource.
 *
 * @module
 */

import { KubeConfigError } from "../client/config.ts";
import { StatusError } from "../api/errors.ts";
import { RequestTimeoutError } from "../api/errors.ts";
import { UnknownResourceError } from "../client/discovery.ts";

/**
 * What an error message can mention.
 *
 * @example Name the server and the user
 * ```ts
 * import { describeError, type ErrorContext } from "@kubecache/core/cli";
 * import { StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ctx: ErrorContext = { server: "https://10.0.0.1:6443", user: "alice", action: "list pods" };
 * const text = describeError(StatusError.fromStatus({ code: 401, reason: "Unauthorized", message: "Unauthorized" }), ctx);
 * assert.match(text, /alice/);
 * ```
 */
export interface ErrorContext {
  /** The API server URL. */
  server?: string;
  /** The kubeconfig user (or another description of who we are). */
  user?: string;
  /** What was being done, e.g. `list pods in namespace "default"`. */
  action?: string;
  /** A resource name to suggest for an unknown one. */
  suggestion?: string;
}

/**
 * Describe a failure in one line, without a stack trace, the way the CLI
 * prints it (exported from `@kubecache/core/cli` for scripts that want the
 * same wording, as the examples do).
 * @param err what was thrown
 * @param ctx the server, user and action to name
 * @returns the message, without a trailing period
 *
 * @example Word a 403 the CLI's way
 * ```ts
 * import { describeError } from "@kubecache/core/cli";
 * import { StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const err = StatusError.fromStatus({ code: 403, reason: "Forbidden", message: "no" });
 * assert.equal(
 *   describeError(err, { user: "bob", action: "list pods" }),
 *   'Forbidden as user "bob" (403): not allowed to list pods: no',
 * );
 * ```
 */
export function describeError(err: unknown, ctx: ErrorContext = {}): string {
  const at = ctx.server ? ` at ${ctx.server}` : "";
  const as = ctx.user ? ` as user "${ctx.user}"` : "";
  const doing = ctx.action ? ` to ${ctx.action}` : "";
  if (err instanceof UnknownResourceError) {
    return err.message +
      (ctx.suggestion ? `; did you mean "${ctx.suggestion}"?` : "");
  }
  if (err instanceof KubeConfigError) {
    const hint =
      /Cannot (find|load) (a Kubernetes config|kubeconfig)/.test(err.message)
        ? " (or use --demo to watch an embedded demo cluster)"
        : "";
    return err.message + hint;
  }
  if (err instanceof StatusError) {
    const why = err.message ? `: ${err.message}` : "";
    if (err.code === 401) {
      return `Unauthorized${as}${at} (401): the server rejected the credentials${why}`;
    }
    if (err.code === 403) {
      return `Forbidden${as}${at} (403)${
        doing ? `: not allowed${doing}` : ""
      }${why}`;
    }
    return `The API server${at} answered ${err.code} ${err.reason ?? ""}`
      .trimEnd() +
      `${doing ? ` when trying${doing}` : ""}${why}`;
  }
  if (err instanceof RequestTimeoutError) {
    return `The API server${at} did not answer in time: ${err.message}`;
  }
  if (err instanceof TypeError && isConnectError(err)) {
    // KubeClient already explains a certificate failure under
    // insecure-skip-tls-verify (the flag to use): its message is the one.
    if (/insecure-skip-tls-verify/.test(err.message)) return err.message;
    return `Cannot reach the API server${at}: ${
      connectReason(fetchMessage(err))
    }`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Whether fetch failed to connect (refused, DNS, TLS, reset). */
export function isConnectError(err: unknown): boolean {
  return err instanceof TypeError &&
    /fetch failed|error sending request|connect|dns|certificate|tls|refused|reset/i
      .test(fetchMessage(err));
}

/** fetch's own message and its cause's, where the details are. */
function fetchMessage(err: Error): string {
  const cause = err.cause instanceof Error ? err.cause.message : "";
  return `${err.message} ${cause}`;
}

function isTlsMessage(message: string): boolean {
  return /certificate|tls|ssl/i.test(message);
}

function connectReason(message: string): string {
  if (/refused/i.test(message)) return "connection refused";
  // Before DNS: certificate errors name the certificate's `DnsName(...)`.
  if (isTlsMessage(message)) return "TLS handshake failed";
  if (/dns|lookup|resolve/i.test(message)) return "host name not found";
  if (/reset/i.test(message)) return "connection reset";
  return message.trim();
}
