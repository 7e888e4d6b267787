/**
 * Status bodies exactly as kube-apiserver writes them (apimachinery
 * `pkg/api/errors`), and the error type the fake server's internals throw to
 * turn into an HTTP response. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Status, StatusDetails } from "../api/object.ts";
import { StatusError } from "../api/errors.ts";

/** Build a failure Status (field order as the apiserver writes it). */
export function failure(
  code: number,
  reason: string,
  message: string,
  details?: StatusDetails,
): Status {
  const s: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
  };
  if (details) s.details = details;
  s.code = code;
  return s;
}

/**
 * A Status for an error that is not an API status (a storage error): no
 * reason, no details, the error text as message (apimachinery
 * `ErrorToAPIStatus`'s default case).
 */
export function unknownFailure(code: number, message: string): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    code,
  };
}

/** A thrown Status: the internals throw it, the HTTP layer writes it. */
export function statusError(status: Status): StatusError {
  return new StatusError(status);
}

/** `resource.group`, or `resource` in the core group, as Status messages name it. */
function qualified(resource: string, group: string): string {
  return group === "" ? resource : `${resource}.${group}`;
}

/** Status details naming an object: name, group (not for core), kind (the resource). */
function objectDetails(resource: string, name: string, group: string) {
  return group === ""
    ? { name, kind: resource }
    : { name, group, kind: resource };
}

/**
 * A Status error about one object: `message` gets the qualified resource
 * (`configmaps`, `deployments.apps`); details name the object, plus `extra`.
 */
function objectError(
  [code, reason]: [number, string],
  [resource, name, group]: [string, string, string],
  message: (qualifiedResource: string) => string,
  extra: Partial<StatusDetails> = {},
): StatusError {
  return statusError(
    failure(code, reason, message(qualified(resource, group)), {
      ...objectDetails(resource, name, group),
      ...extra,
    }),
  );
}

/** 404 NotFound for an object (`configmaps "x" not found`, `deployments.apps "x" not found`). */
export function notFound(
  resource: string,
  name: string,
  group = "",
): StatusError {
  return objectError(
    [404, "NotFound"],
    [resource, name, group],
    (q) => `${q} "${name}" not found`,
  );
}

/** 404 for a path the server does not serve (a Status, not text). */
export function noSuchResource(): StatusError {
  return statusError(
    failure(
      404,
      "NotFound",
      "the server could not find the requested resource",
      {},
    ),
  );
}

/** 409 AlreadyExists on create. */
export function alreadyExists(
  resource: string,
  name: string,
  group = "",
): StatusError {
  return objectError(
    [409, "AlreadyExists"],
    [resource, name, group],
    (q) => `${q} "${name}" already exists`,
  );
}

/** 409 Conflict on a stale resourceVersion. */
export function conflict(
  resource: string,
  name: string,
  group = "",
): StatusError {
  return objectError(
    [409, "Conflict"],
    [resource, name, group],
    (q) =>
      `Operation cannot be fulfilled on ${q} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  );
}

/** 400 BadRequest with a message and no details. */
export function badRequest(message: string): StatusError {
  return statusError(failure(400, "BadRequest", message));
}

/** 422 Invalid for an object field. */
export function invalid(
  kind: string,
  name: string,
  causes: { field: string; message: string; reason?: string }[],
  group = "",
): StatusError {
  // apimachinery's NewInvalid: one error as is, several in brackets.
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  const text = texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
  return objectError(
    [422, "Invalid"],
    [kind, name, group],
    (q) => `${q} "${name}" is invalid: ${text}`,
    {
      causes: causes.map((c) => ({
        reason: c.reason ?? "FieldValueInvalid",
        message: c.message,
        field: c.field,
      })),
    },
  );
}

/**
 * 422 Invalid for request options (`DeleteOptions`, `CreateOptions`,
 * `PatchOptions`): one field, each message a FieldValueNotSupported cause
 * (or FieldValueRequired / FieldValueForbidden when the message says so).
 */
export function invalidOptions(
  kind: string,
  field: string,
  messages: string[],
): StatusError {
  const reasonOf = (m: string) =>
    m.startsWith("Required value")
      ? "FieldValueRequired"
      : m.startsWith("Forbidden")
      ? "FieldValueForbidden"
      : m.startsWith("Invalid value")
      ? "FieldValueInvalid"
      : "FieldValueNotSupported";
  return optionsInvalid(
    kind,
    messages.map((m) => ({ reason: reasonOf(m), message: m, field })),
  );
}

/** 409 Conflict for a DELETE whose precondition does not hold (details name the Kind). */
export function preconditionFailed(
  kind: string,
  name: string,
  field: "ResourceVersion" | "UID",
  wanted: string,
  actual: string,
): StatusError {
  return statusError(
    failure(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${kind} "${name}": the ${field} in the precondition (${wanted}) does not match the ${field} in record (${actual}). The object might have been modified`,
      { name, kind },
    ),
  );
}

/** 422 Invalid for ListOptions (resourceVersionMatch and friends). */
export function invalidListOptions(
  causes: { field: string; message: string; reason: string }[],
): StatusError {
  return optionsInvalid("ListOptions", causes);
}

/**
 * 422 Invalid for a meta.k8s.io options kind (`ListOptions`,
 * `DeleteOptions`, ...): one cause per message, listed in brackets when
 * there are several.
 */
function optionsInvalid(
  kind: string,
  causes: { field: string; message: string; reason: string }[],
): StatusError {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const text = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  return statusError(
    failure(422, "Invalid", `${kind}.meta.k8s.io "" is invalid: ${text}`, {
      group: "meta.k8s.io",
      kind,
      causes: causes.map((c) => ({
        reason: c.reason,
        message: c.message,
        field: c.field,
      })),
    }),
  );
}

/** 410 Expired for a list at a compacted resourceVersion. */
export function listTooOld(): StatusError {
  return statusError(
    failure(
      410,
      "Expired",
      "The resourceVersion for the provided list is too old.",
    ),
  );
}

/** 410 Expired for a continue token older than the history window. */
export function continueTooOld(newToken: string): StatusError {
  const s = failure(
    410,
    "Expired",
    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
  );
  s.metadata = { continue: newToken };
  return statusError(s);
}

/** The Status inside a watch ERROR event for a too old resourceVersion. */
export function watchTooOld(rv: number, oldest: number): Status {
  return failure(
    410,
    "Expired",
    `too old resource version: ${rv} (${oldest})`,
  );
}

/** 504 Timeout "Too large resource version" (ResourceVersionTooLarge cause). */
export function tooLargeResourceVersion(
  requested: number | string,
  current: number | string,
): Status {
  return failure(
    504,
    "Timeout",
    `Timeout: Too large resource version: ${requested}, current: ${current}`,
    {
      causes: [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }],
      retryAfterSeconds: 1,
    },
  );
}

/**
 * The injected failures with their own body: code -> reason, message, and
 * whether the details are written always (`{}` without Retry-After, as the
 * apiserver writes them), never, or only to carry a Retry-After.
 */
const FAULTS: Readonly<
  Record<number, [string, string, "always" | "never" | "retry"]>
> = {
  401: ["Unauthorized", "Unauthorized", "never"],
  403: ["Forbidden", "Forbidden", "retry"],
  404: [
    "NotFound",
    "the server could not find the requested resource",
    "always",
  ],
  409: ["Conflict", "Conflict", "retry"],
  410: [
    "Expired",
    "The resourceVersion for the provided list is too old.",
    "never",
  ],
  429: [
    "TooManyRequests",
    "Too many requests, please try again later.",
    "always",
  ],
  500: ["InternalError", "Internal error occurred", "retry"],
  503: [
    "ServiceUnavailable",
    "The server is currently unable to handle the request",
    "retry",
  ],
};

/** The default body of an injected failure with an HTTP status code. */
export function defaultFaultStatus(
  code: number,
  retryAfterSeconds?: number,
): Status {
  if (code === 504) {
    const s = tooLargeResourceVersion("unknown", "unknown");
    if (retryAfterSeconds !== undefined) {
      s.details!.retryAfterSeconds = retryAfterSeconds;
    }
    return s;
  }
  const details = retryAfterSeconds === undefined
    ? undefined
    : { retryAfterSeconds };
  const [reason, message, written] = FAULTS[code] ?? [
    code >= 500 ? "InternalError" : "BadRequest",
    `Injected failure with status ${code}`,
    "retry",
  ];
  return failure(
    code,
    reason,
    message,
    written === "never"
      ? undefined
      : written === "always"
      ? details ?? {}
      : details,
  );
}
