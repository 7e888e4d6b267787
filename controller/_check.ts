// Argument checks of controller/'s public entry points that api/validate.ts
// does not have (a Kubernetes object, a port); the rest, and the one value
// formatter, come from there. Internal to controller/.

import { show } from "../api/validate.ts";

export { checkRateLimiter } from "../workqueue/_validate.ts";

export {
  checkClock,
  checkDuration,
  checkFunction,
  checkOptionalString,
  checkOptions,
  checkPositive,
  checkResourceType as checkType,
  checkString as checkName,
  checkSubdomainName,
  errorMessage,
  isDnsSubdomain,
  show,
} from "../api/validate.ts";

/** `value` is an object with a `metadata` object (a KubeObject). */
export function checkKubeObject(
  call: string,
  name: string,
  value: unknown,
): void {
  const meta = (value as { metadata?: unknown } | null)?.metadata;
  if (
    typeof value !== "object" || value === null || typeof meta !== "object" ||
    meta === null
  ) {
    throw new TypeError(
      `${call}: ${name} must be a Kubernetes object with metadata, got ${
        show(value)
      }`,
    );
  }
}

/**
 * `value` is undefined or an array of predicates: objects whose `create`,
 * `update` and `delete`, when present, are functions. Checked at the call,
 * since the handlers only run them when an event comes.
 */
export function checkPredicates(
  call: string,
  name: string,
  value: unknown,
): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    throw new TypeError(
      `${call}: ${name} must be an array of predicates, got ${show(value)}`,
    );
  }
  value.forEach((p, i) => {
    const bad = typeof p !== "object" || p === null ||
      (["create", "update", "delete"] as const).some((m) =>
        (p as Record<string, unknown>)[m] !== undefined &&
        typeof (p as Record<string, unknown>)[m] !== "function"
      );
    if (bad) {
      throw new TypeError(
        `${call}: ${name}[${i}] must be a predicate (an object with create, update or delete functions), got ${
          show(p)
        }`,
      );
    }
  });
}

/** `value` is a port number (0 picks a free one). */
export function checkPort(call: string, name: string, value: unknown): void {
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < 0 ||
    value > 65535
  ) {
    throw new RangeError(
      `${call}: ${name} must be a port number 0-65535, got ${show(value)}`,
    );
  }
}
