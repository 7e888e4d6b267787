/**
 * Detects handlers that modify cached objects (client-go
 * `tools/cache/mutation_detector.go`). Cached objects are shared, never
 * copied per reader; a handler that writes to one corrupts every other
 * reader's view. When enabled, the detector keeps a deep copy of every
 * object the informer hands out and compares periodically.
 *
 * Opt-in: pass `detectMutations: true` to an informer, or set the
 * environment variable `KUBECACHE_MUTATION_DETECTOR=true` (client-go's
 * `KUBE_CACHE_MUTATION_DETECTOR`). It costs a copy of every object for
 * `retainMs`, so enable it in tests and CI, not in production.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import { DeletedFinalStateUnknown } from "./keys.ts";

/**
 * The environment variable that turns mutation detection on for every informer.
 *
 * @example Turn detection on for a test run
 * ```ts
 * import { MUTATION_DETECTOR_ENV } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * // KUBECACHE_MUTATION_DETECTOR=true deno test -A
 * assert.equal(MUTATION_DETECTOR_ENV, "KUBECACHE_MUTATION_DETECTOR");
 * ```
 */
export const MUTATION_DETECTOR_ENV = "KUBECACHE_MUTATION_DETECTOR";

/**
 * Whether `KUBECACHE_MUTATION_DETECTOR` is `"true"` (client-go
 * `IsCacheMutationDetectorEnabled`). Without env permission it is off; it
 * never prompts.
 *
 * @returns true when the environment asks for mutation detection
 *
 * @example Read the switch from the environment
 * ```ts
 * import { isCacheMutationDetectorEnabled, MUTATION_DETECTOR_ENV } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const allowed = (await Deno.permissions.query({ name: "env", variable: MUTATION_DETECTOR_ENV })).state === "granted";
 * assert.equal(isCacheMutationDetectorEnabled(), allowed && Deno.env.get(MUTATION_DETECTOR_ENV) === "true");
 * ```
 */
export function isCacheMutationDetectorEnabled(): boolean {
  try {
    const state = Deno.permissions.querySync({
      name: "env",
      variable: MUTATION_DETECTOR_ENV,
    }).state;
    return state === "granted" &&
      Deno.env.get(MUTATION_DETECTOR_ENV) === "true";
  } catch {
    return false;
  }
}

/**
 * Thrown (or handed to `onMutation`) when a cached object no longer equals
 * the copy taken when it was cached.
 *
 * @example What the detector reports
 * ```ts
 * import { CacheMutationDetector, CacheMutationError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * let caught: CacheMutationError | undefined;
 * const detector = new CacheMutationDetector("configmaps", {
 *   onMutation: (err) => caught = err,
 * });
 * const cm = { metadata: { name: "a" }, data: { k: "v" } };
 * detector.addObject(cm);
 * cm.data.k = "changed"; // what a handler must never do
 * detector.compareObjects();
 * assert.ok(caught instanceof CacheMutationError);
 * assert.equal(caught.cacheName, "configmaps");
 * assert.deepEqual(caught.objects, [cm]);
 * ```
 */
export class CacheMutationError extends Error {
  /** Name of the cache (informer) whose objects were mutated. */
  readonly cacheName: string;
  /** The mutated objects, as they are now. */
  readonly objects: unknown[];

  /**
   * Create the error.
   * @param cacheName name of the cache
   * @param objects the mutated objects
   */
  constructor(cacheName: string, objects: unknown[]) {
    super(
      `Cache ${cacheName} was modified: ${objects.length} cached object(s) differ from their copies`,
    );
    this.name = "CacheMutationError";
    this.cacheName = cacheName;
    this.objects = objects;
  }
}

/**
 * Watches objects for mutation for a while after they were added
 * (client-go `cache.MutationDetector`).
 *
 * @example The detector an informer uses
 * ```ts
 * import { type MutationDetector, newCacheMutationDetector } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const detector: MutationDetector = newCacheMutationDetector("pods"); // a no-op unless enabled
 * detector.addObject({ metadata: { name: "a" } });
 * await detector.run(AbortSignal.abort());
 * assert.ok(detector);
 * ```
 */
export interface MutationDetector {
  /** Keep a copy of `obj` to compare it against later. */
  addObject(obj: unknown): void;
  /**
   * Compare periodically until `signal` aborts, then resolve. Rejects with
   * {@link CacheMutationError} on a mutation when no `onMutation` was given.
   */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Options of {@link newCacheMutationDetector}.
 *
 * @example Enable the detector for one cache
 * ```ts
 * import { CacheMutationError, newCacheMutationDetector, type MutationDetectorOptions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const errors: CacheMutationError[] = [];
 * const opts: MutationDetectorOptions = { enabled: true, onMutation: (err) => void errors.push(err) };
 * const detector = newCacheMutationDetector("secrets", opts);
 * const secret = { metadata: { name: "a" }, data: { k: "djE=" } };
 * detector.addObject(secret);
 * secret.data.k = "djI=";
 * await detector.run(AbortSignal.abort()); // compares once, then stops
 * assert.equal(errors.length, 1);
 * ```
 */
export interface MutationDetectorOptions {
  /** Force on or off; default: {@link isCacheMutationDetectorEnabled}. */
  enabled?: boolean;
  /** Clock for the comparison period. Default: the real clock. */
  clock?: Clock;
  /** Time between comparisons (ms). Default 1000. */
  periodMs?: number;
  /** How long a copy is kept after it was taken, at least (ms). Default 120 000. */
  retainMs?: number;
  /**
   * Called on a mutation instead of rejecting `run` (client-go's
   * injectable `failureFunc`; by default client-go panics).
   */
  onMutation?: (error: CacheMutationError) => void;
}

/**
 * A mutation detector for a cache named `name` (client-go
 * `NewCacheMutationDetector`): a no-op unless enabled by option or by
 * `KUBECACHE_MUTATION_DETECTOR=true`.
 *
 * @param name name of the cache, used in the error
 * @param opts enablement, clock, period, retention, failure callback
 * @returns the detector
 *
 * @example
 * ```ts
 * import {
 *   newCacheMutationDetector,
 *   CacheMutationError,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const errors: CacheMutationError[] = [];
 * const d = newCacheMutationDetector("pods", { enabled: true, onMutation: (e) => void errors.push(e) });
 * const pod = { metadata: { name: "a", labels: { app: "web" } } };
 * d.addObject(pod);
 * pod.metadata.labels.app = "db"; // a handler must never do this
 * const ac = new AbortController();
 * ac.abort();
 * await d.run(ac.signal); // compares once, then stops
 * assert.equal(errors.length, 1);
 * ```
 */
export function newCacheMutationDetector(
  name: string,
  opts: MutationDetectorOptions = {},
): MutationDetector {
  const enabled = opts.enabled ?? isCacheMutationDetectorEnabled();
  return enabled
    ? new CacheMutationDetector(name, opts)
    : { addObject() {}, run: () => Promise.resolve() };
}

interface CopiedObject {
  cached: unknown;
  copied: unknown;
}

/**
 * The enabled detector (client-go `defaultCacheMutationDetector`). Copies
 * are kept in two generations: every `retainMs` the current generation is
 * retained once more and a new one begins, so each copy lives between one
 * and two retention periods.
 *
 * @example Compare cached objects with their copies
 * ```ts
 * import { CacheMutationDetector, CacheMutationError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const detector = new CacheMutationDetector("pods", { onMutation: () => {} });
 * const pod = { metadata: { name: "web", labels: { app: "web" } } };
 * detector.addObject(pod);
 * detector.compareObjects(); // unchanged: nothing to report
 * const strict = new CacheMutationDetector("pods"); // no onMutation: compareObjects throws
 * strict.addObject(pod);
 * pod.metadata.labels.app = "db";
 * assert.throws(() => strict.compareObjects(), CacheMutationError);
 * ```
 */
export class CacheMutationDetector implements MutationDetector {
  #name: string;
  #clock: Clock;
  #periodMs: number;
  #retainMs: number;
  #onMutation: ((error: CacheMutationError) => void) | undefined;
  #added: CopiedObject[] = [];
  #cached: CopiedObject[] = [];
  #retained: CopiedObject[] = [];
  #lastRotated: number | undefined;

  /**
   * Create an always-enabled detector (client-go
   * `NewAlwaysEnabledMutationDetector`).
   * @param name name of the cache
   * @param opts clock, period, retention, failure callback
   */
  constructor(name: string, opts: MutationDetectorOptions = {}) {
    this.#name = name;
    this.#clock = opts.clock ?? realClock;
    this.#periodMs = opts.periodMs ?? 1_000;
    this.#retainMs = opts.retainMs ?? 120_000;
    this.#onMutation = opts.onMutation;
  }

  /** Keep a deep copy of `obj` (tombstones are skipped). */
  addObject(obj: unknown): void {
    if (obj instanceof DeletedFinalStateUnknown) return;
    if (typeof obj !== "object" || obj === null) return;
    this.#added.push({ cached: obj, copied: structuredClone(obj) });
  }

  /**
   * Compare every kept object with its copy now.
   * @throws {CacheMutationError} when one differs and no `onMutation` was given
   */
  compareObjects(): void {
    for (const entry of this.#added) this.#cached.push(entry);
    this.#added = [];
    const altered: unknown[] = [];
    for (const list of [this.#cached, this.#retained]) {
      for (const { cached, copied } of list) {
        if (!deepEqual(cached, copied)) altered.push(cached);
      }
    }
    if (altered.length === 0) return;
    const error = new CacheMutationError(this.#name, altered);
    if (!this.#onMutation) throw error;
    this.#onMutation(error);
  }

  /**
   * Rotate and compare every period until `signal` aborts (one last
   * comparison happens at once even if it already has).
   */
  async run(signal: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.#clock.now();
      if (this.#lastRotated === undefined) {
        this.#lastRotated = now;
      } else if (now - this.#lastRotated > this.#retainMs) {
        this.#retained = this.#cached;
        this.#cached = [];
        this.#lastRotated = now;
      }
      this.compareObjects();
      if (signal.aborted) return;
      try {
        await this.#clock.sleep(this.#periodMs, signal);
      } catch {
        return; // aborted
      }
    }
  }
}

/** Structural equality of JSON-like values (what decoded objects are). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || !a || !b) {
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (Array.isArray(b)) return false;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date &&
      a.getTime() === b.getTime();
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k]));
}
