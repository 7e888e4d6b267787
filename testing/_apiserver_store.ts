/**
 * The state of the fake API server: one table of objects per resource type,
 * one global increasing resourceVersion, and a bounded history of events
 * for watch replay (the apiserver's watch cache window). Internal to
 * `FakeApiServer`.
 *
 * Invariants:
 * - every write gets the next global resourceVersion and appends exactly one
 *   history event, then is dispatched synchronously to the table's watchers,
 *   so a watch that replays history and then subscribes in the same tick
 *   misses nothing and sees nothing twice;
 * - `Entry` values are immutable: an update replaces the entry, so an array
 *   of entries is a consistent snapshot (list pages share it copy-on-write).
 *
 * @module
 */

import type { ResourceType } from "../api/resources.ts";
import { apiVersionOf } from "../api/resources.ts";
import type {
  Entry,
  ResourceStrategy,
  StoreEvent,
  StoreTable,
} from "./_apiserver_types.ts";

/** The JSON of an entry's object, with kind and apiVersion. */
export function entryJson(e: Entry): string {
  return e.json ??= JSON.stringify(e.obj);
}

/** A recorded change. */
export interface HistoryEvent extends StoreEvent {
  readonly table: Table;
  /** Cached encoded watch line (`{"type":...,"object":...}\n`). */
  line?: Uint8Array;
}

/** Receives a table's events as they happen. */
export interface EventSink {
  /** Called synchronously for every change of the table. */
  event(ev: HistoryEvent): void;
  /** The table stops being served (its CustomResourceDefinition is gone). */
  close?(): void;
}

const encoder = new TextEncoder();

/** The encoded watch line of an event (cached: shared by every watcher). */
export function eventLine(ev: HistoryEvent): Uint8Array {
  return ev.line ??= encoder.encode(
    `{"type":"${ev.type}","object":${entryJson(ev.entry)}}\n`,
  );
}

/** First index in sorted `arr` whose key is >= `key`. */
export function lowerBound(arr: readonly Entry[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index range [start, end) of a namespace's keys (all when ns is ""). */
export function namespaceRange(
  arr: readonly Entry[],
  namespace: string,
): [number, number] {
  if (namespace === "") return [0, arr.length];
  // "/" + 1 is "0": every "ns/..." key sorts in ["ns/", "ns0").
  return [lowerBound(arr, namespace + "/"), lowerBound(arr, namespace + "0")];
}

const MAX_SNAPSHOTS = 16;

function byKey(a: Entry, b: Entry): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The objects of one resource type. */
export class Table implements StoreTable {
  /** The resource type served. */
  readonly type: ResourceType;
  /** `apiVersion` of its objects. */
  readonly apiVersion: string;
  /** The kind's rules. */
  readonly strategy: ResourceStrategy;
  /** Watchers of this table. */
  readonly sinks: Set<EventSink> = new Set();
  /** Resource version of the last write to this table (0: none). */
  lastRV = 0;
  #byKey = new Map<string, Entry>();
  // Sorted by key. Shared with snapshots while #shared is set: the next
  // write copies it first (copy-on-write), so snapshots never change.
  #sorted: Entry[] = [];
  #shared = false;
  // Set when #sorted misses inserts or still has removed entries.
  #dirty = false;
  // Snapshots of #sorted by resource version, for continue tokens.
  #snapshots = new Map<number, Entry[]>();

  /** Create the table of `type`, served by `strategy`. */
  constructor(type: ResourceType, strategy: ResourceStrategy) {
    this.type = type;
    this.strategy = strategy;
    this.apiVersion = apiVersionOf(type);
  }

  /** The current version of an object. */
  get(key: string): Entry | undefined {
    return this.#byKey.get(key);
  }

  /** Number of objects. */
  get size(): number {
    return this.#byKey.size;
  }

  /** Current objects sorted by key; the caller must not modify the array. */
  sorted(): readonly Entry[] {
    this.#clean();
    return this.#sorted;
  }

  /** Insert or replace an entry. */
  put(entry: Entry): void {
    const had = this.#byKey.has(entry.key);
    this.#byKey.set(entry.key, entry);
    if (this.#dirty) return;
    const arr = this.#sorted;
    if (had) {
      // Same key, same place: replace in the (possibly shared) array.
      this.#own();
      this.#sorted[lowerBound(this.#sorted, entry.key)] = entry;
    } else if (arr.length === 0 || arr[arr.length - 1].key < entry.key) {
      this.#own();
      this.#sorted.push(entry);
    } else {
      // Out of order: sort once, when next read, instead of splicing.
      this.#dirty = true;
    }
  }

  /** Remove an entry. */
  remove(key: string): void {
    this.#byKey.delete(key);
    this.#dirty = true;
  }

  // Rebuild the sorted array after out-of-order inserts or removals.
  #clean(): void {
    if (!this.#dirty) return;
    this.#sorted = [...this.#byKey.values()].sort(byKey);
    this.#shared = false;
    this.#dirty = false;
  }

  /**
   * The sorted objects as of resource version `rv` (which must be within
   * the history window): the current array when nothing changed since,
   * a cached snapshot, or the current state with later events undone.
   */
  at(rv: number, history: History): readonly Entry[] {
    if (this.lastRV <= rv) return this.snapshot(rv);
    const cached = this.#snapshots.get(rv);
    if (cached) return cached;
    const undo = new Map<string, Entry | null>();
    const events = history.since(rv);
    for (let i = events.length - 1; i >= 0; i--) {
      const ev = events[i];
      if (ev.table !== this) continue;
      undo.set(ev.entry.key, ev.type === "ADDED" ? null : ev.prev!);
    }
    const out: Entry[] = [];
    for (const e of this.sorted()) {
      if (!undo.has(e.key)) out.push(e);
    }
    for (const e of undo.values()) if (e) out.push(e);
    out.sort(byKey);
    this.#remember(rv, out);
    return out;
  }

  /** The current sorted array, kept unchanged for later pages at `rv`. */
  snapshot(rv: number): readonly Entry[] {
    this.#clean();
    this.#shared = true;
    this.#remember(rv, this.#sorted);
    return this.#sorted;
  }

  /** Drop every snapshot (after a compaction). */
  forgetSnapshots(): void {
    this.#snapshots.clear();
  }

  #remember(rv: number, arr: Entry[]): void {
    this.#snapshots.delete(rv);
    this.#snapshots.set(rv, arr);
    if (this.#snapshots.size > MAX_SNAPSHOTS) {
      const oldest = this.#snapshots.keys().next().value!;
      this.#snapshots.delete(oldest);
    }
  }

  #own(): void {
    if (this.#shared) {
      this.#sorted = this.#sorted.slice();
      this.#shared = false;
    }
  }
}

/**
 * The bounded event history (the watch cache's window): at most `limit`
 * events. A real cluster has two histories, etcd's revisions and the watch
 * cache; both floors are kept: `compactedRV` bounds exact lists and
 * continue tokens (etcd compaction), `watchStartRV` bounds watches (the
 * watch cache's start, moved by an apiserver restart). Events beyond the
 * limit are gone for both.
 */
export class History {
  #limit: number;
  #events: HistoryEvent[] = [];
  #head = 0;
  // RV of the last event dropped for the limit (or forgotten by compact).
  #droppedRV = 0;
  #etcdRV = 0;
  #cacheRV = 0;

  /** Keep at most `limit` events. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Oldest resource version an exact list or continue token may read. */
  get compactedRV(): number {
    return Math.max(this.#droppedRV, this.#etcdRV);
  }

  /** Oldest resource version a watch may start from. */
  get watchStartRV(): number {
    return Math.max(this.#droppedRV, this.#cacheRV);
  }

  /** Number of events kept. */
  get length(): number {
    return this.#events.length - this.#head;
  }

  /** Record an event, dropping the oldest beyond the limit. */
  push(ev: HistoryEvent): void {
    this.#events.push(ev);
    while (this.length > this.#limit) {
      this.#droppedRV = this.#events[this.#head].rv;
      this.#head++;
    }
    if (this.#head > 4096 && this.#head * 2 > this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Events with rv > `rv`, oldest first (a fresh array). */
  since(rv: number): HistoryEvent[] {
    let lo = this.#head;
    let hi = this.#events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#events[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.#events.slice(lo);
  }

  /** Forget every event: only `rv` and later remain valid, for lists and watches. */
  compact(rv: number): void {
    this.#events = [];
    this.#head = 0;
    this.#droppedRV = rv;
  }

  /** etcd compaction at `rv`: older exact lists and continue tokens expire. */
  compactStorage(rv: number): void {
    this.#etcdRV = rv;
  }

  /** A watch cache restart at `rv`: older watches expire. */
  resetWatchCache(rv: number): void {
    this.#cacheRV = rv;
  }
}

/**
 * A deep-frozen copy of a JSON-like value, as a JSON round trip would give
 * (undefined members dropped, toJSON honoured), without building a string.
 */
export function frozenCopy<T>(value: T): T {
  return copy(value) as T;
}

function copy(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  const j = (v as { toJSON?: () => unknown }).toJSON;
  if (typeof j === "function") return copy(j.call(v));
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      out[i] = x === undefined || typeof x === "function" ? null : copy(x);
    }
    return Object.freeze(out);
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined && typeof x !== "function") out[k] = copy(x);
  }
  return Object.freeze(out);
}

/** Recursively freeze a JSON value. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
