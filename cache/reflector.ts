/**
 * The Reflector: lists and watches one kind of object and mirrors every
 * change into a store (client-go `tools/cache/reflector.go`, with the paging
 * rules of `tools/pager`).
 *
 * @module
 */

import {
  checkClock,
  checkDuration,
  checkListerWatcher,
  checkMethods,
  checkOptions,
  checkSignal,
  show,
} from "./_validate.ts";
import { Backoff } from "../api/backoff.ts";
import { isTooManyRequests, StatusError } from "../api/errors.ts";
import {
  classify,
  initialState,
  isPermissionDenied,
  type ReflectorInput,
  type ReflectorState,
  step,
  type Transition,
} from "./_reflector_state.ts";
import { listAction, type ListContext } from "./_reflector_list.ts";
import {
  logReflectorStatus,
  type ReflectorStatusListener,
  StatusReporter,
} from "./reflector_status.ts";
import {
  closeWatch,
  consumeWatch,
  type OpenWatch,
  openWatch,
  ResyncTimer,
  WATCH_LIST_END_WAIT_MS,
  WATCHDOG_MARGIN_MS,
  type WatchHost,
} from "./_reflector_watch.ts";
import { type Clock, realClock } from "../api/clock.ts";
import type { ExpectedType, ListerWatcher } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { checkShardSelector } from "../api/shard_selector.ts";
import { shardFilteredListWatch } from "../api/shard_filter.ts";

import type { ReflectorStore } from "./store.ts";

export {
  logReflectorStatus,
  type ReflectorStatus,
  type ReflectorStatusListener,
} from "./reflector_status.ts";

/**
 * A backoff schedule: `next()` is the delay (ms) to wait after a failure
 * happening now, `reset()` starts over. The default is 800 ms doubling to
 * 30 s, each delay drawn from [d, 2d), back to 800 ms after 2 min without
 * failure (client-go's Reflector `backoffManager`).
 *
 * @example A fixed delay
 * ```ts
 * import { type BackoffPolicy, metaNamespaceKeyFunc, newStore, Reflector } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const fixed: BackoffPolicy = { next: () => 5_000, reset: () => {} };
 * const reflector = new Reflector(new FakeControllerSource(), newStore(metaNamespaceKeyFunc), { backoff: fixed });
 * assert.equal(fixed.next(), 5_000);
 * void reflector;
 * ```
 */
export interface BackoffPolicy {
  /** The delay in milliseconds to wait after a failure happening now. */
  next(): number;
  /** Start over at the initial delay. */
  reset(): void;
}

/**
 * Told about every failed list or watch, once per failure, before the
 * Reflector backs off and retries (client-go `WatchErrorHandler`). Should
 * return quickly.
 *
 * @example Count failed lists and watches
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, type WatchErrorHandler } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const source = new FakeControllerSource<KubeObject>();
 * source.failNext("list", new Error("connection refused"));
 * const failures: string[] = [];
 * const handler: WatchErrorHandler = (_reflector, error) => void failures.push((error as Error).message);
 * const informer = newSharedIndexInformer(source, { clock });
 * informer.setWatchErrorHandler(handler);
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * await clock.waitForWaiters(); // backing off after the failed list
 * assert.deepEqual(failures, ["connection refused"]);
 * stop.abort();
 * await running;
 * ```
 */
export type WatchErrorHandler = (
  reflector: { readonly name: string },
  error: unknown,
) => void;

/**
 * Options of a {@link Reflector}; durations in milliseconds.
 *
 * @example Name, clock, backoff and error handler
 * ```ts
 * import { metaNamespaceKeyFunc, newStore, Reflector, type ReflectorOptions } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const source = new FakeControllerSource();
 * source.failNext("list", new Error("connection refused"));
 * const failures: string[] = [];
 * const opts: ReflectorOptions = {
 *   name: "configmaps",
 *   resyncPeriod: 0,
 *   pageSize: 500,
 *   clock,
 *   backoff: { next: () => 1_000, reset: () => {} }, // instead of 800 ms doubling to 30 s
 *   watchErrorHandler: (r, err) => failures.push(`${r.name}: ${(err as Error).message}`),
 * };
 * const reflector = new Reflector(source, newStore(metaNamespaceKeyFunc), opts);
 * const stop = new AbortController();
 * const running = reflector.run(stop.signal);
 * await clock.waitForWaiters(); // backing off, on the fake clock
 * assert.deepEqual(failures, ["configmaps: connection refused"]);
 * stop.abort();
 * await running;
 * ```
 */
export interface ReflectorOptions {
  /**
   * Name used in logs, errors and status lines.
   * @default {the ListerWatcher's `description` (e.g. "configmaps in team-a"), else "reflector"}
   */
  name?: string;
  /** How often to call the store's `resync`; 0 = never. @default {0} */
  resyncPeriod?: number;
  /** Asked before each resync; `false` skips it. @default {() => true} */
  shouldResync?: () => boolean;
  /**
   * `limit` of every list page, continue pages included (client-go
   * `WatchListPageSize`). When unset, lists at RV "0" and "" ask for 500 per
   * page and lists at an exact RV are not paged (so the apiserver's watch
   * cache can serve them), unless the first list at "0" came back paged.
   */
  pageSize?: number;
  /** Time source for every timer. @default {realClock} */
  clock?: Clock;
  /** Backoff between failures. @default 800 ms ×2 up to 30 s, jitter 1.0, reset after 2 min */
  backoff?: BackoffPolicy;
  /**
   * Told about each failed list or watch (client-go `WatchErrorHandler`).
   * Setting one turns the default log off unless `onStatus` is set too.
   * @default {none: failures reach the default log through `onStatus`}
   */
  watchErrorHandler?: WatchErrorHandler;
  /**
   * Told about each {@link ReflectorStatus} change: failures with their
   * root cause and the wait before the retry, recoveries, skipped objects.
   * @default {logReflectorStatus, unless `watchErrorHandler` is set}
   */
  onStatus?: ReflectorStatusListener;
  /**
   * The apiVersion and kind every watched object must have (client-go's
   * expected GVK); an object that names another is skipped, never applied
   * and never moving the resume RV. Objects without apiVersion/kind pass.
   * @default {the ListerWatcher's `expectedType`; none: no check}
   */
  expectedType?: ExpectedType;
  /**
   * Fetch the initial state with a watch-list (`sendInitialEvents=true`)
   * instead of a list; falls back to list+watch when the server rejects it
   * (400/422) or sends no end-of-initial-events bookmark. @default {false}
   */
  useWatchList?: boolean;
  /**
   * Shard selector of every list and watch (`shardRange(...)` terms joined
   * by `||`, see `shardRange`): the store gets only the objects in the
   * ranges. A list page whose `metadata.shardInfo.selector` echoes it was
   * filtered by the server; any other page, and every watch event, is
   * tested here with the server's 64-bit FNV-1a hash and range test, so the
   * store's contents do not depend on the server's version.
   * @default {none: no sharding}
   */
  shardSelector?: string;
}

/**
 * The Reflector's health, for probes and dashboards. Times are epoch ms
 * on the Reflector's clock.
 *
 * @example A readiness probe
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, type ReflectorHealth, waitForCacheSync } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const ready = (h: ReflectorHealth | undefined) => h !== undefined && h.failures === 0 && h.lastSyncResourceVersion !== "";
 * const informer = newSharedIndexInformer(new FakeControllerSource<KubeObject>());
 * assert.equal(ready(informer.health()), false); // not running
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * await waitForCacheSync(stop.signal, informer.hasSynced);
 * assert.equal(ready(informer.health()), true);
 * stop.abort();
 * await running;
 * ```
 */
export interface ReflectorHealth {
  /** When the last watch event (bookmarks included) arrived; undefined before any. */
  lastEventAt: number | undefined;
  /** Watches opened after the first one. */
  watchRestarts: number;
  /** Successful lists (or watch-lists) after the first one. */
  relists: number;
  /** The last failure reported to the watch error handler; undefined before any. */
  lastError: unknown;
  /** When {@link lastError} happened. */
  lastErrorAt: number | undefined;
  /** Same as `Reflector.lastSyncResourceVersion()`. */
  lastSyncResourceVersion: string;
  /** Watched objects skipped for an unexpected apiVersion/kind. */
  skippedObjects: number;
  /**
   * When the watched objects began to be skipped in a row (every one since
   * was of an unexpected apiVersion/kind, so none reached the cache: it is
   * going stale); undefined when the last watched object was applied. A
   * health check should treat a set value as unhealthy.
   */
  skippingSince: number | undefined;
  /** Failures since the last success; 0 when healthy. */
  failures: number;
}

/**
 * Keeps a store in step with the server for one kind of object (client-go
 * `cache.Reflector`). It lists (or watch-lists) the current state into the
 * store with `replace`, then watches from the list's resourceVersion and
 * applies each ADDED/MODIFIED/DELETED with `add`/`update`/`delete`;
 * BOOKMARKs only advance the resourceVersion.
 *
 * Rules (client-go's, see docs/behaviour.md): the first list is at RV "0" (the
 * apiserver's cache), a relist at the last synced RV — also after a watch
 * answered 410 Expired/Gone, at once, since the server has answered. Only
 * after a LIST answered 410 or "too large resource version" does the next
 * list go to RV "" (a quorum read). A continue token that expires mid-list
 * falls back to one unpaged list at the requested RV. Watches ask for
 * bookmarks and time out after a random 5–10 min; a watch that ends cleanly
 * is reopened at once at the last RV without a list; a failed watch request
 * or ERROR event backs off (a 429 at least its Retry-After, a refused
 * connection retried as a watch); a "very short watch" (no event, under
 * 1 s, clean or broken) backs off and relists. A stream cut after events
 * resumes at the last RV. A watch from RV ""/"0" does not move the RV on its
 * initial ADDEDs. A watch silent for longer than its timeout plus a margin
 * is abandoned and reopened. Every timer runs on the injected clock. The
 * cycle is a state machine (`_reflector_state.ts`).
 *
 * {@link run} retries with backoff until its signal aborts, except after a
 * permission Deno denied (no `--allow-net` for the server), where it
 * stops and rejects; {@link listAndWatch} is one cycle.
 *
 * @typeParam T the object type
 *
 * @example Mirror a source into a store
 * ```ts
 * import { Reflector, type KubeObject } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "ns", name: "a" } });
 * const seen: string[] = [];
 * const added = Promise.withResolvers<void>();
 * const store = {
 *   replace(list: KubeObject[], rv: string) {
 *     seen.push(`replace ${list.length} @${rv}`);
 *     source.add({ metadata: { namespace: "ns", name: "b" } }); // the watch delivers it
 *   },
 *   add(obj: KubeObject) {
 *     seen.push(`add ${obj.metadata.name}`);
 *     added.resolve();
 *   },
 *   update() {},
 *   delete() {},
 *   resync() {},
 * };
 * const ctl = new AbortController();
 * const reflector = new Reflector(source, store, { name: "configmaps" });
 * const done = reflector.run(ctl.signal);
 * await added.promise;
 * ctl.abort();
 * await done;
 * assert.deepEqual(seen, ["replace 1 @1", "add b"]);
 * assert.equal(reflector.lastSyncResourceVersion(), "2");
 * ```
 */
export class Reflector<T extends KubeObject = KubeObject>
  implements AsyncDisposable {
  /** Name used in logs, errors and status lines. */
  readonly name: string;

  #lw: ListerWatcher<T>;
  #store: ReflectorStore<T>;
  #clock: Clock;
  #backoff: BackoffPolicy;
  #resyncPeriod: number;
  #shouldResync?: () => boolean;
  #errorHandler: WatchErrorHandler | undefined;
  #onStatus: ReflectorStatusListener | undefined;
  #defaultLog: boolean;

  /** The cycle's state; its `rv` is the last synced RV. Changed only through `step` (and `rv` per event). */
  #state: ReflectorState = initialState();
  /** The wait of the current `Backoff` state. */
  #backoffDelay = 0;
  /** What the list action needs (the server facts are in the state). */
  #list: ListContext<T>;
  /** The resync timer of the current cycle (from a successful list to the next relist). */
  #resync?: ResyncTimer;

  #running?: Promise<void>;
  #disposer = new AbortController();

  #lastEventAt?: number;
  #watchesOpened = 0;
  #syncs = 0;
  #lastError: unknown;
  #lastErrorAt?: number;
  #status: StatusReporter;
  /** What the watch consumption (`consumeWatch`) reads and reports through. */
  #host: WatchHost;

  /**
   * Create a Reflector (client-go `NewReflectorWithOptions`).
   * @param lw where objects are listed and watched
   * @param store where they are mirrored (a `DeltaFIFO` or any `Store`)
   * @param opts name, resync, paging, clock, backoff, error and status listeners, expected type, watch-list
   * @throws {RangeError} when `resyncPeriod` or `pageSize` is negative or not a number
   * @throws {TypeError} when `lw` or `store` lacks a method, or an option has the wrong type
   */
  constructor(
    lw: ListerWatcher<T>,
    store: ReflectorStore<T>,
    opts: ReflectorOptions = {},
  ) {
    const call = "new Reflector";
    checkListerWatcher(call, "lw", lw);
    checkMethods(call, "store", store, "a store such as a DeltaFIFO", [
      "add",
      "update",
      "delete",
      "replace",
      "resync",
    ]);
    checkOptions(call, "opts", opts);
    checkDuration(call, "opts.resyncPeriod", opts.resyncPeriod);
    if (opts.pageSize !== undefined && !(opts.pageSize >= 0)) {
      throw new RangeError(
        `${call}: opts.pageSize must be a number >= 0, got ${
          show(opts.pageSize)
        }`,
      );
    }
    checkClock(call, "opts.clock", opts.clock);
    checkShardSelector(call, "opts.shardSelector", opts.shardSelector);
    if (opts.shardSelector) {
      lw = shardFilteredListWatch(lw, opts.shardSelector);
    }
    this.#lw = lw;
    this.#store = store;
    this.name = opts.name ?? lw.description ?? "reflector";
    this.#clock = opts.clock ?? realClock;
    this.#backoff = opts.backoff ?? new Backoff({ clock: this.#clock });
    this.#resyncPeriod = opts.resyncPeriod ?? 0;
    this.#shouldResync = opts.shouldResync;
    this.#list = {
      lw,
      store,
      clock: this.#clock,
      pageSize: opts.pageSize ?? 0,
      useWatchList: opts.useWatchList ?? false,
      onListed: () => this.#syncs++,
      onWatchOpened: () => this.#watchesOpened++,
      report: (err) => this.#report(err),
      consumeInitialEvents: (w, into, signal, target) =>
        consumeWatch(this.#host, w, into, signal, target, {
          silenceLimitMs: WATCH_LIST_END_WAIT_MS,
          stopAtInitialEnd: true,
        }),
    };
    this.#errorHandler = opts.watchErrorHandler;
    this.#onStatus = opts.onStatus;
    this.#defaultLog = !opts.onStatus && !opts.watchErrorHandler;
    this.#status = new StatusReporter(
      this,
      () => this.#clock.now(),
      () =>
        this.#onStatus ?? (this.#defaultLog ? logReflectorStatus : undefined),
    );
    const status = this.#status;
    this.#host = {
      name: this.name,
      clock: this.#clock,
      expected: opts.expectedType ?? lw.expectedType,
      status: this.#status,
      get failing() {
        return status.failing;
      },
      healthy: () => this.#enter(step(this.#state, { type: "watchHealthy" })),
      eventsArrived: (at) => {
        this.#lastEventAt = at;
      },
      report: (err) => this.#report(err),
    };
  }

  /**
   * The resourceVersion of the last list or watch event applied to the
   * store (client-go `LastSyncResourceVersion`); `""` before the first list.
   */
  lastSyncResourceVersion(): string {
    return this.#state.rv;
  }

  /** A snapshot of the Reflector's health counters. */
  health(): ReflectorHealth {
    return {
      lastEventAt: this.#lastEventAt,
      watchRestarts: Math.max(0, this.#watchesOpened - 1),
      relists: Math.max(0, this.#syncs - 1),
      lastError: this.#lastError,
      lastErrorAt: this.#lastErrorAt,
      lastSyncResourceVersion: this.#state.rv,
      skippedObjects: this.#status.skipped,
      skippingSince: this.#status.streakSince,
      failures: this.#status.failures,
    };
  }

  /**
   * Replace the watch error handler (client-go `SetWatchErrorHandler`);
   * like client-go's, it replaces the default log unless `onStatus` was set.
   * @param handler told about each failed list or watch
   */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    this.#errorHandler = handler;
    this.#defaultLog = false;
  }

  /**
   * List and watch until `signal` aborts, backing off between failures
   * (client-go `Run`). Settles once everything is closed, shortly after the
   * abort. Calling it again while it runs returns the same promise: there
   * is never a second loop.
   * @param signal stops the Reflector
   * @returns resolves when stopped; rejects only when Deno denies a
   *   permission the requests need (`Deno.errors.NotCapable`, e.g. no
   *   `--allow-net` for the server), which no retry can fix
   */
  run(signal?: AbortSignal): Promise<void> {
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      return Promise.reject(
        new TypeError(
          `Reflector.run: signal must be an AbortSignal, got ${show(signal)}`,
        ),
      );
    }
    if (this.#running) return this.#running;
    const stop = signal
      ? AbortSignal.any([signal, this.#disposer.signal])
      : this.#disposer.signal;
    this.#running = this.#drive(stop, false).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Stop {@link run} and wait until it has settled. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#disposer.abort();
    await this.#running;
  }

  /**
   * One cycle (client-go `ListAndWatch`): list (or watch-list) into the
   * store, then watch, reopening watches at the last RV, until a failure
   * that needs a backoff and a relist. Failures handled inside the cycle (a
   * throttled or broken watch) are reported to the watch error handler.
   * @param signal stops the cycle; it then resolves
   * @throws the failure that ended the cycle (e.g. a `StatusError`)
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    checkSignal("Reflector.listAndWatch", "signal", signal);
    this.#state = step(this.#state, { type: "restart" }).state;
    await this.#drive(signal, true);
  }

  /**
   * Run the state machine: perform what the state asks for, classify the
   * outcome, take the transition. `oneCycle`: throw the failure that leads
   * to a backoff before a relist, instead of waiting it out.
   */
  async #drive(signal: AbortSignal, oneCycle: boolean): Promise<void> {
    // A watch-list's stream, or a just-opened watch, handed to `Watching`.
    let open: OpenWatch<T> | undefined;
    try {
      while (!signal.aborted) {
        const s = this.#state;
        const cycle = this.#resync?.failed;
        const actionSignal = cycle ? AbortSignal.any([signal, cycle]) : signal;
        let input: ReflectorInput;
        switch (s.type) {
          case "Empty": {
            const r = await listAction(this.#list, s, signal);
            input = r.input;
            open = r.watch;
            break;
          }
          case "InitListed":
            try {
              open = await openWatch(
                this.#lw,
                this.#clock,
                { resourceVersion: s.rv },
                actionSignal,
              );
              this.#watchesOpened++;
              input = { type: "watchOpened" };
            } catch (error) {
              input = { type: "watchOpenFailed", kind: classify(error), error };
            }
            break;
          case "Watching":
            input = await this.#watchAction(s, open!, actionSignal);
            open = undefined;
            break;
          case "Backoff":
            input = await this.#sleep(this.#backoffDelay, signal)
              ? { type: "slept" }
              : { type: "aborted" };
            break;
        }
        // Cut short by the run's signal: the cycle stops where it is.
        if (signal.aborted || input.type === "aborted") return;
        const error = (input as { error?: unknown }).error;
        if (error !== undefined && isPermissionDenied(error)) {
          // Deno refused the request (no --allow-net for the server):
          // retrying cannot help, so stop and let the caller fail.
          this.#report(error);
          throw error;
        }
        if (cycle?.aborted) {
          open = closeWatch(open);
          input = { type: "cycleFailed", error: cycle.reason };
        }
        const t = step(s, input);
        const relistAfterBackoff = t.state.type === "Backoff" &&
          t.state.then.type === "Empty";
        if (oneCycle && relistAfterBackoff) {
          this.#state = t.state;
          await this.#stopResync();
          throw (t.state as { error: unknown }).error;
        }
        this.#enter(t, s, input);
      }
    } finally {
      closeWatch(open);
      await this.#stopResync();
    }
  }

  /**
   * Take transition `t` (out of `prev` on `input`): report, reset or draw
   * the backoff, tell the status reporter (the one place the outage
   * bookkeeping changes), run the resync timer.
   */
  #enter(t: Transition, prev?: ReflectorState, input?: ReflectorInput): void {
    const next = t.state;
    const changed = next !== this.#state;
    this.#state = next;
    if (t.resetBackoff) this.#backoff.reset();
    if (t.report !== undefined) this.#report(t.report);
    if (t.recovered) this.#status.recovered(t.recovered === "list");
    if (next.type === "Backoff") {
      this.#backoffDelay = this.#delayAfter(next.error);
      this.#status.failed(
        next.error,
        this.#backoffDelay,
        next.then.type === "Empty" ? "list" : "watch",
      );
    } else if (t.report !== undefined) {
      this.#status.restarted(
        t.report,
        next.type === "Empty" ? "list" : "watch",
      );
    }
    if (input?.type === "listed" && prev?.type === "Empty") {
      this.#startResync();
    }
    if (
      changed && (next.type === "Empty" ||
        (next.type === "Backoff" && next.then.type === "Empty"))
    ) {
      void this.#stopResync();
    }
  }

  // ---- watch --------------------------------------------------------------

  /** The action of a `Watching` state: apply events until the watch ends. */
  async #watchAction(
    s: Extract<ReflectorState, { type: "Watching" }>,
    w: OpenWatch<T>,
    signal: AbortSignal,
  ): Promise<ReflectorInput> {
    const out = await consumeWatch(this.#host, w, this.#store, signal, s, {
      silenceLimitMs: w.timeoutMs + WATCHDOG_MARGIN_MS,
      confirmRecovery: this.#status.failing,
    });
    closeWatch(w);
    const lastedMs = this.#clock.now() - w.openedAt;
    const { end, events } = out;
    return {
      type: "watchEnded",
      end: end === "initialEnd" ? "clean" : end,
      events,
      lastedMs,
      error: end === "stalled"
        ? new Error(
          `abandoned a watch silent for longer than its timeout plus ${WATCHDOG_MARGIN_MS} ms`,
        )
        : out.error,
      kind: end === "error" || end === "broken"
        ? classify(out.error)
        : undefined,
    };
  }

  // ---- resync, backoff, reporting -----------------------------------------

  #startResync(): void {
    if (!(this.#resyncPeriod > 0) || this.#resync) return;
    this.#resync = new ResyncTimer(this.#clock, this.#resyncPeriod, () => {
      if (this.#shouldResync && !this.#shouldResync()) return;
      this.#store.resync();
    });
  }

  async #stopResync(): Promise<void> {
    const r = this.#resync;
    this.#resync = undefined;
    await r?.stop();
  }

  /** The next backoff delay, at least the Retry-After of a 429. */
  #delayAfter(err: unknown): number {
    const delay = this.#backoff.next();
    const retryAfter = err instanceof StatusError && isTooManyRequests(err)
      ? (err.retryAfterSeconds ?? 0) * 1000
      : 0;
    return Math.max(delay, retryAfter);
  }

  /** Sleep `ms` on the clock; false when `signal` cut it short. */
  async #sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  #report(err: unknown): void {
    this.#lastError = err;
    this.#lastErrorAt = this.#clock.now();
    if (!this.#errorHandler) return;
    try {
      this.#errorHandler(this, err);
    } catch (handlerError) {
      console.error(`${this.name}: watch error handler threw`, handlerError);
    }
  }
}
