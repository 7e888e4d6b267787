/**
 * Stores whose entries expire. Mirrors client-go
 * `tools/cache/expiration_cache.go` (`ExpirationCache`, `NewTTLStore`,
 * `NewExpirationStore`, `TTLPolicy`, `TimestampedEntry`,
 * `ExpirationPolicy`) and `expiration_cache_fakes.go` (a policy and clock
 * injected for tests).
 *
 * @module
 */

import {
  checkClock,
  checkFunction,
  checkMethods,
  checkOptions,
  show,
} from "./_validate.ts";
import { type Clock, realClock } from "../api/clock.ts";
import type { KeyFunc } from "./keys.ts";
import { computeKey } from "./keys.ts";
import type { Store } from "./store.ts";
import {
  newThreadSafeStore,
  type ThreadSafeStore,
} from "./thread_safe_store.ts";

/**
 * A stored object with the time it was added or last updated (client-go
 * `TimestampedEntry`).
 *
 * @typeParam T the object type
 *
 * @example What an ExpirationPolicy is asked about
 * ```ts
 * import type { TimestampedEntry } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const entry: TimestampedEntry = { obj: { metadata: { name: "a" } }, timestamp: 1_000, key: "a" };
 * const olderThanASecond = (e: TimestampedEntry, now: number) => now - e.timestamp > 1_000;
 * assert.equal(olderThanASecond(entry, 2_500), true);
 * ```
 */
export interface TimestampedEntry<T = unknown> {
  /** The stored object. */
  obj: T;
  /** When it was stored, epoch milliseconds from the store's clock. */
  timestamp: number;
  /** Its key. */
  key: string;
}

/**
 * Decides whether an entry has expired (client-go `ExpirationPolicy`).
 *
 * @example Expire entries by a field of the object
 * ```ts
 * import { type ExpirationPolicy, metaNamespaceKeyFunc, newExpirationStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Token = { metadata: { name: string }; expiresAt: number };
 * let now = 0;
 * const policy: ExpirationPolicy = { isExpired: (entry) => (entry.obj as Token).expiresAt <= now };
 * const tokens = newExpirationStore<Token>(metaNamespaceKeyFunc, policy);
 * tokens.add({ metadata: { name: "t1" }, expiresAt: 10 });
 * assert.equal(tokens.list().length, 1);
 * now = 10;
 * assert.equal(tokens.list().length, 0);
 * ```
 */
export interface ExpirationPolicy {
  /** Whether `entry` has expired and must be dropped. */
  isExpired(entry: TimestampedEntry): boolean;
}

/**
 * Options of {@link TTLPolicy}, {@link newTTLStore} and {@link newExpirationStore}.
 *
 * @example A TTL store on a FakeClock
 * ```ts
 * import { type ExpirationOptions, metaNamespaceKeyFunc, newTTLStore } from "@kubecache/core";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const opts: ExpirationOptions = { clock };
 * const store = newTTLStore(metaNamespaceKeyFunc, 1_000, opts);
 * store.add({ metadata: { name: "a" } });
 * await clock.step(1_000);
 * assert.deepEqual(store.listKeys(), ["a"]); // expires only once older than the TTL
 * await clock.step(1);
 * assert.deepEqual(store.listKeys(), []);
 * ```
 */
export interface ExpirationOptions {
  /** Source of time. @default the real clock */
  clock?: Clock;
}

/**
 * Expire entries older than a fixed time to live (client-go `TTLPolicy`).
 * An entry exactly `ttl` ms old has not expired yet; a `ttl` of 0 never
 * expires anything.
 *
 * @example
 * ```ts
 * import { TTLPolicy } from "@kubecache/core";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const clock = new FakeClock(1_000);
 * const policy = new TTLPolicy(500, { clock });
 * const entry = { obj: {}, key: "k", timestamp: 1_000 };
 * await clock.step(500);
 * assert.equal(policy.isExpired(entry), false);
 * await clock.step(1);
 * assert.equal(policy.isExpired(entry), true);
 * ```
 */
export class TTLPolicy implements ExpirationPolicy {
  /** Time to live in milliseconds; 0 means forever. */
  readonly ttl: number;
  readonly #clock: Clock;

  /**
   * Create a TTL policy.
   * @param ttlMs time to live in milliseconds; 0 means entries never expire
   * @param options the clock to read
   * @throws {RangeError} when `ttlMs` is negative or NaN
   * @throws {TypeError} when `ttlMs` is not a number or `options.clock` not a Clock
   */
  constructor(ttlMs: number, options: ExpirationOptions = {}) {
    if (typeof ttlMs !== "number") {
      throw new TypeError(
        `new TTLPolicy: ttlMs must be a number of milliseconds, got ${
          show(ttlMs)
        }`,
      );
    }
    checkOptions("new TTLPolicy", "options", options);
    checkClock("new TTLPolicy", "options.clock", options.clock);
    if (!(ttlMs >= 0)) {
      throw new RangeError(
        `Cannot create TTL policy: ttl must be a non-negative number of milliseconds, got ${ttlMs}`,
      );
    }
    this.ttl = ttlMs;
    this.#clock = options.clock ?? realClock;
  }

  /** Whether `entry` is older than the TTL (strictly). */
  isExpired(entry: TimestampedEntry): boolean {
    return this.ttl > 0 && this.#clock.now() - entry.timestamp > this.ttl;
  }
}

/** client-go `ExpirationCache`: a ThreadSafeStore of timestamped entries. */
class ExpirationCache<T> implements Store<T> {
  readonly #storage: ThreadSafeStore<TimestampedEntry<T>> =
    newThreadSafeStore();
  readonly #keyFunc: KeyFunc;
  readonly #policy: ExpirationPolicy;
  readonly #clock: Clock;

  constructor(keyFunc: KeyFunc, policy: ExpirationPolicy, clock: Clock) {
    this.#keyFunc = keyFunc;
    this.#policy = policy;
    this.#clock = clock;
  }

  /** The live object under `key`; an expired entry is deleted on sight. */
  #getOrExpire(key: string): T | undefined {
    const entry = this.#storage.get(key);
    if (entry === undefined) return undefined;
    if (this.#policy.isExpired(entry)) {
      this.#storage.delete(key);
      return undefined;
    }
    return entry.obj;
  }

  #entry(obj: T): TimestampedEntry<T> {
    const key = computeKey(this.#keyFunc, obj);
    return { obj, timestamp: this.#clock.now(), key };
  }

  add(obj: T): void {
    const entry = this.#entry(obj);
    this.#storage.add(entry.key, entry);
  }

  update(obj: T): void {
    this.add(obj);
  }

  delete(obj: T): void {
    this.#storage.delete(computeKey(this.#keyFunc, obj));
  }

  get(obj: T): T | undefined {
    return this.#getOrExpire(computeKey(this.#keyFunc, obj));
  }

  getByKey(key: string): T | undefined {
    return this.#getOrExpire(key);
  }

  list(): T[] {
    const out: T[] = [];
    for (const key of this.#storage.listKeys()) {
      const obj = this.#getOrExpire(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  listKeys(): string[] {
    return this.#storage.listKeys().filter((key) =>
      this.#getOrExpire(key) !== undefined
    );
  }

  replace(list: T[], resourceVersion: string): void {
    const items = new Map<string, TimestampedEntry<T>>();
    for (const obj of list) {
      const entry = this.#entry(obj);
      items.set(entry.key, entry);
    }
    this.#storage.replace(items, resourceVersion);
  }

  resync(): void {}
}

/**
 * Create a {@link Store} whose entries expire by `policy` (client-go
 * `NewExpirationStore`; with an injected clock, `NewFakeExpirationStore`).
 * Entries are stamped with `clock.now()` on `add`, `update` and `replace`.
 * An expired entry vanishes from `get`, `getByKey`, `list` and `listKeys`,
 * and is deleted when one of them finds it. (client-go's `ListKeys` still
 * returns expired keys; here every read agrees.)
 *
 * @typeParam T the object type
 * @param keyFunc computes each object's key
 * @param policy decides which entries have expired
 * @param options the clock that stamps entries
 * @returns an empty store
 * @throws {TypeError} when `keyFunc`, `policy` or `options.clock` has the wrong type
 *
 * @example Expire by a policy of your own, on a FakeClock
 * ```ts
 * import { type ExpirationPolicy, metaNamespaceKeyFunc, newExpirationStore } from "@kubecache/core";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * // Keep an entry 1 s, except those named "pinned".
 * const policy: ExpirationPolicy = {
 *   isExpired: (entry) => entry.key !== "pinned" && clock.now() - entry.timestamp >= 1_000,
 * };
 * const store = newExpirationStore(metaNamespaceKeyFunc, policy, { clock });
 * store.add({ metadata: { name: "pinned" } });
 * store.add({ metadata: { name: "lease" } });
 * await clock.step(1_000);
 * assert.deepEqual(store.listKeys(), ["pinned"]);
 * ```
 */
export function newExpirationStore<T>(
  keyFunc: KeyFunc,
  policy: ExpirationPolicy,
  options: ExpirationOptions = {},
): Store<T> {
  const call = "newExpirationStore";
  checkFunction(call, "keyFunc", keyFunc);
  checkMethods(call, "policy", policy, "an ExpirationPolicy", ["isExpired"]);
  checkOptions(call, "options", options);
  checkClock(call, "options.clock", options.clock);
  return new ExpirationCache<T>(keyFunc, policy, options.clock ?? realClock);
}

/**
 * Create a {@link Store} whose entries expire `ttlMs` milliseconds after
 * they were last written (client-go `NewTTLStore`). A `ttlMs` of 0 never
 * expires; an entry exactly `ttlMs` old is still live.
 *
 * @example
 * ```ts
 * import { newTTLStore, metaNamespaceKeyFunc } from "@kubecache/core";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const clock = new FakeClock();
 * const store = newTTLStore(metaNamespaceKeyFunc, 1_000, { clock });
 * store.add({ metadata: { name: "a" } });
 * await clock.step(1_001);
 * assert.equal(store.getByKey("a"), undefined);
 * ```
 *
 * @typeParam T the object type
 * @param keyFunc computes each object's key
 * @param ttlMs time to live in milliseconds; 0 means forever
 * @param options the clock for stamping and expiring
 * @returns an empty store
 * @throws {RangeError} when `ttlMs` is negative or NaN
 * @throws {TypeError} when `keyFunc` is not a function or `ttlMs` not a number
 */
export function newTTLStore<T>(
  keyFunc: KeyFunc,
  ttlMs: number,
  options: ExpirationOptions = {},
): Store<T> {
  checkFunction("newTTLStore", "keyFunc", keyFunc);
  return newExpirationStore<T>(
    keyFunc,
    new TTLPolicy(ttlMs, options),
    options,
  );
}
