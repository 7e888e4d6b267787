/**
 * An in-memory {@link ListerWatcher} for tests: client-go
 * `tools/cache/testing/fake_controller_source.go`, plus paging, history
 * compaction, watch-list and failure injection so every Reflector path can
 * be driven without a server.
 *
 * @module
 */

import type {
  ListerWatcher,
  ListOptions,
  ObjectList,
  WatchEvent,
} from "../api/listwatch.ts";
import type { KubeObject, Status } from "../api/object.ts";
import { StatusError } from "../api/errors.ts";

/** The annotation on the BOOKMARK that ends a watch-list's initial events. */
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/**
 * How a {@link FakeControllerSource} answers a watch with
 * `sendInitialEvents=true`: `"supported"` streams the current objects as
 * ADDED then the end-of-initial-events BOOKMARK (a 1.27+ server);
 * `"rejected"` answers 422 Invalid (a 1.24 server); `"ignored"` treats it
 * as a plain watch (a server that drops unknown parameters).
 *
 * @example The three kinds of server
 * ```ts
 * import type { FakeWatchListMode } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const modes: FakeWatchListMode[] = ["supported", "rejected", "ignored"];
 * assert.equal(modes.length, 3);
 * ```
 */
export type FakeWatchListMode = "supported" | "rejected" | "ignored";

/**
 * Options of {@link FakeControllerSource}.
 *
 * @example A source that refuses watch-lists
 * ```ts
 * import { FakeControllerSource, type FakeControllerSourceOptions } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const opts: FakeControllerSourceOptions = { watchList: "rejected" };
 * const source = new FakeControllerSource(opts);
 * await assert.rejects(source.watch({ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" }));
 * ```
 */
export interface FakeControllerSourceOptions {
  /** Watch-list behaviour. @default {"supported"} */
  watchList?: FakeWatchListMode;
}

/** A recorded change: the event and whether open watches were told. */
interface Change<T> {
  event: WatchEvent<T>;
}

/** A consistent snapshot behind a continue token. */
interface Snapshot<T> {
  items: T[];
  offset: number;
  resourceVersion: string;
}

/**
 * An in-memory source of objects that lists and watches like an apiserver
 * (client-go `fcache.FakeControllerSource`). Every change gets the next
 * resourceVersion ("1", "2", ...; a source listed before its first change
 * is at "1", as an apiserver never lists at "0"); objects are stored by
 * namespace/name/uid, so an object recreated with a new uid is a different
 * entry, as in client-go. Watches replay the history after their
 * resourceVersion, then receive later changes; `*DropWatch` changes are
 * kept from open watches (only a relist sees them).
 *
 * Beyond client-go's fake it pages (`limit`/`continue` over a snapshot),
 * forgets history on {@link compact} (old watches get an ERROR 410 event,
 * old continue tokens a 410), streams watch-lists, records every call's
 * options in {@link listCalls} / {@link watchCalls}, and fails calls on
 * demand with {@link failNext}. It uses no timers; a watch ends when its
 * signal aborts.
 *
 * @typeParam T the object type
 *
 * @example List, then watch a later change
 * ```ts
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "ns", name: "a" } });
 * const list = await source.list({});
 * assert.equal(list.metadata.resourceVersion, "1");
 * const ctl = new AbortController();
 * const events = await source.watch({ resourceVersion: "1" }, ctl.signal);
 * source.modify({ metadata: { namespace: "ns", name: "a" } });
 * for await (const ev of events) {
 *   assert.equal(ev.type, "MODIFIED");
 *   assert.equal(ev.object.metadata.resourceVersion, "2");
 *   break;
 * }
 * ctl.abort();
 * ```
 */
export class FakeControllerSource<T extends KubeObject = KubeObject>
  implements ListerWatcher<T> {
  /**
   * Options of every `list` call, in order, failed ones included, as a
   * server would get them (without `onListMeta`, which this source ignores).
   */
  readonly listCalls: ListOptions[] = [];
  /** Options of every `watch` call, in order, failed ones included. */
  readonly watchCalls: ListOptions[] = [];

  #items = new Map<string, T>();
  // History since the last compaction: #changes[i] has resourceVersion
  // #compactedRV + i + 1, so a watch from RV n replays #changes[n - #compactedRV:].
  #changes: Change<T>[] = [];
  #lastRV = 0;
  #compactedRV = 0;
  #watchers = new Set<FakeWatch<T>>();
  #snapshots = new Map<string, Snapshot<T>>();
  #nextToken = 0;
  #failures: { op: "list" | "watch"; error: unknown }[] = [];
  #watchList: FakeWatchListMode;
  #shutDown = false;

  /**
   * Create an empty source.
   * @param opts watch-list behaviour
   */
  constructor(opts: FakeControllerSourceOptions = {}) {
    this.#watchList = opts.watchList ?? "supported";
  }

  /** Record an ADDED change and broadcast it; returns the stored object. */
  add(obj: T): T {
    return this.#change("ADDED", obj, true);
  }

  /** Record a MODIFIED change and broadcast it; returns the stored object. */
  modify(obj: T): T {
    return this.#change("MODIFIED", obj, true);
  }

  /** Record a DELETED change and broadcast it; returns the object as deleted. */
  delete(lastValue: T): T {
    return this.#change("DELETED", lastValue, true);
  }

  /** Like {@link add}, but open watches are not told: only a relist sees it. */
  addDropWatch(obj: T): T {
    return this.#change("ADDED", obj, false);
  }

  /** Like {@link modify}, but open watches are not told. */
  modifyDropWatch(obj: T): T {
    return this.#change("MODIFIED", obj, false);
  }

  /** Like {@link delete}, but open watches are not told. */
  deleteDropWatch(lastValue: T): T {
    return this.#change("DELETED", lastValue, false);
  }

  /**
   * The latest resourceVersion handed out ("0" before any change, list or
   * bookmark; see {@link list}).
   */
  resourceVersion(): string {
    return String(this.#lastRV);
  }

  /**
   * The resourceVersion a read reports. A real apiserver never answers
   * "0" (an empty etcd is at revision 1), and a Reflector that listed at
   * "0" would watch from "0", whose ADDED events it cannot tell from a
   * fresh start's synthetic ones. So the first read of a never-changed
   * source moves it to revision 1, with no history before it.
   */
  #readRV(): string {
    if (this.#lastRV === 0) this.#lastRV = this.#compactedRV = 1;
    return this.resourceVersion();
  }

  /** The objects currently stored, sorted by namespace/name/uid. */
  items(): T[] {
    return [...this.#items.entries()].sort(([a], [b]) => a < b ? -1 : 1).map((
      [, v],
    ) => v);
  }

  /** Number of watches currently open. */
  openWatches(): number {
    return this.#watchers.size;
  }

  /**
   * End every open watch cleanly after the events already sent (client-go
   * `ResetWatch`): as when the server closes the streams.
   */
  resetWatch(): void {
    for (const w of this.#watchers) w.finish();
  }

  /**
   * End every open watch cleanly and refuse every later call (client-go
   * `Shutdown`): `list`/`watch` then reject, changes throw.
   */
  shutdown(): void {
    this.#shutDown = true;
    this.resetWatch();
  }

  /**
   * Cut every open watch: each yields the events already sent, then its
   * iterator rejects with `error` (as a stream cut mid-line does).
   * @param error what the iterators reject with
   */
  breakWatches(error: unknown = new TypeError("Watch stream was cut")): void {
    for (const w of this.#watchers) w.finish({ error });
  }

  /**
   * Send an event to the open watches only (not recorded), e.g. an ERROR
   * with a Status or a BOOKMARK.
   * @param event the event to send
   */
  sendEvent(event: WatchEvent<T>): void {
    for (const w of this.#watchers) w.push(event);
  }

  /** Send a BOOKMARK at the current resourceVersion to the open watches. */
  bookmark(): void {
    this.sendEvent({
      type: "BOOKMARK",
      object: { metadata: { resourceVersion: this.#readRV() } } as T,
    });
  }

  /**
   * Forget the history (etcd compaction): watches from an older
   * resourceVersion get an ERROR 410 event, paged lists at an older
   * resourceVersion and earlier continue tokens a 410 error.
   */
  compact(): void {
    this.#compactedRV = this.#lastRV;
    this.#changes = [];
    this.#snapshots.clear();
  }

  /**
   * Make the next `times` calls of `op` throw `error` (before doing anything
   * else; the call is still recorded).
   * @param op which call fails
   * @param error what it throws, e.g. a `StatusError`
   * @param times how many calls fail (default 1)
   */
  failNext(op: "list" | "watch", error: unknown, times = 1): void {
    for (let i = 0; i < times; i++) this.#failures.push({ op, error });
  }

  /**
   * List the current objects at the latest resourceVersion; a source that
   * never changed lists at "1", as an empty etcd is at revision 1 (the
   * next change then gets "2"). With `limit`, returns a page and a continue
   * token over a snapshot; `continue` pages come from that snapshot.
   * @throws {StatusError} 410 for an expired continue token or a paged list
   * at a compacted resourceVersion; 504 for a resourceVersion in the future
   */
  list(opts: ListOptions, signal?: AbortSignal): Promise<ObjectList<T>> {
    const { onListMeta: _ignored, ...request } = opts;
    this.listCalls.push(request);
    try {
      signal?.throwIfAborted();
      this.#takeFailure("list");
      return Promise.resolve(this.#list(opts));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Watch changes after `opts.resourceVersion` ("" or "0": the current
   * objects as ADDED first). The stream ends when `signal` aborts, on
   * {@link resetWatch}, or rejects on {@link breakWatches}.
   * @throws {StatusError} 504 for a resourceVersion in the future; 422 for a
   * watch-list when the mode is `"rejected"`
   */
  watch(
    opts: ListOptions,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    this.watchCalls.push({ ...opts });
    try {
      signal?.throwIfAborted();
      this.#takeFailure("watch");
      return Promise.resolve(this.#watch(opts, signal));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  #takeFailure(op: "list" | "watch"): void {
    if (this.#shutDown) {
      throw new Error(`Cannot ${op}: the FakeControllerSource is shut down`);
    }
    const i = this.#failures.findIndex((f) => f.op === op);
    if (i === -1) return;
    const [{ error }] = this.#failures.splice(i, 1);
    throw error;
  }

  #change(type: "ADDED" | "MODIFIED" | "DELETED", obj: T, tell: boolean): T {
    if (this.#shutDown) {
      throw new Error(
        `Cannot record a change: the FakeControllerSource is shut down`,
      );
    }
    this.#lastRV++;
    const stored = {
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: String(this.#lastRV) },
    } as T;
    const key = storageKey(stored);
    if (type === "DELETED") this.#items.delete(key);
    else this.#items.set(key, stored);
    const event = { type, object: stored } as WatchEvent<T>;
    this.#changes.push({ event });
    if (tell) { for (const w of this.#watchers) w.push(event); }
    return stored;
  }

  #list(opts: ListOptions): ObjectList<T> {
    let snap: Snapshot<T>;
    if (opts.continue) {
      const found = this.#snapshots.get(opts.continue);
      if (!found) throw expired("The provided continue parameter is too old");
      this.#snapshots.delete(opts.continue);
      snap = found;
    } else {
      const rv = parseRV(opts.resourceVersion);
      if (rv > this.#lastRV) throw tooLarge(opts.resourceVersion!);
      if (rv > 0 && opts.limit && rv < this.#compactedRV) {
        throw expired("The resourceVersion for the provided list is too old");
      }
      snap = {
        items: this.items(),
        offset: 0,
        resourceVersion: this.#readRV(),
      };
    }
    const end = opts.limit && opts.limit > 0
      ? Math.min(snap.offset + opts.limit, snap.items.length)
      : snap.items.length;
    const items = snap.items.slice(snap.offset, end);
    const metadata: ObjectList<T>["metadata"] = {
      resourceVersion: snap.resourceVersion,
    };
    if (end < snap.items.length) {
      const token = `c${++this.#nextToken}`;
      this.#snapshots.set(token, { ...snap, offset: end });
      metadata.continue = token;
      metadata.remainingItemCount = snap.items.length - end;
    }
    return { metadata, items };
  }

  #watch(opts: ListOptions, signal?: AbortSignal): FakeWatch<T> {
    const rvText = opts.resourceVersion ?? "";
    const rv = parseRV(rvText);
    if (rv > this.#lastRV) throw tooLarge(rvText);
    const watchList = opts.sendInitialEvents === true &&
      this.#watchList !== "ignored";
    if (watchList && this.#watchList === "rejected") {
      throw new StatusError({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        code: 422,
        reason: "Invalid",
        message:
          'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
      });
    }
    const w = new FakeWatch<T>(signal, () => this.#watchers.delete(w));
    if (watchList || rvText === "" || rvText === "0") {
      // Synthetic ADDED events for the current state, as the server does.
      for (const obj of this.items()) w.push({ type: "ADDED", object: obj });
      if (watchList) {
        w.push({
          type: "BOOKMARK",
          object: {
            metadata: {
              resourceVersion: this.#readRV(),
              annotations: { [INITIAL_EVENTS_END]: "true" },
            },
          } as unknown as T,
        });
      }
    } else if (rv < this.#compactedRV) {
      w.push({
        type: "ERROR",
        object: expired(`too old resource version: ${rv} (${this.#lastRV})`)
          .status,
      });
      w.finish();
      return w;
    } else {
      const first = rv - this.#compactedRV;
      for (const c of this.#changes.slice(first)) w.push(c.event);
    }
    if (!w.closed) this.#watchers.add(w);
    return w;
  }
}

function storageKey(obj: KubeObject): string {
  const m = obj.metadata;
  return `${m.namespace ?? ""}/${m.name ?? ""}/${m.uid ?? ""}`;
}

function parseRV(rv: string | undefined): number {
  if (rv === undefined || rv === "") return 0;
  const n = Number(rv);
  if (!Number.isInteger(n) || n < 0) {
    throw new StatusError({
      code: 400,
      reason: "BadRequest",
      message: `Invalid resourceVersion: "${rv}"`,
    });
  }
  return n;
}

function expired(message: string): StatusError {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: 410,
    reason: "Expired",
    message,
  };
  return new StatusError(status);
}

function tooLarge(rv: string): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: 504,
    reason: "Timeout",
    message: `Too large resource version: ${rv}`,
    details: {
      causes: [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }],
    },
  });
}

/**
 * One watch stream: a queue drained by `next()`. Unlike an async generator,
 * `return()` and an abort settle a pending `next()` at once.
 */
class FakeWatch<T> implements AsyncIterableIterator<WatchEvent<T>> {
  #queue: WatchEvent<T>[] = [];
  #head = 0;
  #pending?: {
    resolve: (r: IteratorResult<WatchEvent<T>>) => void;
    reject: (e: unknown) => void;
  };
  // Set once the producer ends the stream; `error` makes the last next() reject.
  #end?: { error?: unknown };
  #closed = false;
  #signal?: AbortSignal;
  #onClose: () => void;
  #onAbort = () => this.#close();

  constructor(signal: AbortSignal | undefined, onClose: () => void) {
    this.#signal = signal;
    this.#onClose = onClose;
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  get closed(): boolean {
    return this.#closed;
  }

  push(event: WatchEvent<T>): void {
    if (this.#closed || this.#end) return;
    if (this.#pending) {
      const p = this.#pending;
      this.#pending = undefined;
      p.resolve({ value: event, done: false });
    } else {
      this.#queue.push(event);
    }
  }

  finish(end: { error?: unknown } = {}): void {
    if (this.#closed || this.#end) return;
    this.#end = end;
    if (this.#pending) this.#settleEnd();
  }

  next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head++];
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      if (this.#end) this.#settleEnd();
    });
  }

  return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent<T>> {
    return this;
  }

  #settleEnd(): void {
    const p = this.#pending!;
    this.#pending = undefined;
    const error = this.#end?.error;
    const failed = this.#end !== undefined && "error" in this.#end;
    this.#close();
    if (failed) p.reject(error);
    else p.resolve({ value: undefined, done: true });
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#head = 0;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#onClose();
    const p = this.#pending;
    this.#pending = undefined;
    p?.resolve({ value: undefined, done: true });
  }
}
