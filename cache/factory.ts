/**
 * {@link SharedInformerFactory}: one shared informer per resource type
 * (client-go `informers/factory.go`), so every part of a program that
 * watches pods shares one list/watch and one cache.
 *
 * @module
 */

import {
  checkClock,
  checkDuration,
  checkFunction,
  checkMethods,
  checkOptionalString,
  checkOptions,
  checkResourceType,
  checkSignal,
} from "./_validate.ts";
import { type Clock, realClock } from "../api/clock.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import type { Indexers } from "./index.ts";
import type { ListerWatcher, ListOptions } from "../api/listwatch.ts";
import { type GenericLister, newGenericLister } from "./listers.ts";
import { CacheNotSyncedError } from "./cache_not_synced_error.ts";
import { describeCause } from "./reflector_status.ts";
import type { ReadonlyIndexer } from "./store.ts";
import type { KubeObject, PartialObjectMetadata } from "../api/object.ts";
import type { ErrorHandler } from "./event_handler.ts";
import {
  newSharedIndexInformer,
  type SharedIndexInformer,
  waitForCacheSync,
} from "./shared_informer.ts";
import {
  listWatch,
  metadataListWatch,
  type ResourceClient,
} from "../api/resource_client.ts";
import type { ResourceType } from "../api/resources.ts";
import { checkShardSelector } from "../api/shard_selector.ts";

/**
 * Options of a {@link SharedInformerFactory}; each applies to every informer it makes.
 *
 * @example One namespace, one label, for every informer
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, SharedInformerFactory, type SharedInformerFactoryOptions } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const opts: SharedInformerFactoryOptions = {
 *   namespace: "team-a",
 *   tweakListOptions: (o) => {
 *     o.labelSelector = "app=web";
 *   },
 *   resyncPeriod: 0,
 * };
 * await using factory = new SharedInformerFactory(client, opts);
 * factory.informerFor(ConfigMaps);
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal);
 * const list = server.requests.find((r) => r.path.endsWith("/configmaps"))!;
 * assert.equal(list.path, "/api/v1/namespaces/team-a/configmaps");
 * assert.equal(list.query.get("labelSelector"), "app=web");
 * stop.abort();
 * ```
 */
export interface SharedInformerFactoryOptions {
  /** Default resync period of the informers (ms). Default 0: no resyncs. */
  resyncPeriod?: number;
  /** Only watch this namespace (client-go `WithNamespace`). Default: all. */
  namespace?: string;
  /**
   * Adjust the options of every list and watch, e.g. to add a label
   * selector (client-go `WithTweakListOptions`). It gets a copy to modify.
   */
  tweakListOptions?: (opts: ListOptions) => void;
  /** Clock for every timer. Default: the real clock. */
  clock?: Clock;
  /** Called on every object before it is cached (client-go `WithTransform`). */
  transform?: (obj: KubeObject) => KubeObject;
  /** Page size of the informers' lists. */
  pageSize?: number;
  /**
   * Receives every error the informers report except failed lists and
   * watches: handler and index function failures, and the fatal error an
   * informer stops on (`context.source === "fatal"`; see
   * {@link SharedInformerFactory.stopped}). Default: `console.error`.
   */
  errorHandler?: ErrorHandler;
  /** Check that handlers do not modify cached objects. */
  detectMutations?: boolean;
}

/**
 * Options of {@link SharedInformerFactory.informerFor}. `namespace`,
 * `labelSelector` and `fieldSelector` tell informers apart: the same type
 * with the same values gives the same informer.
 *
 * @typeParam T the object type
 *
 * @example Shared per type and options
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, SharedInformerFactory } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * await using factory = new SharedInformerFactory(client);
 * const teamA = factory.informerFor(ConfigMaps, { namespace: "team-a", labelSelector: "app=web" });
 * assert.equal(factory.informerFor(ConfigMaps, { namespace: "team-a", labelSelector: "app=web" }), teamA);
 * assert.notEqual(factory.informerFor(ConfigMaps), teamA);
 * ```
 */
export interface InformerForOptions<T extends KubeObject> {
  /** Namespace of this informer; default: the factory's. */
  namespace?: string;
  /** Label selector of this informer. */
  labelSelector?: string;
  /** Field selector of this informer. */
  fieldSelector?: string;
  /**
   * Shard selector of this informer (`shardRange(...)` terms joined by
   * `||`): it caches only the objects in the ranges, filtered by the server
   * where it supports sharded list and watch and by the informer otherwise.
   */
  shardSelector?: string;
  /** Resync period (ms) if this call creates the informer; default: the factory's. */
  resyncPeriod?: number;
  /** Indexes to have; names the informer lacks are added. */
  indexers?: Indexers<T>;
  /**
   * Called on every object before this informer caches it, after the
   * factory's `transform` (client-go `SetTransform`; e.g. drop the fields
   * a controller never reads). Part of the identity: the same function
   * gives the same informer, another function another informer.
   */
  transform?: (obj: T) => T;
}

interface Entry {
  type: ResourceType;
  informer: SharedIndexInformer<KubeObject>;
  /** What it watches: "configmaps in team-a (app=web)". */
  description: string;
  running?: Promise<void>;
}

/**
 * Makes and shares informers (client-go `SharedInformerFactory`).
 *
 * Ask for the informers (or listers) you need, add handlers, then `start`
 * them all with one signal, `waitForCacheSync`, and use the caches. Once
 * started, an informer asked for later starts at once, on the signal of
 * the latest `start` (controller-runtime's cache starts informers on first
 * use; client-go's factory waits for another `Start`): a reader that asks
 * for a type late is never left with a cache that stays empty. Its lister
 * throws {@link CacheNotSyncedError} until it has listed;
 * `await factory.syncedLister(type)` waits for that. `shutdown` stops
 * every informer and waits for it; afterwards `start` does nothing.
 *
 * @example Cache pods and see your own write arrive
 * ```ts
 * import {
 *   type DeepReadonly,
 *   KubeClient,
 *   KubeConfig,
 *   type Pod,
 *   Pods,
 *   SharedInformerFactory,
 * } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * // An embedded fake apiserver (a real HTTP server on 127.0.0.1); for a real
 * // cluster, build the client from `await KubeConfig.load()` instead.
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(
 *   KubeConfig.fromOptions({ server: server.url }),
 * );
 * await using factory = new SharedInformerFactory(client, { resyncPeriod: 0 });
 *
 * // Handlers get the cached object itself, typed read-only.
 * const seen = Promise.withResolvers<DeepReadonly<Pod>>();
 * factory.informerFor(Pods).addEventHandler({
 *   onAdd: (pod) => {
 *     if (pod.metadata.name === "web-1") seen.resolve(pod);
 *   },
 * });
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * const synced = await factory.waitForCacheSync(stop.signal);
 * assert.equal(synced.get(Pods), true);
 *
 * await client.create(Pods, {
 *   metadata: { namespace: "default", name: "web-1" },
 *   spec: { containers: [{ name: "web", image: "nginx" }] },
 * });
 * const pod = await seen.promise; // the informer has now seen the write
 * assert.equal(pod.spec?.containers?.[0].image, "nginx");
 * const cached = factory.lister(Pods).namespaced("default").list();
 * assert.deepEqual(cached.map((p) => p.metadata.name), ["web-1"]);
 * stop.abort(); // `await using` then shuts the factory, client and server down
 * ```
 */
export class SharedInformerFactory implements AsyncDisposable {
  #client: ResourceClient;
  #opts: SharedInformerFactoryOptions;
  #clock: Clock;
  #entries = new Map<string, Entry>();
  #shutdown = new AbortController();
  #shuttingDown = false;
  /** The latest start's signal: informers asked for later run on it. */
  #started: AbortSignal | undefined;
  /** Ids of the informers' own transforms, for the informer keys. */
  #transforms = new WeakMap<object, number>();
  #nextTransformId = 1;

  #transformId(fn: object): number {
    let id = this.#transforms.get(fn);
    if (id === undefined) {
      id = this.#nextTransformId++;
      this.#transforms.set(fn, id);
    }
    return id;
  }

  /** syncedLister calls waiting for a start. */
  #startWaiters = new Set<() => void>();

  /**
   * Make a factory.
   * @param client lists and watches (a `KubeClient`, or any {@link ResourceClient})
   * @param opts defaults for every informer
   * @throws {RangeError} when `resyncPeriod` is negative
   * @throws {TypeError} when `client` has no `list`/`watch` methods, or an
   * option has the wrong type
   */
  constructor(client: ResourceClient, opts: SharedInformerFactoryOptions = {}) {
    const call = "new SharedInformerFactory";
    checkMethods(call, "client", client, "a KubeClient", ["list", "watch"]);
    checkOptions(call, "opts", opts);
    checkClock(call, "opts.clock", opts.clock);
    checkOptionalString(call, "opts.namespace", opts.namespace);
    checkDuration(call, "opts.resyncPeriod", opts.resyncPeriod);
    this.#client = client;
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
  }

  /**
   * The shared informer of `type` (made on first request). Namespaced types
   * get the `namespace` index.
   *
   * @typeParam T the object type
   * @param type the resource type
   * @throws {TypeError} when `type` is not a ResourceType (a name such as
   * `"configmaps"` is not: pass the descriptor, `ConfigMaps`)
   * @param opts namespace and selectors (part of the identity), resync, indexers
   * @returns the same informer for the same type and options
   */
  informerFor<T extends KubeObject>(
    type: ResourceType<T>,
    opts: InformerForOptions<T> = {},
  ): SharedIndexInformer<T> {
    checkResourceType("SharedInformerFactory.informerFor", "type", type);
    checkOptions("SharedInformerFactory.informerFor", "opts", opts);
    checkShardSelector(
      "SharedInformerFactory.informerFor",
      "opts.shardSelector",
      opts.shardSelector,
    );
    return this.#informer(type, opts, false);
  }

  /**
   * The shared metadata-only informer of `type` (made on first request):
   * it lists and watches with {@link metadataListWatch} and caches
   * {@link PartialObjectMetadata} objects (client-go
   * `metadatainformer.SharedInformerFactory.ForResource`). Shared per type
   * and options like {@link SharedInformerFactory.informerFor}, and apart
   * from the full informer of the same type. The factory's `transform`
   * applies (e.g. `stripManagedFields`).
   *
   * @typeParam T the full object type (only its resource path is used)
   * @param type the resource type
   * @param opts namespace and selectors (part of the identity), resync, indexers
   * @returns the same informer for the same type and options
   *
   * @example Share one metadata-only informer of pods
   * ```ts
   * import assert from "node:assert/strict";
   * import { KubeClient, KubeConfig, Pods, SharedInformerFactory } from "@kubecache/core";
   *
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
   * await using factory = new SharedInformerFactory(client);
   * const a = factory.metadataInformerFor(Pods);
   * assert.equal(factory.metadataInformerFor(Pods), a);
   * assert.notEqual(factory.informerFor(Pods), a as unknown);
   * ```
   */
  metadataInformerFor<T extends KubeObject>(
    type: ResourceType<T>,
    opts: InformerForOptions<PartialObjectMetadata> = {},
  ): SharedIndexInformer<PartialObjectMetadata> {
    checkResourceType(
      "SharedInformerFactory.metadataInformerFor",
      "type",
      type,
    );
    checkOptions("SharedInformerFactory.metadataInformerFor", "opts", opts);
    checkShardSelector(
      "SharedInformerFactory.metadataInformerFor",
      "opts.shardSelector",
      opts.shardSelector,
    );
    return this.#informer(
      type as unknown as ResourceType<PartialObjectMetadata>,
      opts,
      true,
    );
  }

  #informer<T extends KubeObject>(
    type: ResourceType<T>,
    opts: InformerForOptions<T>,
    metadata: boolean,
  ): SharedIndexInformer<T> {
    const namespace = opts.namespace ?? this.#opts.namespace ?? "";
    if (opts.transform !== undefined) {
      checkFunction(
        "SharedInformerFactory.informerFor",
        "opts.transform",
        opts.transform,
      );
    }
    const key = JSON.stringify([
      opts.transform ? this.#transformId(opts.transform) : 0,
      type.group,
      type.version,
      type.resource,
      namespace,
      opts.labelSelector ?? "",
      opts.fieldSelector ?? "",
      opts.shardSelector ?? "",
      metadata,
    ]);
    let entry = this.#entries.get(key);
    if (!entry) {
      const lw = this.#listerWatcher(type, { ...opts, namespace }, metadata);
      const informer = newSharedIndexInformer<T>(
        lw,
        {
          resyncPeriod: opts.resyncPeriod ?? this.#opts.resyncPeriod,
          indexers: type.namespaced
            ? { [NAMESPACE_INDEX]: metaNamespaceIndexFunc }
            : {},
          clock: this.#clock,
          transform: composeTransforms(
            this.#opts.transform as ((obj: T) => T) | undefined,
            opts.transform,
          ),
          // What is watched: "configmaps in team-a (app=web)".
          name: lw.description,
          pageSize: this.#opts.pageSize,
          errorHandler: this.#opts.errorHandler,
          detectMutations: this.#opts.detectMutations,
        },
      );
      entry = {
        type: type as ResourceType,
        informer: informer as unknown as SharedIndexInformer<KubeObject>,
        description: lw.description ?? type.resource,
      };
      this.#entries.set(key, entry);
      // Started already: run it now, on the latest start's signal. Its
      // handlers, added after this returns, still get every object: a
      // handler added after start first gets an add for each cached one.
      if (this.#started && !this.#started.aborted && !this.#shuttingDown) {
        this.#run(entry, this.#started);
      }
    }
    const informer = entry.informer as unknown as SharedIndexInformer<T>;
    if (opts.indexers) {
      const have = informer.getIndexer().getIndexers();
      const missing = Object.entries(opts.indexers).filter(([n]) =>
        !(n in have)
      );
      if (missing.length > 0) informer.addIndexers(Object.fromEntries(missing));
    }
    return informer;
  }

  /**
   * A lister over the cache of `type`'s informer (made on first request).
   *
   * @typeParam T the object type
   * @param type the resource type
   * @param opts as for {@link SharedInformerFactory.informerFor}
   * @returns a lister reading the shared cache; for a namespaced type its
   *   `get` takes `"namespace/name"` (or use `.namespaced(ns).get(name)`)
   *   and throws a TypeError for a bare name
   */
  lister<T extends KubeObject>(
    type: ResourceType<T>,
    opts: InformerForOptions<T> = {},
  ): GenericLister<T> {
    checkResourceType("SharedInformerFactory.lister", "type", type);
    const informer = this.informerFor(type, opts);
    const entry = this.#entryOf(informer);
    const indexer = informer.getIndexer();
    // Every read checks the sync first: an unsynced cache answers
    // "absent" for objects that exist.
    const synced = () => {
      if (informer.hasSynced()) return;
      const err = informer.health()?.lastError;
      throw new CacheNotSyncedError(
        entry.description,
        !entry.running
          ? "the factory has not been started"
          : informer.isStopped()
          ? `its informer stopped${err ? `: ${describeCause(err)}` : ""}`
          : err
          ? `last error: ${describeCause(err)}`
          : undefined,
      );
    };
    const guarded: ReadonlyIndexer<T> = {
      list: () => (synced(), indexer.list()),
      listKeys: () => (synced(), indexer.listKeys()),
      get: (obj) => (synced(), indexer.get(obj)),
      getByKey: (key) => (synced(), indexer.getByKey(key)),
      byIndex: (name, value) => (synced(), indexer.byIndex(name, value)),
      index: (name, obj) => (synced(), indexer.index(name, obj)),
      indexKeys: (name, value) => (synced(), indexer.indexKeys(name, value)),
      listIndexFuncValues: (name) => (
        synced(), indexer.listIndexFuncValues(name)
      ),
      getIndexers: () => indexer.getIndexers(),
    };
    return newGenericLister(guarded, type);
  }

  /**
   * A lister of `type` once its informer has synced its initial list
   * (controller-runtime's cache blocks a read until then). The informer is
   * made if needed, and started at once when the factory has started; on a
   * factory not started yet the wait lasts until {@link
   * SharedInformerFactory.start}.
   *
   * @typeParam T the object type
   * @param type the resource type
   * @param opts as for {@link SharedInformerFactory.informerFor}
   * @param signal stops waiting (the promise rejects with its reason)
   * @returns the lister, as {@link SharedInformerFactory.lister} gives it
   * @throws {TypeError} when `type` is not a ResourceType or `signal` not an AbortSignal
   * @throws {CacheNotSyncedError} (a rejection) when the informer stopped
   *   (its fatal error, or the factory shut down) before it synced
   *
   * @example Read a type first needed long after start
   * ```ts
   * import { ConfigMaps, KubeClient, KubeConfig, Secrets, SharedInformerFactory } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
   * server.create(Secrets, { metadata: { name: "token", namespace: "default" } });
   * await using factory = new SharedInformerFactory(client);
   * factory.informerFor(ConfigMaps);
   * const stop = new AbortController();
   * factory.start(stop.signal);
   * // Secrets were not asked for before start: this starts their informer now.
   * const secrets = await factory.syncedLister(Secrets, {}, stop.signal);
   * assert.equal(secrets.namespaced("default").get("token")?.metadata.name, "token");
   * stop.abort();
   * ```
   */
  async syncedLister<T extends KubeObject>(
    type: ResourceType<T>,
    opts: InformerForOptions<T> = {},
    signal?: AbortSignal,
  ): Promise<GenericLister<T>> {
    const call = "SharedInformerFactory.syncedLister";
    checkResourceType(call, "type", type);
    checkOptions(call, "opts", opts);
    if (signal !== undefined) checkSignal(call, "signal", signal);
    const lister = this.lister(type, opts);
    const informer = this.informerFor(type, opts);
    if (informer.hasSynced()) return lister;
    const entry = this.#entryOf(informer);
    const stop = signal
      ? AbortSignal.any([signal, this.#shutdown.signal])
      : this.#shutdown.signal;
    // Not started yet: the informer's sync watch cannot tell "stopped"
    // from "not started", so wait for the start first.
    while (!entry.running && !stop.aborted) {
      const woken = Promise.withResolvers<void>();
      const wake = () => woken.resolve();
      this.#startWaiters.add(wake);
      stop.addEventListener("abort", wake, { once: true });
      await woken.promise;
      this.#startWaiters.delete(wake);
      stop.removeEventListener("abort", wake);
    }
    const synced = await waitForCacheSync(
      { signal: stop, clock: this.#clock },
      informer.hasSynced,
    );
    if (synced) return lister;
    signal?.throwIfAborted();
    lister.list(); // throws the CacheNotSyncedError saying why
    return lister;
  }

  #entryOf(informer: SharedIndexInformer<KubeObject> | object): Entry {
    for (const e of this.#entries.values()) {
      if (e.informer === informer) return e;
    }
    throw new Error("SharedInformerFactory: informer of another factory");
  }

  /**
   * Start every informer not started yet; returns at once. They run until
   * `signal` aborts or {@link SharedInformerFactory.shutdown}. Does nothing
   * once shutting down.
   *
   * @param signal stops the informers started by this call
   * @throws {TypeError} when `signal` is not an AbortSignal
   */
  start(signal: AbortSignal): void {
    checkSignal("SharedInformerFactory.start", "signal", signal);
    if (this.#shuttingDown) return;
    const stop = AbortSignal.any([signal, this.#shutdown.signal]);
    this.#started = stop;
    for (const entry of this.#entries.values()) {
      if (!entry.running) this.#run(entry, stop);
    }
    for (const wake of this.#startWaiters) wake();
    this.#startWaiters.clear();
  }

  #run(entry: Entry, stop: AbortSignal): void {
    entry.running = entry.informer.run(stop);
    // Handled here: the informer reported a fatal error to errorHandler
    // already; stopped() hands it to whoever awaits.
    entry.running.catch(() => {});
  }

  /**
   * Settles when the informers started so far stop: resolves once all of
   * them have stopped normally (their start signal aborted, or
   * {@link SharedInformerFactory.shutdown}); rejects with the error as soon
   * as one stops on a fatal error (e.g. a `CacheMutationError` from the
   * mutation detector), while the others keep running. A program awaits it
   * to run "until stopped" and exit non-zero on a failure; the same error
   * also reaches the `errorHandler` option (source `"fatal"`), and that
   * informer's `hasSynced()` is false from then on.
   *
   * @returns a promise settling as described
   * @throws {Error} (rejection) the error an informer stopped on
   *
   * @example Run until stopped, failing on a fatal informer error
   * ```ts
   * import { KubeClient, KubeConfig, Pods, SharedInformerFactory } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
   * await using factory = new SharedInformerFactory(client);
   * factory.informerFor(Pods);
   * const stop = new AbortController();
   * factory.start(stop.signal);
   * await factory.waitForCacheSync(stop.signal);
   * stop.abort(); // Ctrl-C, say
   * await factory.stopped(); // resolves: every informer stopped normally
   * ```
   */
  stopped(): Promise<void> {
    const running = [...this.#entries.values()].flatMap((e) =>
      e.running ? [e.running] : []
    );
    return Promise.all(running).then(() => {});
  }

  /**
   * Wait until every started informer has synced (woken by each
   * informer's own sync notification, as {@link waitForCacheSync} is).
   * Each type maps to `true` when all its started informers synced, `false`
   * when `signal` aborted first or an informer stopped before it synced.
   *
   * @param signal stops waiting
   * @throws {TypeError} (as a rejection) when `signal` is not an AbortSignal
   * @returns the sync result per resource type
   */
  async waitForCacheSync(
    signal: AbortSignal,
  ): Promise<Map<ResourceType, boolean>> {
    checkSignal("SharedInformerFactory.waitForCacheSync", "signal", signal);
    const started = [...this.#entries.values()].filter((e) => e.running);
    const results = await Promise.all(
      started.map((e) =>
        waitForCacheSync({ signal, clock: this.#clock }, e.informer.hasSynced)
      ),
    );
    const out = new Map<ResourceType, boolean>();
    started.forEach((e, i) => {
      out.set(e.type, (out.get(e.type) ?? true) && results[i]);
    });
    return out;
  }

  /**
   * Stop every informer and wait until all have stopped (client-go
   * `Shutdown`). Idempotent; later `start` calls do nothing.
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    this.#shutdown.abort();
    for (const wake of this.#startWaiters) wake();
    this.#startWaiters.clear();
    await Promise.all(
      [...this.#entries.values()].map((e) => e.running?.catch(() => {})),
    );
  }

  /** Same as {@link SharedInformerFactory.shutdown}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  #listerWatcher<T extends KubeObject>(
    type: ResourceType<T>,
    opts: InformerForOptions<T>,
    metadata: boolean,
  ): ListerWatcher<T> {
    const filters = {
      namespace: type.namespaced ? opts.namespace : undefined,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      shardSelector: opts.shardSelector,
    };
    const lw = metadata
      ? metadataListWatch(this.#client, type, filters) as ListerWatcher<
        KubeObject
      > as ListerWatcher<T>
      : listWatch(this.#client, type, filters);
    const tweak = this.#opts.tweakListOptions;
    if (!tweak) return lw;
    const tweaked = (o: ListOptions) => {
      const copy = { ...o };
      tweak(copy);
      return copy;
    };
    return {
      description: lw.description,
      expectedType: lw.expectedType,
      list: (o, signal) => lw.list(tweaked(o), signal),
      watch: (o, signal) => lw.watch(tweaked(o), signal),
    };
  }
}

/** `first` then `second`, either absent. */
function composeTransforms<T>(
  first: ((obj: T) => T) | undefined,
  second: ((obj: T) => T) | undefined,
): ((obj: T) => T) | undefined {
  if (!first || !second) return first ?? second;
  return (obj) => second(first(obj));
}
