/**
 * The argument check shared by the work queue's constructors that take a
 * rate limiter.
 *
 * @module
 */

import { checkMethods } from "../api/validate.ts";

/** `value` is a RateLimiter: `when`, `forget` and `numRequeues` methods. */
export function checkRateLimiter(
  call: string,
  name: string,
  value: unknown,
): void {
  checkMethods(call, name, value, "a RateLimiter", [
    "when",
    "forget",
    "numRequeues",
  ]);
}
