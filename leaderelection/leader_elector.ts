/**
 * {@link LeaderElector}: leader election over a Lease (client-go
 * `tools/leaderelection/leaderelection.go`), on the injected clock.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import { isAlreadyExists, isConflict } from "../api/errors.ts";
import type { CallbackResult } from "../api/callback.ts";
import {
  checkClock,
  checkDuration,
  checkFunction,
  checkMethods,
  checkObject,
  checkOptionalString,
  errorMessage,
} from "../api/validate.ts";
import {
  formatMicroTime,
  type LeaderElectionRecord,
  type LeaseLock,
  rawRecord,
} from "./lease_lock.ts";

/**
 * client-go `leaderelection.JitterFactor`: acquire retries wait `retryPeriod · [1, 2.2)`.
 *
 * @example How long a candidate waits between attempts
 * ```ts
 * import { JITTER_FACTOR } from "@kubecache/core/leaderelection";
 * import assert from "node:assert/strict";
 *
 * const retryPeriod = 2_000;
 * // Each wait is drawn from [retryPeriod, retryPeriod · (1 + JITTER_FACTOR)).
 * assert.equal(retryPeriod * (1 + JITTER_FACTOR), 4_400);
 * ```
 */
export const JITTER_FACTOR = 1.2;

/** Writes a release tries when each conflicts with a renew landing late. */
const RELEASE_ATTEMPTS = 3;

/**
 * What a {@link LeaderElector} tells its user (client-go
 * `LeaderCallbacks`).
 *
 * @example
 * ```ts
 * import type { LeaderCallbacks } from "@kubecache/core/leaderelection";
 *
 * const callbacks: LeaderCallbacks = {
 *   async onStartedLeading(signal) {
 *     // run the controller until `signal` aborts
 *     await new Promise((resolve) => signal.addEventListener("abort", resolve));
 *   },
 *   onStoppedLeading() {},
 *   onNewLeader(identity) {
 *     console.log(`leader is now ${identity}`);
 *   },
 * };
 * ```
 */
export interface LeaderCallbacks {
  /**
   * Called when this candidate becomes leader. Do the leader's work until
   * `signal` aborts: it aborts the moment leadership ends (run's signal
   * aborted, or no renew within `renewDeadline`, or another holder seen).
   * A returned promise is awaited before the lease is released (any other
   * return value is ignored); if it rejects, the elector steps down and `run` rejects with that error.
   */
  onStartedLeading(signal: AbortSignal): CallbackResult;
  /**
   * Called once when `run` ends, after leadership (if any) has ended and
   * the work of `onStartedLeading` has settled. As in client-go it is also
   * called when `run` ends without ever leading, so a process can exit
   * from it.
   */
  onStoppedLeading(): void;
  /**
   * Called with the new holder's identity when the observed holder changes
   * (also when it is this candidate). A released lease (no holder) is not
   * reported; the next holder is.
   */
  onNewLeader?(identity: string): void;
}

/**
 * Configuration of a {@link LeaderElector} (client-go `LeaderElectionConfig`). Durations in ms.
 *
 * @example client-go's defaults, written out
 * ```ts
 * import { type LeaderElectorConfig, LeaseLock } from "@kubecache/core/leaderelection";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * const config: LeaderElectorConfig = {
 *   lock: new LeaseLock({ client, namespace: "kube-system", name: "my-controller", identity: "pod-1" }),
 *   leaseDuration: 15_000, // the defaults, in ms
 *   renewDeadline: 10_000,
 *   retryPeriod: 2_000,
 *   releaseOnCancel: true,
 *   callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
 * };
 * void config;
 * ```
 */
export interface LeaderElectorConfig {
  /** The lock all candidates share. */
  lock: LeaseLock;
  /**
   * How long (ms) non-leaders wait after the last change they observed in
   * the lock before taking it over. Whole seconds (the Lease stores
   * seconds), greater than `renewDeadline`. Default 15 000.
   */
  leaseDuration?: number;
  /** How long (ms) the leader keeps leading without a successful renew. Greater than `1.2 · retryPeriod`. Default 10 000. */
  renewDeadline?: number;
  /** Time (ms) between attempts to acquire or renew. Default 2 000. */
  retryPeriod?: number;
  /**
   * Release the lease when `run`'s signal aborts, so another candidate
   * takes over within one jittered retry period. The release reads the
   * Lease first and retries a conflicting write (a renew whose answer was
   * lost), and never clears a Lease another candidate holds.
   */
  releaseOnCancel?: boolean;
  /** Name used in error reports. Default: the lock's `namespace/name`. */
  name?: string;
  /** Clock of every wait and of the lock's times. Default: the real clock. */
  clock?: Clock;
  /** The callbacks. */
  callbacks: LeaderCallbacks;
  /**
   * Told of failed lock requests other than lost races (409), each new
   * message once in a row (client-go logs them). Default: `console.error`.
   */
  onError?: (error: unknown) => void;
}

function checkElectorDuration(name: string, ms: unknown): void {
  checkDuration("new LeaderElector", `config.${name}`, ms, true);
  if (ms === 0) {
    throw new RangeError(
      `new LeaderElector: config.${name} must be a finite number of milliseconds > 0, got 0`,
    );
  }
}

/**
 * Campaigns for a {@link LeaseLock} and leads while it holds it (client-go
 * `LeaderElector`).
 *
 * - **Acquire**: every `retryPeriod · [1, 2.2)` (jittered as client-go), it
 *   reads the lock and takes it only if it is empty, held by itself, or
 *   expired: no change observed for the holder's `leaseDurationSeconds`,
 *   measured on this candidate's own clock from when *it* saw the last
 *   change (client-go's observation clock, so clock skew between machines
 *   does not matter). The write carries the read's resourceVersion, so of
 *   candidates racing, one wins and the others get 409 (a lost race).
 * - **Lead**: `onStartedLeading(signal)` runs; the lease is renewed every
 *   `retryPeriod`. If no renew succeeds within `renewDeadline` of the last
 *   successful one, or a read shows another holder, the elector stops
 *   leading: `isLeader()` turns false at that instant and the signal aborts.
 *   Because others wait `leaseDuration` (> `renewDeadline`) from a change
 *   they saw after the leader wrote it, no two candidates believe they lead
 *   at once.
 * - **Stop**: when `run`'s signal aborts (or leadership is lost), the work
 *   of `onStartedLeading` is awaited (at most until the lease would expire),
 *   then, with `releaseOnCancel`, the lease is released (`holderIdentity`
 *   "", `leaseDurationSeconds` 1) so another candidate takes over at its
 *   next retry, then `onStoppedLeading` is called and `run` resolves.
 *
 * @example Two candidates on a FakeApiServer, driven by a FakeClock
 * ```ts
 * import { LeaderElector, LeaseLock } from "@kubecache/core/leaderelection";
 * import { KubeClient, KubeConfig, Leases } from "@kubecache/core";
 * import { FakeApiServer, FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock(Date.UTC(2026, 0, 1));
 * await using server = await FakeApiServer.start({ clock });
 * const config = KubeConfig.fromOptions({ server: server.url });
 *
 * function candidate(id: string) {
 *   const client = new KubeClient(config, { clock });
 *   const lock = new LeaseLock({ client, namespace: "default", name: "demo", identity: id });
 *   const led = Promise.withResolvers<void>();
 *   const sawLeader = Promise.withResolvers<string>();
 *   const elector = new LeaderElector({
 *     lock,
 *     clock,
 *     releaseOnCancel: true,
 *     callbacks: {
 *       onStartedLeading: (signal) => {
 *         led.resolve();
 *         // the leader's work, until leadership ends
 *         return new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
 *       },
 *       onStoppedLeading: () => client.close(),
 *       onNewLeader: (leader) => sawLeader.resolve(leader),
 *     },
 *   });
 *   const stop = new AbortController();
 *   const done = elector.run(stop.signal);
 *   return { elector, led: led.promise, sawLeader: sawLeader.promise, stop, done };
 * }
 *
 * const a = candidate("a");
 * await a.led;
 * const b = candidate("b");
 * assert.equal(await b.sawLeader, "a");
 * assert.equal(b.elector.isLeader(), false);
 *
 * const stoppedAt = clock.now();
 * a.stop.abort(); // a releases the lease...
 * await a.done;
 * while (!b.elector.isLeader()) await clock.step(100);
 * const [lease] = server.list(Leases, "default");
 * const after = Date.parse(lease.spec!.acquireTime!) - stoppedAt;
 * assert.ok(after <= 2.2 * 2_000, `b took over ${after} ms after a stopped`); // ...b takes it at its next retry
 * assert.equal(lease.spec!.leaseTransitions, 1);
 * b.stop.abort();
 * await b.done;
 * ```
 */
export class LeaderElector {
  readonly #lock: LeaseLock;
  readonly #id: string;
  readonly #leaseDuration: number;
  readonly #renewDeadline: number;
  readonly #retryPeriod: number;
  readonly #releaseOnCancel: boolean;
  readonly #name: string;
  readonly #clock: Clock;
  readonly #callbacks: LeaderCallbacks;
  readonly #onError: (error: unknown) => void;
  #lastErrorMessage = "";

  /** The record last read or written, its raw form and when that changed (the observation clock). */
  #observed: LeaderElectionRecord | undefined;
  #observedRaw = "";
  #observedTime = 0;
  /** The holder last passed to onNewLeader. */
  #reportedLeader = "";
  /** True from a successful acquire until leadership ends. */
  #leading = false;
  /** Clock time at the start of the last successful acquire or renew: the renewTime written. */
  #renewedAt = -Infinity;
  #running: Promise<void> | undefined;

  /**
   * Create an elector (no request is made).
   * @param config lock, durations (ms), callbacks, clock
   * @throws {RangeError} when a duration is not > 0, `leaseDuration` is not
   *   whole seconds or not > `renewDeadline`, or `renewDeadline` is not
   *   > 1.2 × `retryPeriod` (client-go's checks)
   * @throws {TypeError} when the lock or a required callback is missing
   */
  constructor(config: LeaderElectorConfig) {
    const call = "new LeaderElector";
    checkObject(call, "config", config);
    checkMethods(call, "config.lock", config.lock, "a LeaseLock", [
      "identity",
      "describe",
      "get",
    ]);
    checkObject(call, "config.callbacks", config.callbacks);
    checkFunction(
      call,
      "config.callbacks.onStartedLeading",
      config.callbacks.onStartedLeading,
    );
    checkFunction(
      call,
      "config.callbacks.onStoppedLeading",
      config.callbacks.onStoppedLeading,
    );
    if (config.callbacks.onNewLeader !== undefined) {
      checkFunction(
        call,
        "config.callbacks.onNewLeader",
        config.callbacks.onNewLeader,
      );
    }
    checkClock(call, "config.clock", config.clock);
    checkOptionalString(call, "config.name", config.name);
    if (config.onError !== undefined) {
      checkFunction(call, "config.onError", config.onError);
    }
    const leaseDuration = config.leaseDuration ?? 15_000;
    const renewDeadline = config.renewDeadline ?? 10_000;
    const retryPeriod = config.retryPeriod ?? 2_000;
    checkElectorDuration("leaseDuration", leaseDuration);
    checkElectorDuration("renewDeadline", renewDeadline);
    checkElectorDuration("retryPeriod", retryPeriod);
    if (leaseDuration % 1_000 !== 0) {
      throw new RangeError(
        `new LeaderElector: leaseDuration must be whole seconds (a Lease stores seconds), got ${leaseDuration} ms`,
      );
    }
    if (leaseDuration <= renewDeadline) {
      throw new RangeError(
        `new LeaderElector: leaseDuration (${leaseDuration} ms) must be greater than renewDeadline (${renewDeadline} ms)`,
      );
    }
    if (renewDeadline <= JITTER_FACTOR * retryPeriod) {
      throw new RangeError(
        `new LeaderElector: renewDeadline (${renewDeadline} ms) must be greater than retryPeriod × ${JITTER_FACTOR} (${
          JITTER_FACTOR * retryPeriod
        } ms)`,
      );
    }
    const cb = config.callbacks;
    this.#lock = config.lock;
    this.#id = config.lock.identity();
    this.#leaseDuration = leaseDuration;
    this.#renewDeadline = renewDeadline;
    this.#retryPeriod = retryPeriod;
    this.#releaseOnCancel = config.releaseOnCancel ?? false;
    this.#name = config.name ?? config.lock.describe();
    this.#clock = config.clock ?? realClock;
    this.#callbacks = cb;
    this.#onError = config.onError ??
      ((err) =>
        // One line: the message (a failed connection is already described
        // by KubeClient), never a stack.
        console.error(`leaderelection ${this.#name}: ${errorMessage(err)}`));
  }

  /**
   * Whether this candidate leads now (client-go `IsLeader`, made strict):
   * true only between a successful acquire and the end of leadership, and
   * never once `renewDeadline` has passed since the last successful renew,
   * even before the elector's own timer has noticed.
   */
  isLeader(): boolean {
    return this.#leading &&
      this.#clock.now() < this.#renewedAt + this.#renewDeadline;
  }

  /** The holder identity last observed in the lock; "" if none (client-go `GetLeader`). */
  getLeader(): string {
    return this.#observed?.holderIdentity ?? "";
  }

  /**
   * Campaign, then lead until `signal` aborts or leadership is lost
   * (client-go `Run`). Resolves after `onStoppedLeading` has been called.
   * To campaign again after losing, call `run` again. A second call while
   * running returns the same promise.
   * @param signal stops campaigning or leading
   * @returns once stopped
   * @throws whatever `onStartedLeading` threw or rejected with (after stepping down)
   */
  run(signal: AbortSignal): Promise<void> {
    this.#running ??= this.#run(signal).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #run(signal: AbortSignal): Promise<void> {
    try {
      if (await this.#acquire(signal)) await this.#lead(signal);
    } finally {
      this.#callbacks.onStoppedLeading();
    }
  }

  /** Try until acquired (true) or `signal` aborts (false); jittered retries as client-go's `wait.JitterUntil`. */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      const acquired = await this.#tryAcquireOrRenew(signal);
      this.#reportTransition();
      if (acquired) return true;
      const wait = this.#retryPeriod * (1 + Math.random() * JITTER_FACTOR);
      try {
        await this.#clock.sleep(wait, signal);
      } catch {
        return false;
      }
    }
    return false;
  }

  /** Lead: start the callback, renew until stopped or lost, then step down. */
  async #lead(signal: AbortSignal): Promise<void> {
    this.#leading = true;
    const leading = new AbortController();
    let failure: { error: unknown } | undefined;
    let work: Promise<unknown>;
    try {
      work = Promise.resolve(this.#callbacks.onStartedLeading(leading.signal));
    } catch (error) {
      work = Promise.reject(error);
    }
    const workFailed = new AbortController();
    const settled = work.then(() => {}, (error) => {
      failure = { error };
      workFailed.abort(error);
    });
    const stop = AbortSignal.any([signal, workFailed.signal]);

    await this.#renewLoop(stop);

    // Step down: isLeader() is false from here, then the work is told.
    this.#leading = false;
    leading.abort(
      signal.aborted ? signal.reason : new Error("leadership lost"),
    );
    await this.#settleWithin(settled, this.#renewedAt + this.#leaseDuration);
    if (this.#releaseOnCancel) await this.#release();
    if (failure) throw failure.error;
  }

  /** Renew every retryPeriod; return when `stop` aborts or leadership is lost. */
  async #renewLoop(stop: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.#clock.sleep(this.#retryPeriod, stop);
      } catch {
        return;
      }
      // Retry within the deadline (client-go's PollUntilContextTimeout).
      for (;;) {
        if (this.#clock.now() >= this.#renewedAt + this.#renewDeadline) return;
        const renewed = await this.#tryAcquireOrRenew(stop);
        this.#reportTransition();
        if (renewed) break;
        if (stop.aborted) return;
        // A read showed another holder: the race is lost, do not wait out the deadline.
        if (this.getLeader() !== this.#id) return;
        const left = this.#renewedAt + this.#renewDeadline -
          this.#clock.now();
        if (left <= 0) return;
        try {
          await this.#clock.sleep(Math.min(this.#retryPeriod, left), stop);
        } catch {
          return;
        }
      }
    }
  }

  /**
   * One attempt (client-go `tryAcquireOrRenew`), bounded by the renew
   * deadline: a write that lands later could not make us leader anyway.
   * @returns true when this candidate now holds the lease
   */
  async #tryAcquireOrRenew(outer: AbortSignal): Promise<boolean> {
    const now = this.#clock.now();
    const deadline = (this.#leading ? this.#renewedAt : now) +
      this.#renewDeadline;
    const timer = this.#deadline(outer, deadline);
    const opts = { signal: timer.signal };
    const record: LeaderElectionRecord = {
      holderIdentity: this.#id,
      leaseDurationSeconds: this.#leaseDuration / 1_000,
      acquireTime: formatMicroTime(now),
      renewTime: formatMicroTime(now),
      leaderTransitions: 0,
    };
    try {
      // 1. Fast path: the leader updates the lease it last wrote, no read.
      const observed = this.#observed;
      if (this.#leading && observed?.holderIdentity === this.#id) {
        record.acquireTime = observed.acquireTime;
        record.leaderTransitions = observed.leaderTransitions;
        try {
          await this.#lock.update(record, opts);
          return this.#won(record, now);
        } catch (err) {
          if (timer.signal.aborted) return false;
          this.#report(err); // then the slow path: read what is there
        }
      }
      // 2. Read, or create the lease.
      const current = await this.#lock.get(opts);
      if (!current) {
        await this.#lock.create(record, opts);
        return this.#won(record, now);
      }
      // 3. The observation clock: note when the record last changed.
      if (current.raw !== this.#observedRaw) {
        this.#observed = current.record;
        this.#observedRaw = current.raw;
        this.#observedTime = this.#clock.now();
      }
      const held = current.record;
      const expired = this.#observedTime +
          held.leaseDurationSeconds * 1_000 < now;
      const mine = held.holderIdentity === this.#id;
      if (held.holderIdentity !== "" && !expired && !mine) return false;
      // 4. Take or keep it.
      if (mine) {
        record.acquireTime = held.acquireTime;
        record.leaderTransitions = held.leaderTransitions;
      } else {
        record.leaderTransitions = held.leaderTransitions + 1;
      }
      await this.#lock.update(record, opts);
      return this.#won(record, now);
    } catch (err) {
      if (!timer.signal.aborted) this.#report(err);
      return false;
    } finally {
      timer.cancel();
    }
  }

  #won(record: LeaderElectionRecord, startedAt: number): boolean {
    this.#observed = record;
    this.#observedRaw = rawRecord(record);
    this.#observedTime = this.#clock.now();
    this.#renewedAt = startedAt;
    this.#lastErrorMessage = ""; // a failure after a success is news again
    return true;
  }

  /**
   * Give the lease up (client-go `release`): holder "", duration 1 s.
   *
   * The Lease is read first: the last renew may have reached the server
   * while its answer was lost (the leader was cancelled mid-request), so
   * the resourceVersion last seen is stale and a blind write would get 409
   * and leave the Lease naming this candidate until it expires. A write
   * that still conflicts (a renew landing late) is retried with a fresh
   * read, within the renew deadline (client-go retries once). The fresh
   * read's holder decides: a Lease another candidate has taken meanwhile is
   * never cleared (client-go checks its own last observation instead).
   */
  async #release(): Promise<void> {
    if (this.#observed?.holderIdentity !== this.#id) return;
    const start = this.#clock.now();
    const timer = this.#deadline(undefined, start + this.#renewDeadline);
    try {
      for (let attempt = 1;; attempt++) {
        const current = await this.#lock.get({ signal: timer.signal });
        if (current === undefined) return; // deleted: nothing to release
        if (current.raw !== this.#observedRaw) {
          this.#observed = current.record;
          this.#observedRaw = current.raw;
          this.#observedTime = this.#clock.now();
        }
        if (current.record.holderIdentity !== this.#id) {
          this.#reportTransition();
          return;
        }
        const now = this.#clock.now();
        const record: LeaderElectionRecord = {
          holderIdentity: "",
          leaseDurationSeconds: 1,
          acquireTime: formatMicroTime(now),
          renewTime: formatMicroTime(now),
          leaderTransitions: current.record.leaderTransitions,
        };
        try {
          await this.#lock.update(record, { signal: timer.signal });
        } catch (err) {
          if (isConflict(err) && attempt < RELEASE_ATTEMPTS) continue;
          throw err;
        }
        this.#observed = record;
        this.#observedRaw = rawRecord(record);
        this.#observedTime = this.#clock.now();
        this.#reportTransition();
        return;
      }
    } catch (err) {
      // A conflict on the last attempt is worth hearing about here: the
      // Lease stays with this candidate until it expires.
      if (isConflict(err)) {
        this.#reportAlways(
          new Error(
            `leaderelection ${this.#name}: cannot release the lease after ${RELEASE_ATTEMPTS} conflicting writes; it expires on its own`,
            { cause: err },
          ),
        );
      } else this.#report(err);
    } finally {
      timer.cancel();
    }
  }

  /** A signal that aborts with `outer` or when the clock reaches `at`. */
  #deadline(
    outer: AbortSignal | undefined,
    at: number,
  ): { signal: AbortSignal; cancel(): void } {
    const expired = new AbortController();
    const cancelTimer = new AbortController();
    const ms = at - this.#clock.now();
    const reason = new Error(
      `leaderelection ${this.#name}: renew deadline passed`,
    );
    if (ms <= 0) expired.abort(reason);
    else {
      this.#clock.sleep(ms, cancelTimer.signal).then(
        () => expired.abort(reason),
        () => {},
      );
    }
    return {
      signal: outer ? AbortSignal.any([outer, expired.signal]) : expired.signal,
      cancel: () => cancelTimer.abort(),
    };
  }

  /** Wait for `work` to settle, but not past clock time `until`. */
  async #settleWithin(work: Promise<void>, until: number): Promise<void> {
    const cancel = new AbortController();
    const ms = until - this.#clock.now();
    if (ms <= 0) return;
    await Promise.race([
      work,
      this.#clock.sleep(ms, cancel.signal).catch(() => {}),
    ]);
    cancel.abort();
  }

  /** client-go `maybeReportTransition`. */
  #reportTransition(): void {
    const holder = this.getLeader();
    // A released lease (holder "") is no new leader: client-go reports
    // none, and the next holder is reported when one acquires it.
    if (holder === "" || holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    try {
      this.#callbacks.onNewLeader?.(holder);
    } catch (err) {
      this.#report(err);
    }
  }

  /** Report an error, except lost races, and not the same message twice in a row. */
  #report(err: unknown): void {
    if (isConflict(err) || isAlreadyExists(err)) return;
    this.#reportAlways(err);
  }

  /** Report an error unless it repeats the last message. */
  #reportAlways(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (message === this.#lastErrorMessage) return;
    this.#lastErrorMessage = message;
    try {
      this.#onError(err);
    } catch {
      // a throwing reporter must not break the election
    }
  }
}
