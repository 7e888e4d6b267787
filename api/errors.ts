/**
 * {@link StatusError}, the error the API server answers with, and the
 * predicates of apimachinery's `k8s.io/apimachinery/pkg/api/errors`
 * (`isNotFound`, `isConflict`, `isGone`, ...), and
 * {@link RequestTimeoutError}, a call that waited too long for its answer.
 * Part of the API vocabulary: `KubeClient` throws these errors, the
 * Reflector classifies them. {@link KubeConfigError}, a kubeconfig that
 * cannot be used, is here too: both the kubeconfig parser and `KubeConfig`
 * throw it, and the parser is loaded by `KubeConfig`'s file.
 *
 * @module
 */

import type { Status, StatusDetails } from "./object.ts";

/**
 * An error answered by the API server (apimachinery `errors.StatusError`):
 * the HTTP `code`, the machine-readable `reason` and the `message`, `details`
 * of the server's {@link Status}. When the server answered with something
 * other than a Status (e.g. `text/plain` "404 page not found" for an unknown
 * API group), `reason` is derived from the code as apimachinery's
 * `NewGenericServerResponse` does and `message` is the body text.
 *
 * @example Catch a missing object
 * ```ts
 * import { isNotFound, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const err = StatusError.fromStatus({ code: 404, reason: "NotFound", message: 'pods "x" not found' });
 * assert.ok(err instanceof StatusError);
 * assert.ok(isNotFound(err));
 * assert.equal(err.message, 'pods "x" not found');
 * ```
 */
export class StatusError extends Error {
  /** HTTP status code, e.g. 404. */
  readonly code: number;
  /** Machine-readable reason, e.g. `"NotFound"`, `"Expired"`; `""` when unknown. */
  readonly reason: string;
  /** Extended data of the Status, when the server sent any. */
  readonly details: StatusDetails | undefined;
  /**
   * Seconds the server asks the client to wait before retrying: the
   * `Retry-After` header, else `details.retryAfterSeconds`; `undefined` when
   * neither is set (apimachinery `SuggestsClientDelay`).
   */
  readonly retryAfterSeconds: number | undefined;
  /** The Status as received (or as synthesised from a non-Status body). */
  readonly status: Status;

  /**
   * Create a status error; prefer {@link StatusError.fromStatus}.
   * @param status the server's Status; `code` and `message` should be set
   * @param opts `retryAfterSeconds` from a `Retry-After` header overrides the Status' own
   */
  constructor(status: Status, opts: { retryAfterSeconds?: number } = {}) {
    const code = status.code ?? 0;
    super(status.message || `The server answered with status ${code}`);
    this.name = "StatusError";
    this.status = status;
    this.code = code;
    this.reason = status.reason || reasonForCode(code);
    this.details = status.details;
    const fromDetails = status.details?.retryAfterSeconds;
    this.retryAfterSeconds = opts.retryAfterSeconds ??
      (typeof fromDetails === "number" && fromDetails > 0
        ? fromDetails
        : undefined);
  }

  /**
   * Build an error from a Status object (e.g. the object of a watch ERROR
   * event, as client-go's Reflector does).
   * @param status the Status
   * @returns the error
   */
  static fromStatus(status: Status): StatusError {
    return new StatusError(status);
  }

  /**
   * Build an error from a failed HTTP response whose body has been read:
   * a JSON `Status` body is used as is, anything else becomes the message.
   * @param code HTTP status code
   * @param body the response body text
   * @param opts `retryAfter`: the `Retry-After` header value (seconds or HTTP date)
   * @returns the error
   */
  static fromResponse(
    code: number,
    body: string,
    opts: { retryAfter?: string | null; now?: number } = {},
  ): StatusError {
    const retryAfterSeconds = parseRetryAfter(opts.retryAfter, opts.now);
    const status = parseStatus(body);
    if (status) {
      return new StatusError({ ...status, code: status.code || code }, {
        retryAfterSeconds,
      });
    }
    const text = body.trim();
    return new StatusError({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code,
      reason: reasonForCode(code),
      message: text === ""
        ? `The server answered with status ${code} and an empty body`
        : truncate(text, 512),
    }, { retryAfterSeconds });
  }
}

function parseStatus(body: string): Status | undefined {
  const trimmed = body.trimStart();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(trimmed);
    if (value && typeof value === "object" && value.kind === "Status") {
      return value as Status;
    }
  } catch {
    // Not JSON: treated as text by the caller.
  }
  return undefined;
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}...`;
}

/**
 * Parse a `Retry-After` header: delta-seconds, or an HTTP date relative to
 * `now` (epoch ms). Returns `undefined` when absent or unparseable.
 */
function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (value == null || value.trim() === "") return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The reason apimachinery's `NewGenericServerResponse` gives a code when the
 * server sent no Status.
 */
function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return code >= 500 ? "InternalError" : "";
  }
}

function asStatusError(err: unknown): StatusError | undefined {
  return err instanceof StatusError ? err : undefined;
}

/** The reasons apimachinery knows (`metav1.StatusReason*`). */
const KNOWN_REASONS = new Set([
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "AlreadyExists",
  "Conflict",
  "Gone",
  "Invalid",
  "ServerTimeout",
  "StoreReadError",
  "Timeout",
  "TooManyRequests",
  "BadRequest",
  "MethodNotAllowed",
  "NotAcceptable",
  "RequestEntityTooLarge",
  "UnsupportedMediaType",
  "InternalError",
  "Expired",
  "ServiceUnavailable",
]);

/**
 * apimachinery's rule: the reason matches, or the reason is unknown and the
 * code matches.
 */
function hasReason(err: unknown, reason: string, code: number): boolean {
  const e = asStatusError(err);
  if (!e) return false;
  if (e.reason === reason) return true;
  return !KNOWN_REASONS.has(e.reason) && e.code === code;
}

/**
 * Whether `err` says an object or resource was not found (404 `NotFound`;
 * apimachinery `IsNotFound`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example A GET of an object that does not exist
 * ```ts
 * import { isNotFound, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isNotFound(StatusError.fromStatus({ code: 404, reason: "NotFound", message: 'configmaps "x" not found' })), true);
 * assert.equal(isNotFound(StatusError.fromResponse(404, "404 page not found")), true);
 * assert.equal(isNotFound(new Error("not from the server")), false);
 * ```
 */
export function isNotFound(err: unknown): boolean {
  return hasReason(err, "NotFound", 404);
}

/**
 * Whether `err` is an optimistic-concurrency conflict (409 `Conflict`, e.g.
 * an update with a stale resourceVersion; apimachinery `IsConflict`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example An update with a stale resourceVersion
 * ```ts
 * import { isConflict, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isConflict(StatusError.fromStatus({ code: 409, reason: "Conflict", message: "the object has been modified" })), true);
 * assert.equal(isConflict(StatusError.fromStatus({ code: 409, reason: "AlreadyExists" })), false);
 * assert.equal(isConflict(new Error("not from the server")), false);
 * ```
 */
export function isConflict(err: unknown): boolean {
  return hasReason(err, "Conflict", 409);
}

/**
 * Whether `err` says the object already exists (409 `AlreadyExists`;
 * apimachinery `IsAlreadyExists`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example A create of a name that is taken
 * ```ts
 * import { isAlreadyExists, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isAlreadyExists(StatusError.fromStatus({ code: 409, reason: "AlreadyExists", message: 'configmaps "a" already exists' })), true);
 * assert.equal(isAlreadyExists(StatusError.fromStatus({ code: 409, reason: "Conflict" })), false);
 * assert.equal(isAlreadyExists(new Error("not from the server")), false);
 * ```
 */
export function isAlreadyExists(err: unknown): boolean {
  return asStatusError(err)?.reason === "AlreadyExists";
}

/**
 * Whether `err` says the requested resourceVersion or continue token is too
 * old: reason `Expired` or `Gone`, or code 410 (apimachinery
 * `IsResourceExpired` || `IsGone`, the Reflector's relist condition).
 * {@link isGone} is the same test.
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example A watch from a resourceVersion the server no longer has
 * ```ts
 * import { isExpired, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isExpired(StatusError.fromStatus({ code: 410, reason: "Expired", message: "too old resource version: 1 (5)" })), true);
 * assert.equal(isExpired(StatusError.fromResponse(410, "")), true);
 * assert.equal(isExpired(new Error("not from the server")), false);
 * ```
 */
export function isExpired(err: unknown): boolean {
  const e = asStatusError(err);
  return e !== undefined &&
    (e.reason === "Expired" || e.reason === "Gone" || e.code === 410);
}

/**
 * Same as {@link isExpired}: reason `Gone` or `Expired`, or code 410
 * (apimachinery `IsGone`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example The same test as isExpired
 * ```ts
 * import { isGone, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isGone(StatusError.fromStatus({ code: 410, reason: "Gone" })), true);
 * assert.equal(isGone(StatusError.fromStatus({ code: 410, reason: "Expired" })), true);
 * assert.equal(isGone(new Error("not from the server")), false);
 * ```
 */
export function isGone(err: unknown): boolean {
  return isExpired(err);
}

/**
 * Whether the server throttled the request (429 `TooManyRequests`;
 * apimachinery `IsTooManyRequests`). See `retryAfterSeconds`.
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example Throttled, with the wait the server asks for
 * ```ts
 * import { isTooManyRequests, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const err = StatusError.fromResponse(429, "slow down", { retryAfter: "3" });
 * assert.equal(isTooManyRequests(err), true);
 * assert.equal(err.retryAfterSeconds, 3);
 * assert.equal(isTooManyRequests(StatusError.fromResponse(503, "")), false);
 * ```
 */
export function isTooManyRequests(err: unknown): boolean {
  return hasReason(err, "TooManyRequests", 429);
}

/**
 * Whether the request's resourceVersion is newer than the server's (client-go
 * reflector `isTooLargeResourceVersionError`): a Status with the cause
 * `ResourceVersionTooLarge` (sent with 504 `Timeout`), or, from servers
 * before 1.18.6, a `Timeout` whose message or cause says "Too large resource
 * version". The Reflector then relists at RV "".
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example A list at a resourceVersion the server has not reached
 * ```ts
 * import { isTooLargeResourceVersion, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const err = StatusError.fromStatus({
 *   code: 504,
 *   reason: "Timeout",
 *   message: "Too large resource version: 900, current: 12",
 *   details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] },
 * });
 * assert.equal(isTooLargeResourceVersion(err), true);
 * assert.equal(isTooLargeResourceVersion(StatusError.fromStatus({ code: 504, reason: "Timeout" })), false);
 * ```
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  const e = asStatusError(err);
  if (!e) return false;
  const causes = e.details?.causes ?? [];
  if (causes.some((c) => c.reason === "ResourceVersionTooLarge")) return true;
  if (e.reason !== "Timeout") return false;
  return causes.some((c) => c.message === "Too large resource version") ||
    e.message.includes("Too large resource version");
}

/**
 * Whether the request lacked valid credentials (401 `Unauthorized`;
 * apimachinery `IsUnauthorized`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example A request without valid credentials
 * ```ts
 * import { isUnauthorized, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isUnauthorized(StatusError.fromStatus({ code: 401, reason: "Unauthorized", message: "Unauthorized" })), true);
 * assert.equal(isUnauthorized(StatusError.fromResponse(401, "")), true);
 * assert.equal(isUnauthorized(new Error("not from the server")), false);
 * ```
 */
export function isUnauthorized(err: unknown): boolean {
  return hasReason(err, "Unauthorized", 401);
}

/**
 * Whether the credentials may not do this (403 `Forbidden`; apimachinery
 * `IsForbidden`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example RBAC denies the verb
 * ```ts
 * import { isForbidden, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isForbidden(StatusError.fromStatus({ code: 403, reason: "Forbidden", message: 'pods is forbidden: User "alice" cannot list resource "pods"' })), true);
 * assert.equal(isForbidden(StatusError.fromResponse(401, "")), false);
 * assert.equal(isForbidden(new Error("not from the server")), false);
 * ```
 */
export function isForbidden(err: unknown): boolean {
  return hasReason(err, "Forbidden", 403);
}

/**
 * Whether the object sent was invalid (422 `Invalid`; apimachinery `IsInvalid`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example An object the server refuses
 * ```ts
 * import { isInvalid, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isInvalid(StatusError.fromStatus({ code: 422, reason: "Invalid", message: 'ConfigMap "A" is invalid: metadata.name: Invalid value' })), true);
 * assert.equal(isInvalid(new Error("not from the server")), false);
 * ```
 */
export function isInvalid(err: unknown): boolean {
  return hasReason(err, "Invalid", 422);
}

/**
 * Whether the request was malformed (400 `BadRequest`; apimachinery `IsBadRequest`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example A malformed request
 * ```ts
 * import { isBadRequest, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isBadRequest(StatusError.fromStatus({ code: 400, reason: "BadRequest", message: "unable to parse labelSelector" })), true);
 * assert.equal(isBadRequest(new Error("not from the server")), false);
 * ```
 */
export function isBadRequest(err: unknown): boolean {
  return hasReason(err, "BadRequest", 400);
}

/**
 * Whether the server timed out (504 `Timeout`, or `ServerTimeout`;
 * apimachinery `IsTimeout` || `IsServerTimeout`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example The server gave up on the request
 * ```ts
 * import { isTimeout, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isTimeout(StatusError.fromStatus({ code: 504, reason: "Timeout", message: "request did not complete within 60s" })), true);
 * assert.equal(isTimeout(StatusError.fromStatus({ code: 500, reason: "ServerTimeout" })), true);
 * assert.equal(isTimeout(new Error("not from the server")), false);
 * ```
 */
export function isTimeout(err: unknown): boolean {
  const r = asStatusError(err)?.reason;
  return r === "Timeout" || r === "ServerTimeout";
}

/**
 * Whether the server had an internal error or was unavailable (5xx other
 * than 504; apimachinery `IsInternalError` || `IsServiceUnavailable`).
 * @param err any thrown value
 * @returns true for a matching {@link StatusError}
 *
 * @example The server failed or is unavailable
 * ```ts
 * import { isServerError, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isServerError(StatusError.fromStatus({ code: 500, reason: "InternalError", message: "etcdserver: leader changed" })), true);
 * assert.equal(isServerError(StatusError.fromResponse(503, "")), true);
 * assert.equal(isServerError(StatusError.fromResponse(504, "")), false);
 * assert.equal(isServerError(new Error("not from the server")), false);
 * ```
 */
export function isServerError(err: unknown): boolean {
  const e = asStatusError(err);
  return e !== undefined && e.code >= 500 && e.reason !== "Timeout";
}

/**
 * A request that got no response headers, or no next chunk of its body,
 * within its time limit.
 *
 * @example A server that does not answer in time
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, RequestTimeoutError } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.faults.latency(60_000); // every answer takes a minute
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }), { timeoutMs: 50 });
 * await assert.rejects(client.list(ConfigMaps), (err) => {
 *   assert.ok(err instanceof RequestTimeoutError);
 *   assert.equal(err.timeoutMs, 50);
 *   return true;
 * });
 * ```
 */
export class RequestTimeoutError extends Error {
  /** The limit that passed, in ms. */
  readonly timeoutMs: number;

  /**
   * Create a timeout error.
   * @param what the request, e.g. `"GET /api/v1/pods"`
   * @param timeoutMs the limit in ms
   */
  constructor(what: string, timeoutMs: number) {
    super(`Request ${what} timed out after ${timeoutMs} ms`);
    this.name = "RequestTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A kubeconfig that cannot be found, read, parsed or used. `path` names the
 * file when one is involved; a YAML error is the `cause` (with its line and
 * column in the message).
 *
 * @example A kubeconfig that is not YAML a tool writes
 * ```ts
 * import { KubeConfig, KubeConfigError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile({ suffix: ".yaml" });
 * await Deno.writeTextFile(path, "clusters: [unclosed\n");
 * try {
 *   assert.throws(() => KubeConfig.fromFile(path), (err) => {
 *     assert.ok(err instanceof KubeConfigError);
 *     assert.equal(err.path, path);
 *     assert.match(err.message, /line 1, column/);
 *     return true;
 *   });
 * } finally {
 *   await Deno.remove(path);
 * }
 * ```
 */
export class KubeConfigError extends Error {
  /** The kubeconfig file concerned, if any. */
  readonly path: string | undefined;

  /**
   * Create an error.
   * @param message what went wrong
   * @param opts the file `path` and the underlying `cause`
   */
  constructor(message: string, opts: { path?: string; cause?: unknown } = {}) {
    super(
      message,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.name = "KubeConfigError";
    this.path = opts.path;
  }
}
