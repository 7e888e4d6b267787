/**
 * {@link DeltaFIFO}: the queue between a Reflector and an informer, with the
 * change history of each object (client-go `tools/cache/delta_fifo.go`).
 *
 * @module
 */

import { checkFunction, checkMethods, checkOptions } from "./_validate.ts";
import {
  computeKey,
  DeletedFinalStateUnknown,
  KeyError,
  type KeyFunc,
  metaNamespaceKeyFunc,
} from "./keys.ts";
import { FIFOClosedError, type PopProcessFunc, type Queue } from "./fifo.ts";
import { processOrRequeue } from "./requeue.ts";
import { Serial, Wakeup } from "./_queue.ts";
import { nextTurn } from "./turns.ts";
import { Ring } from "../api/ring.ts";

/**
 * The kind of change a {@link Delta} records (client-go `DeltaType`).
 *
 * - `"Added"`, `"Updated"`, `"Deleted"`: from `add`, `update`, `delete`
 *   (and `"Deleted"` tombstones from `replace`).
 * - `"Replaced"`: an object listed again by a relist (`replace`) when
 *   `emitDeltaTypeReplaced` is set; it may or may not have changed.
 * - `"Sync"`: a periodic resync, and what `replace` emits when
 *   `emitDeltaTypeReplaced` is not set.
 *
 * @example What happened to an object
 * ```ts
 * import { DeltaFIFO, type DeltaType, metaNamespaceKeyFunc } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const fifo = new DeltaFIFO({ keyFunction: metaNamespaceKeyFunc });
 * fifo.add({ metadata: { name: "a" } });
 * fifo.update({ metadata: { name: "a", resourceVersion: "2" } });
 * const types: DeltaType[] = fifo.getByKey("a")!.map((d) => d.type);
 * assert.deepEqual(types, ["Added", "Updated"]);
 * ```
 */
export type DeltaType = "Added" | "Updated" | "Deleted" | "Replaced" | "Sync";

/**
 * One change to an object (client-go `Delta`): its type and the object's
 * state after the change, or, for a deletion, its final state before it
 * (a {@link DeletedFinalStateUnknown} when the deletion was inferred by a
 * relist and the final state is not known).
 *
 * @typeParam T the object type
 *
 * @example Apply the newest delta of a key
 * ```ts
 * import { type Delta, DeletedFinalStateUnknown, type KubeObject } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const deltas: Delta<KubeObject>[] = [
 *   { type: "Added", object: { metadata: { name: "a" } } },
 *   { type: "Deleted", object: new DeletedFinalStateUnknown("a", { metadata: { name: "a" } }) },
 * ];
 * const last = deltas.at(-1)!;
 * assert.equal(last.type === "Deleted" && last.object instanceof DeletedFinalStateUnknown, true);
 * ```
 */
export interface Delta<T> {
  /** What happened. */
  type: DeltaType;
  /** The object after the change (before it, for a deletion). */
  object: T | DeletedFinalStateUnknown<T>;
}

/**
 * The changes to one object, oldest first; never empty when handed out by a
 * {@link DeltaFIFO} (client-go `Deltas`).
 *
 * @typeParam T the object type
 *
 * @example What one pop hands the consumer
 * ```ts
 * import { DeltaFIFO, type Deltas, type KubeObject, metaNamespaceKeyFunc } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const fifo = new DeltaFIFO<KubeObject>({ keyFunction: metaNamespaceKeyFunc });
 * fifo.add({ metadata: { name: "a" } });
 * fifo.delete({ metadata: { name: "a" } });
 * const popped: Deltas<KubeObject> = await fifo.pop(() => {});
 * assert.deepEqual(popped.map((d) => d.type), ["Added", "Deleted"]); // oldest first
 * ```
 */
export type Deltas<T> = Delta<T>[];

/**
 * What a {@link DeltaFIFO} needs from the store its consumer fills (the
 * informer's Indexer): the keys it knows and the object under a key
 * (client-go `KeyListerGetter`).
 *
 * @typeParam T the object type
 *
 * @example The informer's store as knownObjects
 * ```ts
 * import { DeltaFIFO, type KeyListerGetter, type KubeObject, metaNamespaceKeyFunc, newStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const known = newStore<KubeObject>(metaNamespaceKeyFunc);
 * known.add({ metadata: { name: "gone" } });
 * const view: KeyListerGetter<KubeObject> = known;
 * const fifo = new DeltaFIFO<KubeObject>({ keyFunction: metaNamespaceKeyFunc, knownObjects: view });
 * fifo.replace([], "5"); // "gone" is known but not listed: a tombstone
 * assert.equal(fifo.getByKey("gone")?.[0].type, "Deleted");
 * ```
 */
export interface KeyListerGetter<T> {
  /** Every key the consumer knows. */
  listKeys(): string[];
  /** The object the consumer holds under `key`, if any. */
  getByKey(key: string): T | undefined;
}

/**
 * Options of a {@link DeltaFIFO} (client-go `DeltaFIFOOptions`); all optional.
 *
 * @typeParam T the object type
 *
 * @example Replaced deltas and a transform
 * ```ts
 * import { DeltaFIFO, type DeltaFIFOOptions, type KubeObject, metaNamespaceKeyFunc, stripManagedFields } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const opts: DeltaFIFOOptions<KubeObject> = {
 *   keyFunction: metaNamespaceKeyFunc,
 *   emitDeltaTypeReplaced: true,
 *   transformer: stripManagedFields,
 * };
 * const fifo = new DeltaFIFO(opts);
 * fifo.replace([{ metadata: { name: "a", managedFields: [{ manager: "kubectl" }] } }], "1");
 * const [delta] = fifo.getByKey("a")!;
 * assert.equal(delta.type, "Replaced");
 * assert.equal((delta.object as KubeObject).metadata.managedFields, undefined);
 * ```
 */
export interface DeltaFIFOOptions<T> {
  /**
   * Computes each object's key. Default {@link metaNamespaceKeyFunc}.
   * What it throws is rethrown as a {@link KeyError}.
   */
  keyFunction?: KeyFunc;
  /**
   * The keys and objects the consumer already knows (usually the informer's
   * Indexer). Used by `delete` (a key known here can be deleted), `replace`
   * (known keys missing from the list get tombstones) and `resync` (known
   * keys get `Sync` deltas). Without it, `replace` only detects deletions of
   * queued keys and `resync` does nothing.
   */
  knownObjects?: KeyListerGetter<T>;
  /**
   * Emit `"Replaced"` instead of `"Sync"` for the objects of a `replace`.
   * Default `false`, as in client-go, for consumers that predate Replaced.
   */
  emitDeltaTypeReplaced?: boolean;
  /**
   * Called on each object given to `add`, `update`, `delete` and `replace`
   * before it is keyed and queued, e.g. to drop `managedFields` and save
   * memory. It sees each object first and may modify it in place. The
   * object is queued under the key of what it returns, the key
   * `knownObjects` holds it under (client-go keys the object as it came;
   * with a transform that renames, deletions then missed their known key).
   * It is not called on tombstones (their object was transformed when it
   * was queued) nor on the `Sync` deltas of `resync` (objects taken from
   * `knownObjects`, which were transformed on their way in). If it throws,
   * the call that queued the object throws and nothing of that call is
   * queued.
   */
  transformer?: (obj: T) => T;
}

/** Wall time (ms) popEach may work through a burst before it yields a turn. */
const POP_SLICE_MS = 50;

/**
 * A queue of object changes (client-go `DeltaFIFO`). It is like
 * {@link FIFO}, but differs in two ways. First, what it accumulates per key
 * is not the latest object but {@link Deltas}: the list of changes to that
 * object since it was last popped. Applying a change appends a
 * {@link Delta}, except that a `Deleted` right after a `Deleted` does not
 * grow the list: the two collapse into one, keeping the one with more
 * information (a real object rather than a {@link DeletedFinalStateUnknown}).
 * Second, it has two more kinds of change: `Replaced` (or `Sync`) from a
 * relist and `Sync` from a periodic resync.
 *
 * It is a producer-consumer queue: a Reflector produces, and the consumer
 * is whatever calls `pop` (an informer). `pop` is O(1) however long the
 * queue is.
 *
 * DeltaFIFO solves this use case:
 * - process every change to an object at most once;
 * - when processing an object, see everything that happened to it since it
 *   was last processed;
 * - process the deletion of objects, including deletions only a relist
 *   noticed (tombstones);
 * - optionally reprocess objects periodically.
 *
 * Invariants:
 * - a key is queued if and only if it has deltas, and at most once; it
 *   keeps its first queue position however many deltas join it, and pops
 *   in that order;
 * - `get`, `getByKey` and `pop` hand out {@link Deltas} (copies for `get`);
 *   `list` returns the newest object of each key;
 * - `delete` of a key that is neither queued nor in `knownObjects` is a
 *   no-op (a relist already reported it);
 * - `replace` queues `Replaced` (or `Sync`) for each listed object, and a
 *   `Deleted` tombstone for every queued or known key missing from the
 *   list, carrying the last known object: the newest queued one, else the
 *   one in `knownObjects`;
 * - the first `replace` sets the initial population that `hasSynced`
 *   waits for (listed keys plus tombstones); an add, update, delete or
 *   addIfNotPresent before it means there is no initial population;
 * - `resync` queues `Sync` for each known object with nothing queued.
 *
 * `pop` runs one process function at a time. Unlike client-go, where
 * `process` runs under the queue lock, an async process lets producers add
 * while it awaits; a {@link RequeueError} then yields to deltas queued
 * meanwhile (they are newer). Objects inside the deltas are shared, not
 * copied: treat them as read-only.
 *
 * @typeParam T the object type
 *
 * @example Changes accumulate per key
 * ```ts
 * import { DeltaFIFO } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const pod = (name: string, rv: string) => ({
 *   metadata: { namespace: "ns", name, resourceVersion: rv },
 * });
 * const fifo = new DeltaFIFO();
 * fifo.add(pod("a", "1"));
 * fifo.add(pod("b", "2"));
 * fifo.update(pod("a", "3"));
 * const deltas = await fifo.pop(() => {});
 * assert.deepEqual(deltas.map((d) => d.type), ["Added", "Updated"]);
 * assert.deepEqual(fifo.listKeys(), ["ns/b"]);
 * ```
 *
 * @example A relist emits tombstones for what disappeared
 * ```ts
 * import { DeltaFIFO, DeletedFinalStateUnknown } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { name: string } };
 * const known = new Map<string, Obj>([["gone", { metadata: { name: "gone" } }]]);
 * const fifo = new DeltaFIFO<Obj>({
 *   knownObjects: {
 *     listKeys: () => [...known.keys()],
 *     getByKey: (k) => known.get(k),
 *   },
 *   emitDeltaTypeReplaced: true,
 * });
 * fifo.replace([{ metadata: { name: "kept" } }], "10");
 * assert.deepEqual(fifo.listKeys(), ["kept", "gone"]);
 * const [tombstone] = fifo.getByKey("gone")!;
 * assert.equal(tombstone.type, "Deleted");
 * assert.ok(tombstone.object instanceof DeletedFinalStateUnknown);
 * assert.equal(fifo.hasSynced(), false); // two initial items to pop
 * ```
 */
export class DeltaFIFO<T> implements Queue<T, Deltas<T>> {
  /** Deltas by key; each list has at least one delta. */
  #items = new Map<string, Deltas<T>>();
  /** Keys in pop order, no duplicates; a key is here iff it is in `#items`. */
  #queue = new Ring<string>();
  #keyFunc: KeyFunc;
  #knownObjects: KeyListerGetter<T> | undefined;
  #emitDeltaTypeReplaced: boolean;
  #transformer: ((obj: T) => T) | undefined;
  /** True once a replace, add, update, delete or addIfNotPresent happened. */
  #populated = false;
  /** Keys of the first replace (and its tombstones) not yet popped. */
  #initialPopulationCount = 0;
  #closed = false;
  #wakeup = new Wakeup();
  #pops = new Serial();
  /** Whether the last `process` asked for its key to be requeued. */
  #requeued = false;
  /** What #process hands processOrRequeue, reused for every key. */
  #processOpts = {
    key: "",
    deltas: [] as Deltas<T>,
    isInInitialList: false,
    requeue: () => {
      const opts = this.#processOpts;
      this.#requeued = true;
      this.#addIfNotPresent(opts.key, opts.deltas);
    },
  };
  /** The key an async process is applying, and whether a replace left it out. */
  #inFlight: { key: string; unlisted: boolean } | undefined;

  /**
   * Create an empty DeltaFIFO (client-go `NewDeltaFIFOWithOptions`).
   * @param opts see {@link DeltaFIFOOptions}
   * @throws {TypeError} when an option has the wrong type
   */
  constructor(opts: DeltaFIFOOptions<T> = {}) {
    const call = "new DeltaFIFO";
    checkOptions(call, "opts", opts);
    for (const k of ["keyFunction", "transformer"] as const) {
      if (opts[k] !== undefined) checkFunction(call, `opts.${k}`, opts[k]);
    }
    if (opts.knownObjects !== undefined) {
      checkMethods(call, "opts.knownObjects", opts.knownObjects, "a store", [
        "listKeys",
        "getByKey",
      ]);
    }
    this.#keyFunc = opts.keyFunction ?? metaNamespaceKeyFunc;
    this.#knownObjects = opts.knownObjects;
    this.#emitDeltaTypeReplaced = opts.emitDeltaTypeReplaced ?? false;
    this.#transformer = opts.transformer;
  }

  /**
   * The key of an object, of a {@link DeletedFinalStateUnknown} (its `key`)
   * or of {@link Deltas} (the key of the newest delta's object)
   * (client-go `DeltaFIFO.KeyOf`).
   * @throws {KeyError} for empty deltas, or when the key function fails
   */
  keyOf(obj: unknown): string {
    if (Array.isArray(obj)) {
      if (obj.length === 0) {
        throw new KeyError("Cannot compute key: deltas are empty", obj);
      }
      obj = (obj[obj.length - 1] as Delta<T>).object;
    }
    if (obj instanceof DeletedFinalStateUnknown) return obj.key;
    return computeKey(this.#keyFunc, obj);
  }

  /**
   * Queue an `Added` delta for `obj`.
   * @throws {KeyError} when the key function fails
   */
  add(obj: T): void {
    const object = this.#transform(obj);
    const key = this.keyOf(object);
    this.#populated = true;
    this.#append(key, { type: "Added", object });
  }

  /**
   * Queue an `Updated` delta for `obj`.
   * @throws {KeyError} when the key function fails
   */
  update(obj: T): void {
    const object = this.#transform(obj);
    const key = this.keyOf(object);
    this.#populated = true;
    this.#append(key, { type: "Updated", object });
  }

  /**
   * Queue a `Deleted` delta for `obj`, unless its key is neither queued nor
   * in `knownObjects` (then it was already reported deleted, by a relist
   * for instance, and nothing happens).
   * @throws {KeyError} when the key function fails
   */
  delete(obj: T): void {
    const object = this.#transform(obj);
    const key = this.keyOf(object);
    this.#populated = true;
    if (!this.#items.has(key)) {
      const known = this.#knownObjects?.getByKey(key);
      if (known === undefined) return;
    }
    this.#append(key, { type: "Deleted", object });
  }

  /**
   * Queue popped deltas again unless their key has deltas queued meanwhile
   * (the consumer's retry; the newer deltas win).
   * @param deltas what {@linkcode DeltaFIFO.pop} handed out
   * @throws {TypeError} when `deltas` is not an array
   * @throws {KeyError} when `deltas` is empty or cannot be keyed
   */
  addIfNotPresent(deltas: Deltas<T>): void {
    if (!Array.isArray(deltas)) {
      throw new TypeError(
        `Cannot add to DeltaFIFO: expected Deltas (an array), got ${typeof deltas}`,
      );
    }
    this.#addIfNotPresent(this.keyOf(deltas), deltas);
  }

  #addIfNotPresent(key: string, deltas: Deltas<T>): void {
    this.#populated = true;
    if (this.#items.has(key)) return;
    this.#queue.push(key);
    this.#items.set(key, deltas);
    this.#wakeup.notify();
  }

  /**
   * Apply a relist: queue a `Replaced` delta (`Sync` unless
   * `emitDeltaTypeReplaced`) for each object of `list`, then a `Deleted`
   * {@link DeletedFinalStateUnknown} for each queued or known key that is
   * not in `list`. The first call before any other change sets the initial
   * population (distinct listed keys plus tombstones).
   * @param list the complete current set of objects
   * @param _resourceVersion unused
   * @throws {KeyError} when the key function fails (nothing is queued)
   */
  replace(list: T[], _resourceVersion: string): void {
    const action: DeltaType = this.#emitDeltaTypeReplaced ? "Replaced" : "Sync";
    // Every object and key first: a transformer or key function that
    // throws leaves nothing queued.
    const objects = this.#transformer === undefined
      ? list
      : list.map((obj) => this.#transform(obj));
    const keys = new Array<string>(objects.length);
    for (let i = 0; i < objects.length; i++) keys[i] = this.keyOf(objects[i]);
    const knownKeys = this.#knownObjects?.listKeys();
    if (
      this.#items.size === 0 && this.#inFlight === undefined &&
      (knownKeys === undefined || knownKeys.length === 0)
    ) {
      // Nothing queued, known or in flight (an informer's first list):
      // nothing can be missing from the list, so no set of listed keys is
      // needed, and the distinct keys are the queued ones.
      for (let i = 0; i < objects.length; i++) {
        this.#append(keys[i], { type: action, object: objects[i] });
      }
      if (!this.#populated) {
        this.#populated = true;
        this.#initialPopulationCount = this.#items.size;
      }
      return;
    }
    const listed = new Set(keys);
    // Queued keys missing from the list, found before the list joins the
    // queue (so an initial list does not scan itself).
    const missing: string[] = [];
    for (const key of this.#items.keys()) {
      if (!listed.has(key)) missing.push(key);
    }
    for (let i = 0; i < objects.length; i++) {
      this.#append(keys[i], { type: action, object: objects[i] });
    }

    let tombstones = 0;
    for (const key of missing) {
      const deltas = this.#items.get(key)!;
      // Deleting while the watch was down: the newest queued state is the
      // best guess of the final one.
      const last = deltas[deltas.length - 1].object;
      tombstones++;
      this.#queueTombstone(
        key,
        last instanceof DeletedFinalStateUnknown ? last.obj : last,
      );
    }
    if (knownKeys !== undefined) {
      for (const key of knownKeys) {
        if (listed.has(key) || this.#items.has(key)) continue;
        tombstones++;
        this.#queueTombstone(key, this.#knownObjects!.getByKey(key));
      }
    }
    // A key an async process is still applying is neither queued nor
    // settled in knownObjects: decide its tombstone once process is done,
    // as client-go, whose Replace waits for Pop's lock, would.
    if (this.#inFlight !== undefined && !listed.has(this.#inFlight.key)) {
      this.#inFlight.unlisted = true;
    }

    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = listed.size + tombstones;
    }
  }

  /**
   * Queue a `Sync` delta for every object in `knownObjects` whose key has
   * nothing queued (a queued delta is newer than the known object). Does
   * nothing without `knownObjects`.
   * @throws {KeyError} when the key function fails on a known object
   */
  resync(): void {
    if (this.#knownObjects === undefined) return;
    for (const key of this.#knownObjects.listKeys()) {
      const obj = this.#knownObjects.getByKey(key);
      if (obj === undefined) continue;
      const id = this.keyOf(obj);
      if (this.#items.has(id)) continue;
      this.#append(id, { type: "Sync", object: obj });
    }
  }

  /**
   * Every object enters through add, update, delete or replace, once: the
   * place to transform it, before it is keyed. The key is the transformed
   * object's, as in `knownObjects` (which holds transformed objects), so a
   * transform that renames cannot make a deletion miss its known key or a
   * relist take a listed object for missing. A tombstone handed to delete()
   * holds an object that was transformed already.
   */
  #transform(obj: T): T {
    return this.#transformer === undefined ||
        obj instanceof DeletedFinalStateUnknown
      ? obj
      : this.#transformer(obj);
  }

  #queueTombstone(key: string, last: T | undefined): void {
    this.#append(key, {
      type: "Deleted",
      object: new DeletedFinalStateUnknown(key, last),
    });
  }

  #append(key: string, delta: Delta<T>): void {
    const deltas = this.#items.get(key);
    if (deltas === undefined) {
      this.#items.set(key, [delta]);
      this.#queue.push(key);
    } else if (!collapseDeletion(deltas, delta)) {
      deltas.push(delta);
    }
    this.#wakeup.notify();
  }

  /** The newest object of each queued key, in queue order. */
  list(): Array<T | DeletedFinalStateUnknown<T>> {
    const out: Array<T | DeletedFinalStateUnknown<T>> = [];
    for (const deltas of this.#items.values()) {
      out.push(deltas[deltas.length - 1].object);
    }
    return out;
  }

  /** The queued keys, in pop order. */
  listKeys(): string[] {
    return this.#queue.toArray();
  }

  /**
   * A copy of the deltas queued for `obj`'s key.
   * @throws {KeyError} when the key function fails
   */
  get(obj: T): Deltas<T> | undefined {
    return this.getByKey(this.keyOf(obj));
  }

  /** A copy of the deltas queued under `key`. */
  getByKey(key: string): Deltas<T> | undefined {
    return this.#items.get(key)?.slice();
  }

  /**
   * Wait for a key, remove it with its deltas, and run `process` on them;
   * resolves with the deltas (the caller owns them). Keys come out in the
   * order they were first queued. See {@link RequeueError} for retries.
   * @throws {FIFOClosedError} (rejects) once closed and empty
   * @throws whatever `process` throws, other than a cause-less RequeueError
   */
  pop(process: PopProcessFunc<Deltas<T>>): Promise<Deltas<T>> {
    return this.#pops.run(() => this.#popOne(process));
  }

  async #popOne(process: PopProcessFunc<Deltas<T>>): Promise<Deltas<T>> {
    while (this.#queue.size === 0) {
      if (this.#closed) throw new FIFOClosedError();
      await this.#wakeup.wait();
    }
    const key = this.#queue.shift()!;
    const deltas = this.#take(key);
    const pending = this.#process(key, deltas, process);
    if (pending !== undefined) await pending;
    return deltas;
  }

  /**
   * The consumer loop of a controller (client-go `processLoop`): pop and
   * process keys one at a time, in queue order, exactly as repeated
   * {@linkcode DeltaFIFO.pop} calls would, until `signal` aborts (checked
   * before each key) or the queue is closed and empty.
   *
   * It is cheaper than a loop of `pop`s: it waits only while the queue is
   * empty and awaits `process` only when it returns a promise, so a
   * synchronous `process` works through a burst of keys without a promise
   * per key, yielding a turn to timers and I/O after each 50 ms of wall
   * time so a long burst does not hold the event loop. Other pops wait
   * until the loop ends.
   *
   * An error from `process` (a {@link RequeueError}'s cause included) goes
   * to `errorHandler` and the loop goes on with the next key; without
   * `errorHandler`, the returned promise rejects with it and the loop ends. Once
   * the queue is closed, such an error ends the loop silently.
   *
   * @param process runs on each key's deltas, as for `pop`
   * @param opts `signal` ends the loop; `errorHandler` hears about failed keys
   * @returns a promise settling when the loop has ended
   *
   * @example Process until closed
   * ```ts
   * import { DeltaFIFO } from "@kubecache/core";
   * import assert from "node:assert/strict";
   * const fifo = new DeltaFIFO();
   * fifo.add({ metadata: { name: "a" } });
   * fifo.add({ metadata: { name: "b" } });
   * const seen: string[] = [];
   * const loop = fifo.popEach((deltas) => {
   *   seen.push(deltas[0].type);
   * });
   * fifo.close();
   * await loop;
   * assert.deepEqual(seen, ["Added", "Added"]);
   * ```
   */
  popEach(
    process: PopProcessFunc<Deltas<T>>,
    opts: { signal?: AbortSignal; errorHandler?: (error: unknown) => void } =
      {},
  ): Promise<void> {
    return this.#pops.run(() => this.#popEach(process, opts));
  }

  async #popEach(
    process: PopProcessFunc<Deltas<T>>,
    opts: { signal?: AbortSignal; errorHandler?: (error: unknown) => void },
  ): Promise<void> {
    const { signal, errorHandler } = opts;
    // An abort must also end a wait on an empty queue.
    const wake = () => this.#wakeup.notify();
    signal?.addEventListener("abort", wake, { once: true });
    let sliceStart = performance.now();
    let popped = 0;
    try {
      while (!signal?.aborted) {
        if (this.#queue.size === 0) {
          if (this.#closed) return;
          await this.#wakeup.wait();
          sliceStart = performance.now();
          continue;
        }
        const key = this.#queue.shift()!;
        const deltas = this.#take(key);
        try {
          const pending = this.#process(key, deltas, process);
          if (pending !== undefined) await pending;
        } catch (error) {
          if (this.#closed) return;
          if (errorHandler === undefined) throw error;
          errorHandler(error);
        }
        // Requeued: give timers and I/O a turn before the key comes round
        // again, so a key that is always requeued cannot starve them (an
        // abort timer included).
        if (this.#requeued) await nextTurn();
        // A burst of synchronous work (a big initial list) yields to timers
        // and I/O every POP_SLICE_MS of wall time, so the watch opened
        // meanwhile, its timers and other informers are not held up for the
        // whole burst. Checked every 256 keys to keep it off the hot path.
        if ((++popped & 255) === 0) {
          const now = performance.now();
          if (now - sliceStart >= POP_SLICE_MS) {
            await nextTurn();
            sliceStart = performance.now();
          }
        }
      }
    } finally {
      signal?.removeEventListener("abort", wake);
    }
  }

  /** Remove and return the deltas of a key just shifted off the queue. */
  #take(key: string): Deltas<T> {
    const deltas = this.#items.get(key)!;
    this.#items.delete(key);
    return deltas;
  }

  /**
   * Run `process` on popped deltas with pop's requeue rule; returns a
   * promise only when `process` is async. The initial population is
   * counted down once `process` has finished, so hasSynced() turns true
   * only after the last initial item was handled (client-go holds its lock).
   */
  #process(
    key: string,
    deltas: Deltas<T>,
    process: PopProcessFunc<Deltas<T>>,
  ): Promise<void> | undefined {
    this.#requeued = false;
    // One options object for every key (no closure per pop): pops are
    // serial, so the key it requeues is this one even when `process` fails
    // asynchronously.
    const opts = this.#processOpts;
    opts.key = key;
    opts.deltas = deltas;
    opts.isInInitialList = !this.hasSynced();
    let pending: Promise<void> | undefined;
    try {
      pending = processOrRequeue(process, deltas, opts);
    } finally {
      if (pending === undefined) this.#countDown();
    }
    if (pending === undefined) return undefined;
    const inFlight = this.#inFlight = { key, unlisted: false };
    return pending.finally(() => {
      this.#inFlight = undefined;
      this.#countDown();
      if (inFlight.unlisted) this.#tombstoneIfUnqueued(key);
    });
  }

  /** Queue a tombstone for a known key with nothing queued (see replace). */
  #tombstoneIfUnqueued(key: string): void {
    const known = this.#knownObjects?.getByKey(key);
    if (known !== undefined && !this.#items.has(key)) {
      this.#queueTombstone(key, known);
    }
  }

  #countDown(): void {
    if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
  }

  /**
   * True once everything from the first `replace` has been popped and
   * processed, or right after an add, update, delete or addIfNotPresent that
   * came before any replace.
   */
  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /** Close the queue; pops reject with {@link FIFOClosedError} once it is empty. */
  close(): void {
    this.#closed = true;
    this.#wakeup.notify();
  }

  /** Whether {@linkcode DeltaFIFO.close} was called. */
  isClosed(): boolean {
    return this.#closed;
  }
}

/**
 * Collapse a `Deleted` arriving right after a `Deleted` (a relist and the
 * watch can report one deletion twice): keep the one with more information,
 * i.e. replace the old one only if it is a tombstone. Returns whether the
 * new delta was absorbed.
 */
function collapseDeletion<T>(deltas: Deltas<T>, next: Delta<T>): boolean {
  const last = deltas[deltas.length - 1];
  if (last.type !== "Deleted" || next.type !== "Deleted") return false;
  if (last.object instanceof DeletedFinalStateUnknown) {
    deltas[deltas.length - 1] = next;
  }
  return true;
}
