/**
 * The Reflector: lists and watches one kind of object and mirrors every
 * change into a store (client-go `tools/cache/reflector.go`, with the paging
 * rules of `tools/pager`).
 *
 * @module
 */

import { Backoff } from "../_util.ts";
import {
  isBadRequest,
  isExpired,
  isInvalid,
  isTooLargeResourceVersion,
  isTooManyRequests,
  StatusError,
} from "../client/rest.ts";
import { type Clock, realClock } from "./clock.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import type { ListerWatcher, ListOptions, WatchEvent } from "./listwatch.ts";
import type { KubeObject } from "./object.ts";

/** Watches time out after a random duration in [this, 2·this) seconds (client-go `defaultMinWatchTimeout`). */
const MIN_WATCH_TIMEOUT_S = 300;
/** A watch silent this long past its `timeoutSeconds` is presumed dead. */
const WATCHDOG_MARGIN_MS = 60_000;
/** A watch that ends with no event sooner than this is a "very short watch". */
const VERY_SHORT_WATCH_MS = 1_000;
/** A watch-list silent this long before its end bookmark falls back to list. */
const WATCH_LIST_END_WAIT_MS = 10_000;
/** Page size when the caller sets none and paging applies (client-go `pager.defaultPageSize`). */
const DEFAULT_PAGE_SIZE = 500;
/** Annotation of the BOOKMARK that ends a watch-list's initial events. */
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/**
 * What a {@link Reflector} writes to: a `DeltaFIFO`, or any `Store`. Each
 * call is synchronous; `replace` takes ownership of the list.
 *
 * @typeParam T the object type
 */
export interface ReflectorStore<T> {
  /** An object was added (watch ADDED). */
  add(obj: T): void;
  /** An object changed (watch MODIFIED). */
  update(obj: T): void;
  /** An object was deleted (watch DELETED); `obj` is its last state. */
  delete(obj: T): void;
  /** The full state at `resourceVersion` (a list or a watch-list). */
  replace(list: T[], resourceVersion: string): void;
  /** The periodic resync (every `resyncPeriod`). */
  resync(): void;
}

/**
 * A backoff schedule: `next()` is the delay (ms) to wait after a failure
 * happening now, `reset()` starts over. The default is 800 ms doubling to
 * 30 s, each delay drawn from [d, 2d), back to 800 ms after 2 min without
 * failure (client-go's Reflector `backoffManager`).
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
 */
export type WatchErrorHandler = (
  reflector: { readonly name: string },
  error: unknown,
) => void;

/** Options of a {@link Reflector}; durations in milliseconds. */
export interface ReflectorOptions {
  /** Name used in logs and errors. @default {"reflector"} */
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
  /** Told about each failed list or watch. @default logs one line with `console.error` */
  watchErrorHandler?: WatchErrorHandler;
  /**
   * Fetch the initial state with a watch-list (`sendInitialEvents=true`)
   * instead of a list; falls back to list+watch when the server rejects it
   * (400/422) or sends no end-of-initial-events bookmark. @default {false}
   */
  useWatchList?: boolean;
}

/**
 * The Reflector's health, for probes and dashboards. Times are epoch ms
 * on the Reflector's clock.
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
}

/** An open watch and what the Reflector tracks about it. */
interface OpenWatch<T> {
  iterator: AsyncIterator<WatchEvent<T>>;
  /** Aborting it cancels the request and the body. */
  controller: AbortController;
  timeoutMs: number;
  openedAt: number;
  lastActivity: number;
  /** Set when the watchdog abandoned the watch. */
  stalled: boolean;
}

/** How one pass over a watch ended. */
interface WatchOutcome {
  events: number;
  /** An ERROR event's Status, or the iterator's rejection. */
  error?: unknown;
  /** The iterator rejected (the stream broke) rather than sending ERROR. */
  broken?: boolean;
  stalled?: boolean;
  /** A watch-list's end-of-initial-events bookmark arrived (the watch stays open). */
  initialEnd?: boolean;
  /** The stream ended (cleanly, or broken, or stalled). */
  ended: boolean;
}

/**
 * Keeps a store in step with the server for one kind of object (client-go
 * `cache.Reflector`). It lists (or watch-lists) the current state into the
 * store with `replace`, then watches from the list's resourceVersion and
 * applies each ADDED/MODIFIED/DELETED with `add`/`update`/`delete`;
 * BOOKMARKs only advance the resourceVersion.
 *
 * Rules (client-go's, see DESIGN.md): the first list is at RV "0" (the
 * apiserver's cache), a relist at the last synced RV, and after a 410
 * Expired/Gone or "too large resource version" at RV "" (a quorum read). A
 * continue token that expires mid-list falls back to one unpaged list at
 * the requested RV. Watches ask for bookmarks and time out after a random
 * 5–10 min; a watch that ends cleanly is reopened at once at the last RV
 * without a list; an ERROR event, a failed watch request or a "very short
 * watch" (no event, under 1 s) ends the cycle: back off, then relist. A
 * broken stream resumes at the last RV. A 429 waits at least its
 * Retry-After. A watch silent for longer than its timeout plus a margin is
 * abandoned and reopened. Every timer runs on the injected clock.
 *
 * {@link run} retries forever with backoff until its signal aborts;
 * {@link listAndWatch} is one cycle.
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
  /** Name used in logs and errors. */
  readonly name: string;

  #lw: ListerWatcher<T>;
  #store: ReflectorStore<T>;
  #clock: Clock;
  #backoff: BackoffPolicy;
  #resyncPeriod: number;
  #shouldResync?: () => boolean;
  #pageSize: number;
  #useWatchList: boolean;
  #errorHandler: WatchErrorHandler;

  #lastSyncRV = "";
  // True after a list or watch at #lastSyncRV failed with 410 or "too large":
  // the next list (or watch-list) goes to RV "".
  #rvUnavailable = false;
  // The first list at RV "0" came back paged: the watch cache is off, so
  // later lists keep paging (client-go `paginatedResult`).
  #paginatedResult = false;
  // The server rejected or ignored a watch-list: use list+watch from now on.
  #watchListUnsupported = false;

  #running?: Promise<void>;
  #disposer = new AbortController();

  #lastEventAt?: number;
  #watchesOpened = 0;
  #syncs = 0;
  #lastError: unknown;
  #lastErrorAt?: number;

  /**
   * Create a Reflector (client-go `NewReflectorWithOptions`).
   * @param lw where objects are listed and watched
   * @param store where they are mirrored (a `DeltaFIFO` or any `Store`)
   * @param opts name, resync, paging, clock, backoff, error handler, watch-list
   * @throws {RangeError} when `resyncPeriod` or `pageSize` is negative or not a number
   */
  constructor(
    lw: ListerWatcher<T>,
    store: ReflectorStore<T>,
    opts: ReflectorOptions = {},
  ) {
    for (const k of ["resyncPeriod", "pageSize"] as const) {
      const v = opts[k];
      if (v !== undefined && !(v >= 0)) {
        throw new RangeError(`Reflector option ${k} must be >= 0: got ${v}`);
      }
    }
    this.#lw = lw;
    this.#store = store;
    this.name = opts.name ?? "reflector";
    this.#clock = opts.clock ?? realClock;
    this.#backoff = opts.backoff ?? new Backoff({ clock: this.#clock });
    this.#resyncPeriod = opts.resyncPeriod ?? 0;
    this.#shouldResync = opts.shouldResync;
    this.#pageSize = opts.pageSize ?? 0;
    this.#useWatchList = opts.useWatchList ?? false;
    this.#errorHandler = opts.watchErrorHandler ?? defaultWatchErrorHandler;
  }

  /**
   * The resourceVersion of the last list or watch event applied to the
   * store (client-go `LastSyncResourceVersion`); `""` before the first list.
   */
  lastSyncResourceVersion(): string {
    return this.#lastSyncRV;
  }

  /** A snapshot of the Reflector's health counters. */
  health(): ReflectorHealth {
    return {
      lastEventAt: this.#lastEventAt,
      watchRestarts: Math.max(0, this.#watchesOpened - 1),
      relists: Math.max(0, this.#syncs - 1),
      lastError: this.#lastError,
      lastErrorAt: this.#lastErrorAt,
      lastSyncResourceVersion: this.#lastSyncRV,
    };
  }

  /**
   * Replace the watch error handler (client-go `SetWatchErrorHandler`).
   * @param handler told about each failed list or watch
   */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    this.#errorHandler = handler;
  }

  /**
   * List and watch until `signal` aborts, backing off between failed
   * cycles (client-go `Run`). Settles once everything is closed, shortly
   * after the abort. Calling it again while it runs returns the same
   * promise: there is never a second loop.
   * @param signal stops the Reflector
   * @returns resolves when stopped; never rejects
   */
  run(signal?: AbortSignal): Promise<void> {
    if (this.#running) return this.#running;
    const stop = signal
      ? AbortSignal.any([signal, this.#disposer.signal])
      : this.#disposer.signal;
    this.#running = this.#loop(stop).finally(() => {
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
   * store, then watch, reopening cleanly ended watches, until a failure
   * that needs a relist. Failures handled inside the cycle (a throttled or
   * broken watch) are reported to the watch error handler.
   * @param signal stops the cycle; it then resolves
   * @throws the failure that ended the cycle (e.g. a `StatusError`)
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    let first: OpenWatch<T> | undefined;
    if (this.#useWatchList && !this.#watchListUnsupported) {
      first = await this.#watchList(signal);
      if (signal.aborted) return closeWatch(first);
    }
    if (!first) {
      await this.#list(signal);
      if (signal.aborted) return;
    }
    const cycle = new AbortController();
    const cycleSignal = AbortSignal.any([signal, cycle.signal]);
    const resync = this.#resyncLoop(cycleSignal, (err) => cycle.abort(err));
    try {
      await this.#watchLoop(first, cycleSignal);
      if (!signal.aborted && cycle.signal.aborted) throw cycle.signal.reason;
    } finally {
      cycle.abort();
      await resync;
    }
  }

  async #loop(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      try {
        await this.listAndWatch(stop);
      } catch (err) {
        if (stop.aborted) break;
        this.#report(err);
        await this.#sleep(this.#delayAfter(err), stop);
        continue;
      }
      if (stop.aborted) break;
      // listAndWatch only returns on abort; guard against a tight loop anyway.
      await this.#sleep(this.#backoff.next(), stop);
    }
  }

  // ---- list ---------------------------------------------------------------

  /** client-go `relistResourceVersion`. */
  #relistRV(): string {
    if (this.#rvUnavailable) return "";
    return this.#lastSyncRV === "" ? "0" : this.#lastSyncRV;
  }

  async #list(signal: AbortSignal): Promise<void> {
    const rv = this.#relistRV();
    let result: { items: T[]; resourceVersion: string; paginated: boolean };
    try {
      result = await this.#listPages(rv, signal);
    } catch (err) {
      if (signal.aborted) return;
      if (!isExpired(err) && !isTooLargeResourceVersion(err)) throw err;
      // The RV is gone or not there yet: retry at once with a quorum read.
      this.#rvUnavailable = true;
      result = await this.#listPages("", signal);
    }
    if (signal.aborted) return;
    if (rv === "0" && result.paginated) this.#paginatedResult = true;
    this.#rvUnavailable = false;
    this.#store.replace(result.items, result.resourceVersion);
    this.#lastSyncRV = result.resourceVersion;
    this.#syncs++;
  }

  /** client-go `pager.List` with `FullListIfExpired`, and the Reflector's page size rule. */
  async #listPages(
    rv: string,
    signal: AbortSignal,
  ): Promise<{ items: T[]; resourceVersion: string; paginated: boolean }> {
    let limit: number | undefined = DEFAULT_PAGE_SIZE;
    if (this.#pageSize > 0) limit = this.#pageSize;
    else if (!this.#paginatedResult && rv !== "" && rv !== "0") {
      // An exact RV without limit can be served from the watch cache.
      limit = undefined;
    }
    const opts: ListOptions = { resourceVersion: rv };
    if (limit !== undefined) opts.limit = limit;
    const items: T[] = [];
    let listRV: string | undefined;
    let paginated = false;
    for (;;) {
      let page;
      try {
        page = await this.#lw.list({ ...opts }, signal);
      } catch (err) {
        if (!opts.continue || !isExpired(err)) throw err;
        // The continue token expired mid-list: one full list at the
        // requested RV (client-go pager's FullListIfExpired).
        const full = await this.#lw.list({ resourceVersion: rv }, signal);
        return {
          items: full.items,
          resourceVersion: full.metadata.resourceVersion ?? "",
          paginated,
        };
      }
      listRV ??= page.metadata.resourceVersion ?? "";
      for (const item of page.items) items.push(item);
      const token = page.metadata.continue;
      if (!token) break;
      // Continue pages carry the token, the limit, and no resourceVersion.
      opts.continue = token;
      delete opts.resourceVersion;
      paginated = true;
    }
    return { items, resourceVersion: listRV, paginated };
  }

  // ---- watch-list ---------------------------------------------------------

  /**
   * client-go `watchList`: stream the state as ADDED events into a scratch
   * store until the end-of-initial-events bookmark, then `replace`. Returns
   * the still-open watch, or undefined to fall back to list+watch.
   */
  async #watchList(signal: AbortSignal): Promise<OpenWatch<T> | undefined> {
    while (!signal.aborted) {
      const scratch = new ScratchStore<T>();
      let rv = "";
      let w: OpenWatch<T>;
      try {
        w = await this.#openWatch({
          resourceVersion: this.#rvUnavailable ? "" : this.#lastSyncRV,
          resourceVersionMatch: "NotOlderThan",
          sendInitialEvents: true,
        }, signal);
      } catch (err) {
        if (signal.aborted) return undefined;
        if (isInvalid(err) || isBadRequest(err)) {
          // A server before watch-list (1.24 answers 422): never ask again.
          this.#watchListUnsupported = true;
          return undefined;
        }
        if (!(await this.#retryWatchListAfter(err, signal))) {
          this.#report(err);
          return undefined;
        }
        continue;
      }
      const out = await this.#consume(w, scratch, signal, {
        silenceLimitMs: WATCH_LIST_END_WAIT_MS,
        stopAtInitialEnd: true,
        setRV: (v) => rv = v,
      });
      if (signal.aborted) return closeWatch(w);
      if (out.initialEnd) {
        this.#rvUnavailable = false;
        this.#store.replace(scratch.list(), rv);
        this.#lastSyncRV = rv;
        this.#syncs++;
        return w;
      }
      closeWatch(w);
      if (out.error !== undefined && !out.stalled) {
        if (await this.#retryWatchListAfter(out.error, signal)) continue;
        this.#report(out.error);
        return undefined;
      }
      // The stream sent objects but no end bookmark before going quiet or
      // ending: the server ignores sendInitialEvents, so use list+watch from
      // now on. An empty stream closed early may just be a dropped
      // connection: fall back for this cycle only.
      if (out.stalled || out.events > 0) this.#watchListUnsupported = true;
      return undefined;
    }
    return undefined;
  }

  /** Whether a watch-list failure is retried as a watch-list (after its wait). */
  async #retryWatchListAfter(
    err: unknown,
    signal: AbortSignal,
  ): Promise<boolean> {
    if (isExpired(err) || isTooLargeResourceVersion(err)) {
      this.#report(err);
      // Retry at once at RV ""; if that was RV "" already, back off first.
      const already = this.#rvUnavailable;
      this.#rvUnavailable = true;
      if (already) await this.#sleep(this.#delayAfter(err), signal);
      return true;
    }
    if (isRetriableWatchError(err)) {
      this.#report(err);
      await this.#sleep(this.#delayAfter(err), signal);
      return true;
    }
    return false;
  }

  // ---- watch --------------------------------------------------------------

  /** client-go `watch`: keep a watch open at the last RV until a failure needs a relist. */
  async #watchLoop(
    first: OpenWatch<T> | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    let w = first;
    for (;;) {
      if (signal.aborted) return closeWatch(w);
      if (!w) {
        try {
          w = await this.#openWatch(
            { resourceVersion: this.#lastSyncRV },
            signal,
          );
        } catch (err) {
          if (signal.aborted) return;
          if (!isRetriableWatchError(err)) throw this.#noteUnavailable(err);
          this.#report(err);
          await this.#sleep(this.#delayAfter(err), signal);
          continue;
        }
      }
      const out = await this.#consume(w, this.#store, signal, {
        silenceLimitMs: w.timeoutMs + WATCHDOG_MARGIN_MS,
        setRV: (v) => this.#lastSyncRV = v,
      });
      closeWatch(w);
      const lasted = this.#clock.now() - w.openedAt;
      w = undefined;
      if (signal.aborted) return;
      if (out.stalled) {
        this.#report(
          new Error(
            `${this.name}: abandoned a watch silent for longer than its timeout plus ${WATCHDOG_MARGIN_MS} ms`,
          ),
        );
        continue;
      }
      const veryShort = out.events === 0 && lasted < VERY_SHORT_WATCH_MS;
      if (out.broken) {
        // A cut stream resumes at the last RV, after a backoff when it
        // delivered nothing (so a connection that keeps breaking is no
        // tight loop).
        this.#report(out.error);
        if (veryShort) await this.#sleep(this.#delayAfter(out.error), signal);
        continue;
      }
      if (out.error !== undefined) {
        if (!isTooManyRequests(out.error)) {
          throw this.#noteUnavailable(out.error);
        }
        this.#report(out.error);
        await this.#sleep(this.#delayAfter(out.error), signal);
        continue;
      }
      if (veryShort) {
        throw new Error(
          `${this.name}: very short watch: the watch lasted ${lasted} ms and delivered no event`,
        );
      }
      // Ended cleanly (server timeout, closed after events): reopen at once.
    }
  }

  /** Remember that the last RV is gone after a 410 or "too large"; returns `err`. */
  #noteUnavailable(err: unknown): unknown {
    if (isExpired(err) || isTooLargeResourceVersion(err)) {
      this.#rvUnavailable = true;
    }
    return err;
  }

  async #openWatch(
    extra: ListOptions,
    signal: AbortSignal,
  ): Promise<OpenWatch<T>> {
    // Spread the watches' ends over [5, 10) min, as client-go does.
    const timeoutSeconds = Math.floor(
      MIN_WATCH_TIMEOUT_S * (1 + Math.random()),
    );
    const controller = new AbortController();
    // Start the clock before the request: some proxies hold headers until the first event.
    const openedAt = this.#clock.now();
    const iterable = await this.#lw.watch({
      ...extra,
      allowWatchBookmarks: true,
      timeoutSeconds,
    }, AbortSignal.any([signal, controller.signal]));
    this.#watchesOpened++;
    return {
      iterator: iterable[Symbol.asyncIterator](),
      controller,
      timeoutMs: timeoutSeconds * 1000,
      openedAt,
      lastActivity: openedAt,
      stalled: false,
    };
  }

  /**
   * client-go `handleAnyWatch`: apply events to `store` until the stream
   * ends, fails, goes silent past `silenceLimitMs`, or (watch-list) the
   * end-of-initial-events bookmark arrives.
   */
  async #consume(
    w: OpenWatch<T>,
    store: ReflectorStore<T>,
    signal: AbortSignal,
    opts: {
      silenceLimitMs: number;
      stopAtInitialEnd?: boolean;
      setRV: (rv: string) => void;
    },
  ): Promise<WatchOutcome> {
    const done = new AbortController();
    const stop = AbortSignal.any([signal, w.controller.signal]);
    w.lastActivity = this.#clock.now();
    const watchdog = this.#watchdog(w, opts.silenceLimitMs, done.signal);
    using source = new AbortableNext(w.iterator, stop);
    let events = 0;
    try {
      for (;;) {
        let r: IteratorResult<WatchEvent<T>> | undefined;
        try {
          r = await source.next();
        } catch (error) {
          if (stop.aborted) r = undefined;
          else return { events, error, broken: true, ended: true };
        }
        if (r === undefined) {
          return { events, stalled: w.stalled, ended: true };
        }
        if (r.done) return { events, ended: true };
        const ev = r.value;
        w.lastActivity = this.#lastEventAt = this.#clock.now();
        events++;
        if (ev.type === "ERROR") {
          return {
            events,
            error: StatusError.fromStatus(ev.object),
            ended: true,
          };
        }
        this.#apply(store, ev);
        const rv = ev.object?.metadata?.resourceVersion;
        if (rv) opts.setRV(rv);
        if (
          opts.stopAtInitialEnd && ev.type === "BOOKMARK" &&
          ev.object.metadata?.annotations?.[INITIAL_EVENTS_END] === "true"
        ) {
          return { events, initialEnd: true, ended: false };
        }
      }
    } finally {
      done.abort();
      await watchdog;
    }
  }

  #apply(store: ReflectorStore<T>, ev: WatchEvent<T>): void {
    try {
      switch (ev.type) {
        case "ADDED":
          store.add(ev.object);
          break;
        case "MODIFIED":
          store.update(ev.object);
          break;
        case "DELETED":
          store.delete(ev.object);
          break;
        case "BOOKMARK":
          break;
        default:
          throw new TypeError(
            `Cannot apply a watch event of unknown type: ${
              (ev as { type: unknown }).type
            }`,
          );
      }
    } catch (err) {
      // client-go logs a store error and keeps watching.
      this.#report(err);
    }
  }

  /** Abandon `w` (abort its request) once it has been silent for `limitMs`. */
  async #watchdog(
    w: OpenWatch<T>,
    limitMs: number,
    done: AbortSignal,
  ): Promise<void> {
    while (!done.aborted) {
      const due = w.lastActivity + limitMs;
      const now = this.#clock.now();
      if (now >= due) {
        w.stalled = true;
        w.controller.abort(new Error(`${this.name}: watch went silent`));
        return;
      }
      try {
        await this.#clock.sleep(due - now, done);
      } catch {
        return;
      }
    }
  }

  // ---- resync, backoff, reporting -----------------------------------------

  async #resyncLoop(
    signal: AbortSignal,
    fail: (err: unknown) => void,
  ): Promise<void> {
    if (!(this.#resyncPeriod > 0)) return;
    while (!signal.aborted) {
      try {
        await this.#clock.sleep(this.#resyncPeriod, signal);
      } catch {
        return;
      }
      if (this.#shouldResync && !this.#shouldResync()) continue;
      try {
        this.#store.resync();
      } catch (err) {
        fail(err);
        return;
      }
    }
  }

  /** The next backoff delay, at least the Retry-After of a 429. */
  #delayAfter(err: unknown): number {
    const delay = this.#backoff.next();
    const retryAfter = err instanceof StatusError && isTooManyRequests(err)
      ? (err.retryAfterSeconds ?? 0) * 1000
      : 0;
    return Math.max(delay, retryAfter);
  }

  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    try {
      await this.#clock.sleep(ms, signal);
    } catch {
      // Aborted: the caller checks the signal.
    }
  }

  #report(err: unknown): void {
    this.#lastError = err;
    this.#lastErrorAt = this.#clock.now();
    try {
      this.#errorHandler(this, err);
    } catch (handlerError) {
      console.error(`${this.name}: watch error handler threw`, handlerError);
    }
  }
}

/** The default {@link WatchErrorHandler}: one line on stderr. */
function defaultWatchErrorHandler(
  reflector: { readonly name: string },
  error: unknown,
): void {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`${reflector.name}: list/watch failed: ${message}`);
}

/**
 * client-go `isWatchErrorRetriable`: a throttled request, or a network
 * failure (no Status at all), is retried as a watch at the same RV.
 */
function isRetriableWatchError(err: unknown): boolean {
  return isTooManyRequests(err) || !(err instanceof StatusError);
}

/**
 * Races each `next()` of an iterator against one abort signal, with a single
 * abort listener for the iterator's whole life (adding and removing a
 * listener per event cost ~14% of the watch path's CPU). A `next()` resolves
 * `undefined` once the signal aborts, even if the iterator ignores it.
 */
class AbortableNext<R> {
  #settle: ((r: IteratorResult<R> | undefined) => void) | undefined;
  #onAbort = () => this.#settle?.(undefined);

  constructor(
    readonly iterator: AsyncIterator<R>,
    readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  next(): Promise<IteratorResult<R> | undefined> {
    if (this.signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.#settle = resolve;
      this.iterator.next().then(resolve, reject);
    });
  }

  [Symbol.dispose](): void {
    this.signal.removeEventListener("abort", this.#onAbort);
    this.#settle = undefined;
  }
}

/** Cancel a watch's request and release its iterator; returns undefined. */
function closeWatch<T>(w: OpenWatch<T> | undefined): undefined {
  if (!w) return undefined;
  w.controller.abort();
  // Not awaited: a generator's return() waits for a pending next().
  Promise.resolve(w.iterator.return?.()).catch(() => {});
  return undefined;
}

/** The scratch store a watch-list fills before `replace` (client-go's temporary `Store`). */
class ScratchStore<T extends KubeObject> implements ReflectorStore<T> {
  #items = new Map<string, T>();
  add(obj: T): void {
    this.#items.set(metaNamespaceKeyFunc(obj), obj);
  }
  update(obj: T): void {
    this.add(obj);
  }
  delete(obj: T): void {
    this.#items.delete(metaNamespaceKeyFunc(obj));
  }
  replace(): void {}
  resync(): void {}
  list(): T[] {
    return [...this.#items.values()];
  }
}
