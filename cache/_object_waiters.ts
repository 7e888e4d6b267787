// Internal: the waiters of SharedIndexInformer.waitFor. The informer calls
// `check` with each object it has just cached (only while someone waits),
// so a wait ends on the event that satisfies it, with no polling.

import type { DeepReadonly } from "../api/readonly.ts";
import type { WaitForCondition } from "./_informer_options.ts";

interface Waiter<T> {
  matches: (key: string, obj: T) => boolean;
  resolve: (obj: T) => void;
  reject: (reason: unknown) => void;
}

/** Pending waits of one informer. */
export class ObjectWaiters<
  T extends { metadata?: { resourceVersion?: string } },
> {
  #waiters = new Set<Waiter<T>>();

  /** Whether anyone waits: the informer skips `check` otherwise. */
  get size(): number {
    return this.#waiters.size;
  }

  /**
   * Wait for an object `matches` accepts; `current` finds a match among the
   * objects cached now.
   */
  wait(
    matches: (key: string, obj: T) => boolean,
    current: () => T | undefined,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const found = current();
    if (found !== undefined) return Promise.resolve(found);
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const onAbort = () => waiter.reject(signal!.reason);
    const done = () => {
      this.#waiters.delete(waiter);
      signal?.removeEventListener("abort", onAbort);
    };
    const waiter: Waiter<T> = {
      matches,
      resolve: (obj) => {
        done();
        resolve(obj);
      },
      reject: (reason) => {
        done();
        reject(reason);
      },
    };
    this.#waiters.add(waiter);
    signal?.addEventListener("abort", onAbort, { once: true });
    return promise;
  }

  /** `obj` was just cached under `key`: resolve the waits it satisfies. */
  check(key: string, obj: T): void {
    for (const waiter of this.#waiters) {
      if (waiter.matches(key, obj)) waiter.resolve(obj);
    }
  }

  /** The informer stopped: no wait can end well any more. */
  rejectAll(reason: unknown): void {
    for (const waiter of this.#waiters) waiter.reject(reason);
  }
}

/**
 * The test of `condition` against an object cached under a key.
 * @throws {TypeError} when `condition` is neither a function nor `{ key }`
 */
export function matcher<
  T extends { metadata?: { resourceVersion?: string } },
>(
  condition: WaitForCondition<T>,
): (key: string, obj: T) => boolean {
  if (typeof condition === "function") {
    // The predicate gets the cached object, typed as readers see it.
    return (_key, obj) => condition(obj as DeepReadonly<T>);
  }
  if (
    typeof condition !== "object" || condition === null ||
    typeof condition.key !== "string"
  ) {
    throw new TypeError(
      `SharedIndexInformer.waitFor: condition must be a function or { key, resourceVersion? }, got ${
        condition === null ? "null" : typeof condition
      }`,
    );
  }
  const { key, resourceVersion: wanted } = condition;
  if (wanted !== undefined && typeof wanted !== "string") {
    throw new TypeError(
      `SharedIndexInformer.waitFor: resourceVersion must be a string, got ${typeof wanted}`,
    );
  }
  if (wanted === undefined) return (k) => k === key;
  return (k, obj) =>
    k === key && atLeast(obj.metadata?.resourceVersion, wanted);
}

const DECIMAL = /^[0-9]+$/;

/**
 * `have` is `wanted`, or newer. resourceVersions are opaque strings; where
 * both are decimal integers (every real apiserver's) a larger one is newer,
 * so a wait still ends when the informer skips to a later version (a relist
 * merges changes).
 */
function atLeast(have: string | undefined, wanted: string): boolean {
  if (have === undefined) return false;
  if (have === wanted) return true;
  if (!DECIMAL.test(have) || !DECIMAL.test(wanted)) return false;
  return BigInt(have) > BigInt(wanted);
}
