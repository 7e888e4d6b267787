// The user's checks of one endpoint (Manager.addHealthzCheck and
// addReadyzCheck), checked at the call and listed after the Manager's own.
// Internal to controller/.

import { checkFunction, show } from "./_check.ts";
import type { HealthCheck, HealthChecker } from "./health.ts";

/** Names the Manager's own checks use. */
function reserved(name: string): boolean {
  return name === "ping" || name.startsWith("informer-sync:");
}

/** The checks added to one endpoint, in the order added. */
export class UserChecks {
  readonly #call: string;
  readonly #checks = new Map<string, HealthCheck>();

  /** @param call the method that adds to it, for error messages */
  constructor(call: string) {
    this.#call = call;
  }

  /**
   * Add `check` under `name`.
   * @throws {TypeError} when `name` is not a non-empty string without "/",
   * "," or whitespace (it is a path segment and an `?exclude` value), or
   * `check` not a function
   * @throws {Error} when the name is taken, by the Manager's own checks or
   * an earlier call
   */
  add(name: string, check: HealthChecker): void {
    if (typeof name !== "string" || !/^[^/,\s]+$/.test(name)) {
      throw new TypeError(
        `${this.#call}: name must be a non-empty string without "/", "," or whitespace, got ${
          show(name)
        }`,
      );
    }
    checkFunction(this.#call, "check", check);
    if (reserved(name) || this.#checks.has(name)) {
      throw new Error(
        `${this.#call}: a check named "${name}" exists already`,
      );
    }
    this.#checks.set(name, { name, check });
  }

  /** The checks, in the order added. */
  list(): HealthCheck[] {
    return [...this.#checks.values()];
  }
}
