/**
 * {@link ControllerBuilder} and {@link Controller}: what a controller
 * watches, how events become {@link Request}s, and the reconcile loop
 * (controller-runtime `pkg/builder` and `pkg/internal/controller`).
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import type { ResourceType } from "../api/resources.ts";
import { DeletedFinalStateUnknown } from "../cache/keys.ts";
import type { SharedInformerFactory } from "../cache/factory.ts";
import {
  type SharedIndexInformer,
  waitForCacheSync,
} from "../cache/shared_informer.ts";
import { type GenericLister, newGenericLister } from "../cache/listers.ts";
import { describeCause } from "../cache/reflector_status.ts";
import type { KubeClient } from "../client/rest.ts";
import { RateLimitingQueue } from "../workqueue/rate_limiting_queue.ts";
import { type Next, workLoop } from "../workqueue/_worker_loop.ts";
import type { RateLimiter } from "../workqueue/rate_limiter.ts";
import {
  checkFunction,
  checkOptionalString,
  checkOptions,
  checkPredicates,
  checkType,
  show,
} from "./_check.ts";
import type { EventRecorder } from "./event_recorder.ts";
import { isTerminal } from "./terminal_error.ts";
import {
  checkScope,
  type InformerScope,
  scopedInformer,
  scopeName,
} from "./informer_scope.ts";
import type { Counter, Gauge, Histogram, MetricsRegistry } from "./metrics.ts";
import { workqueueMetrics } from "./_workqueue_metrics.ts";
import { groupOf } from "./owners.ts";
import type { Predicate } from "./predicates.ts";

/**
 * What is reconciled: the key of one object of the controller's type,
 * never the object itself (controller-runtime `reconcile.Request`). Read
 * the object from the cache inside the reconciler; absent means deleted.
 *
 * @example The Request of a ConfigMap
 * ```ts
 * import type { Request } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const req: Request = { namespace: "default", name: "settings" };
 * assert.equal(`${req.namespace}/${req.name}`, "default/settings");
 * ```
 */
export interface Request {
  /** The namespace; absent for a cluster-scoped object. */
  namespace?: string;
  /** The name. */
  name: string;
}

/**
 * What a reconcile asks for next (controller-runtime `reconcile.Result`):
 * nothing (`undefined`: done; its backoff is forgotten), `{ requeueAfter:
 * ms }` (reconcile again after that delay; backoff forgotten), or
 * `{ requeue: true }` (again, after the rate limiter's delay, counted as a
 * retry). A throw retries with backoff as well, and is reported. Anything
 * else (`{ requeueAfter: "5s" }`, `{ requeue_after: 5000 }`,
 * `{ requeueAfter: -1 }`) is a reconcile error: a TypeError naming the
 * controller and the field, reported and retried like a throw.
 *
 * @example Poll an external system every minute
 * ```ts
 * import type { ReconcileResult } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const next = (ready: boolean): ReconcileResult => ready ? undefined : { requeueAfter: 60_000 };
 * assert.deepEqual(next(false), { requeueAfter: 60_000 });
 * ```
 */
export type ReconcileResult = void | { requeueAfter?: number } | {
  requeue: true;
};

/**
 * What a reconciler gets besides the {@link Request}.
 *
 * @example Back off more gently on later attempts
 * ```ts
 * import type { ReconcileContext } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const wait = (ctx: Pick<ReconcileContext, "attempt">) => Math.min(60_000, 1_000 * 2 ** ctx.attempt);
 * assert.equal(wait({ attempt: 3 }), 8_000);
 * ```
 */
export interface ReconcileContext {
  /**
   * Aborts when the reconcile must stop: leadership was lost, the
   * manager is shutting down and `gracefulShutdownTimeout` has passed,
   * or (with the Manager's `sharding`) the key's range was given up.
   * Pass it to every request (`client.patch(..., { signal })`).
   */
  signal: AbortSignal;
  /**
   * Aborts as soon as the controller stops taking keys: the manager's
   * shutdown has started (or leadership was lost, when `signal` aborts
   * too). A long reconcile (a poll, a batch) checks it to wind down at
   * once and return a `{ requeueAfter }` for the next leader, while its
   * requests, on `signal`, may still finish within the grace period
   * (controller-runtime cancels the reconcile's context at the same
   * moment).
   */
  stopping: AbortSignal;
  /** The manager's client. */
  client: KubeClient;
  /** Records Events as this controller (component = controller name). */
  recorder: EventRecorder;
  /** Failed or requeued attempts of this key before this one (the queue's `numRequeues`); 0 the first time. */
  attempt: number;
  /**
   * A lister of `type` once its cache has synced (controller-runtime's
   * cache blocks a read until then): `await ctx.cache(Secrets)`. The
   * informer comes from the manager's factory, started on first use if no
   * controller watches the type. A lister of `manager.factory.lister(type)`
   * read before its sync throws `CacheNotSyncedError` instead of answering
   * "absent"; the controller's own and watched types have synced before
   * its first reconcile. Rejects with `ctx.signal`'s reason when it aborts.
   *
   * The cache is the one of `scope` when given; else the one this
   * controller watches `type` with (its `scope` option, or `owns` /
   * `watches`'s); else the Manager's `cache.byType` default of `type`.
   * @throws {TypeError} (a rejection) when that scope is `metadataOnly`
   */
  cache<O extends KubeObject>(
    type: ResourceType<O>,
    scope?: InformerScope,
  ): Promise<GenericLister<O>>;
}

/**
 * The reconcile function: make the world match the object named by `req`
 * (read from the cache), idempotently. Called for one key at a time.
 *
 * @example A reconciler reading from a lister
 * ```ts
 * import type { Reconciler } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const cache = new Map([["default/a", { data: { x: "1" } }]]);
 * const seen: string[] = [];
 * const reconcile: Reconciler = (req) => {
 *   const cm = cache.get(`${req.namespace}/${req.name}`);
 *   if (!cm) return; // deleted: nothing to do
 *   seen.push(req.name);
 * };
 * reconcile({ namespace: "default", name: "a" }, {} as never);
 * assert.deepEqual(seen, ["a"]);
 * ```
 */
export type Reconciler = (
  req: Request,
  ctx: ReconcileContext,
) => ReconcileResult | Promise<ReconcileResult>;

/**
 * Options of `manager.controller(name, forType, opts)`.
 *
 * @example Two workers and a gentler retry
 * ```ts
 * import type { ControllerOptions } from "@kubecache/core/controller";
 * import { ItemExponentialFailureRateLimiter } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const opts: ControllerOptions<never> = {
 *   maxConcurrentReconciles: 2,
 *   rateLimiter: new ItemExponentialFailureRateLimiter(100, 60_000),
 * };
 * assert.equal(opts.rateLimiter!.when("default/a"), 100);
 * ```
 */
export interface ControllerOptions<T> {
  /** Keys reconciled at once (different keys only). Default 1. */
  maxConcurrentReconciles?: number;
  /** Retry policy of the queue. Default `defaultControllerRateLimiter()` (5 ms doubling to 1000 s, and 10 qps burst 100 overall). */
  rateLimiter?: RateLimiter<string>;
  /** Filters of the events of the controller's own type. */
  predicates?: Predicate<T>[];
  /**
   * Which objects of the controller's own type its informer caches.
   * Default the Manager's `cache.byType` entry of the type, else all (in
   * the Manager's namespace).
   */
  scope?: InformerScope;
  /**
   * How long (ms) `run()` waits for this controller's informers to sync
   * their initial lists before it rejects naming the resource (a CRD not
   * installed, a 403). Default the manager's `cacheSyncTimeout` (120 000,
   * controller-runtime's `CacheSyncTimeout`).
   */
  cacheSyncTimeout?: number;
}

/**
 * Options of {@link ControllerBuilder.owns} and
 * {@link ControllerBuilder.watches}.
 *
 * @example Only label changes of the watched Secrets
 * ```ts
 * import { labelsChanged, type WatchOptions } from "@kubecache/core/controller";
 * import type { Secret } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const opts: WatchOptions<Secret> = { predicates: [labelsChanged] };
 * assert.equal(opts.predicates!.length, 1);
 * ```
 */
export interface WatchOptions<O> {
  /** Filters of this watch's events. */
  predicates?: Predicate<O>[];
  /**
   * Which objects of the type this watch's informer caches. Default the
   * Manager's `cache.byType` entry of the type, else all.
   */
  scope?: InformerScope;
}

/** What a controller needs of its manager (kept apart so the files do not import each other). */
export interface ControllerHost {
  readonly factory: SharedInformerFactory;
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly metrics: MetricsRegistry;
  /** The manager's `cacheSyncTimeout` (ms). */
  readonly cacheSyncTimeout: number;
  /** `scope` if given, else the manager's default scope of `type`. */
  scopeFor(
    type: ResourceType,
    scope: InformerScope | undefined,
  ): InformerScope | undefined;
  eventRecorder(component: string): EventRecorder;
  onError(
    error: unknown,
    controller: string,
    req: Request,
    terminal: boolean,
  ): void;
  add(controller: Controller): void;
  /** Set when the manager shards its controllers' own types. */
  readonly shards?: ShardGate;
}

/**
 * @internal What a controller needs of the manager's shard membership:
 * the sharded informer of its own type, whether a uid's hash is owned,
 * and word of ownership changes (awaited before a release is published).
 */
export interface ShardGate {
  informerFor(type: ResourceType): SharedIndexInformer<KubeObject>;
  owns(uid: string): boolean;
  subscribe(listener: () => void | Promise<void>): () => void;
}

/**
 * Says what a controller watches, then builds it (controller-runtime
 * `builder.Builder`: `For`, `Owns`, `Watches`, `Complete`). Get one from
 * `manager.controller(name, forType, opts)`.
 *
 * @typeParam T the controller's own type (what it reconciles)
 *
 * @example A ConfigMap controller that owns Secrets
 * ```ts
 * import { Manager } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig, Secrets } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * await using manager = new Manager(client);
 * const controller = manager.controller("cm", ConfigMaps)
 *   .owns(Secrets)
 *   .complete(() => {});
 * assert.equal(controller.name, "cm");
 * ```
 */
export class ControllerBuilder<T extends KubeObject> {
  readonly #host: ControllerHost;
  readonly #name: string;
  readonly #forType: ResourceType<T>;
  readonly #opts: ControllerOptions<T>;
  readonly #watches: WatchSpec[] = [];
  #completed = false;

  /** @internal Use `manager.controller(name, forType, opts)`. */
  constructor(
    host: ControllerHost,
    name: string,
    forType: ResourceType<T>,
    opts: ControllerOptions<T>,
  ) {
    this.#host = host;
    this.#name = name;
    this.#forType = forType;
    this.#opts = opts;
  }

  /**
   * Also watch objects of `type` that this controller creates, and
   * reconcile their controller owner (controller-runtime `Owns`,
   * `EnqueueRequestForOwner` with `OnlyControllerOwner`): an event of such
   * an object enqueues the owner named by its ownerReference with
   * `controller: true` whose kind and API group are the controller's type,
   * in the object's namespace (none for a cluster-scoped owner). Other
   * references are ignored; an update enqueues the owners of both the old
   * and the new object.
   *
   * @param type the owned type
   * @param opts predicates of this watch
   * @returns this builder
   * @throws {TypeError} when `type` is not a ResourceType, `opts.predicates` not an array of predicates, or after `complete`
   */
  owns<O extends KubeObject>(
    type: ResourceType<O>,
    opts: WatchOptions<O> = {},
  ): this {
    this.#check("owns", type, opts);
    const group = this.#forType.group;
    const kind = this.#forType.kind;
    const clusterOwner = !this.#forType.namespaced;
    this.#watches.push({
      type: type as ResourceType,
      scope: opts.scope,
      predicates: (opts.predicates ?? []) as Predicate<KubeObject>[],
      both: true,
      map: (obj) => {
        const ref = obj.metadata.ownerReferences?.find((r) =>
          r.controller === true
        );
        if (
          !ref || ref.kind !== kind || groupOf(ref.apiVersion) !== group
        ) return [];
        // Sharded: an owned object follows its owner's uid.
        const shards = this.#host.shards;
        if (shards && ref.uid && !shards.owns(ref.uid)) return [];
        return [
          clusterOwner
            ? { name: ref.name }
            : { namespace: obj.metadata.namespace, name: ref.name },
        ];
      },
    });
    return this;
  }

  /**
   * Also watch objects of `type` and enqueue what `map` returns for each
   * event (controller-runtime `Watches` with `EnqueueRequestsFromMapFunc`);
   * an update maps both the old and the new object.
   *
   * @param type the watched type
   * @param map the Requests of the controller's type an object stands for
   * @param opts predicates of this watch
   * @returns this builder
   * @throws {TypeError} when `type` is not a ResourceType, `map` not a function, `opts.predicates` not an array of predicates, or after `complete`
   */
  watches<O extends KubeObject>(
    type: ResourceType<O>,
    map: (obj: DeepReadonly<O>) => Request[],
    opts: WatchOptions<O> = {},
  ): this {
    this.#check("watches", type, opts);
    checkFunction("ControllerBuilder.watches", "map", map);
    this.#watches.push({
      type: type as ResourceType,
      scope: opts.scope,
      predicates: (opts.predicates ?? []) as Predicate<KubeObject>[],
      both: true,
      map: map as (obj: DeepReadonly<KubeObject>) => Request[],
    });
    return this;
  }

  /**
   * Build the controller with `reconcile` and add it to the manager
   * (controller-runtime `Complete`). Its informers' handlers are added
   * now; its workers run while the manager runs (and leads).
   *
   * @param reconcile the reconcile function
   * @returns the controller
   * @throws {TypeError} when `reconcile` is not a function, or called twice
   * @throws {Error} when the manager runs already
   */
  complete(reconcile: Reconciler): Controller {
    checkFunction("ControllerBuilder.complete", "reconcile", reconcile);
    if (this.#completed) {
      throw new TypeError(
        `ControllerBuilder.complete: controller "${this.#name}" is complete already`,
      );
    }
    this.#completed = true;
    const forType = this.#forType;
    const watches: WatchSpec[] = [{
      type: forType as ResourceType,
      scope: this.#opts.scope,
      predicates: (this.#opts.predicates ?? []) as Predicate<KubeObject>[],
      both: false,
      map: (obj) => [requestOf(obj, forType.namespaced)],
      own: true,
    }, ...this.#watches];
    const controller = new Controller(
      this.#host,
      this.#name,
      forType as ResourceType,
      this.#opts as ControllerOptions<KubeObject>,
      reconcile,
      watches,
    );
    this.#host.add(controller);
    return controller;
  }

  /** @internal Whether `complete` was called (the manager's `run()` checks). */
  get completed(): boolean {
    return this.#completed;
  }

  #check(call: string, type: unknown, opts: unknown): void {
    checkType(`ControllerBuilder.${call}`, "type", type);
    checkOptions(`ControllerBuilder.${call}`, "opts", opts);
    checkPredicates(
      `ControllerBuilder.${call}`,
      "opts.predicates",
      (opts as WatchOptions<KubeObject>).predicates,
    );
    checkScope(
      `ControllerBuilder.${call}`,
      "opts.scope",
      (opts as WatchOptions<KubeObject>).scope,
    );
    if (this.#completed) {
      throw new TypeError(
        `ControllerBuilder.${call}: controller "${this.#name}" is complete already`,
      );
    }
  }
}

interface WatchSpec {
  type: ResourceType;
  scope?: InformerScope;
  predicates: Predicate<KubeObject>[];
  /** Map the old object of an update too (owns, watches). */
  both: boolean;
  map: (obj: DeepReadonly<KubeObject>) => Request[];
  /** The controller's own type: a tombstone without an object maps by its key. */
  own?: boolean;
}

/** controller-runtime's result labels of `controller_runtime_reconcile_total`. */
const RESULTS = ["success", "error", "requeue", "requeue_after"] as const;

/** controller-runtime's buckets of `controller_runtime_reconcile_time_seconds`. */
const RECONCILE_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.15,
  0.2,
  0.25,
  0.3,
  0.35,
  0.4,
  0.45,
  0.5,
  0.6,
  0.7,
  0.8,
  0.9,
  1,
  1.25,
  1.5,
  1.75,
  2,
  2.5,
  3,
  3.5,
  4,
  4.5,
  5,
  6,
  7,
  8,
  9,
  10,
  15,
  20,
  25,
  30,
  40,
  50,
  60,
];

/**
 * One controller (controller-runtime `Controller`, kube-rs `Controller`):
 * its informers' handlers turn events into {@link Request}s on a
 * rate-limited queue; while the manager runs (and leads), up to
 * `maxConcurrentReconciles` workers reconcile them, never one key in two
 * workers at once. Built by {@link ControllerBuilder.complete}.
 *
 * Each reconcile's outcome, as controller-runtime's `reconcileHandler`:
 * a throw → `addRateLimited` (per-key backoff; `ctx.attempt` counts);
 * `undefined` → `forget`; `{ requeueAfter: ms }` (> 0) → `forget` then
 * `addAfter(ms)`; `{ requeue: true }` → `addRateLimited`; a malformed
 * result (an unknown field, a wrong type, a negative delay) → a TypeError
 * handled as a throw; a `TerminalError` (or an error caused by one)
 * → `forget`, never retried, counted in
 * `controller_runtime_terminal_reconcile_errors_total`. A thrown value
 * that is not an `Error` (`throw "boom"`) is counted in
 * `controller_runtime_reconcile_panics_total` (and retried as a throw):
 * the reconcile is not written to fail that way. A synchronous throw is
 * not a panic: a reconciler may be a plain function.
 *
 * @example Enqueue by hand and see the reconcile
 * ```ts
 * import { Manager } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * await using manager = new Manager(client);
 * const seen = Promise.withResolvers<string>();
 * const controller = manager.controller("cm", ConfigMaps).complete((req) => {
 *   if (req.name === "by-hand") seen.resolve(req.name);
 * });
 * const stop = new AbortController();
 * const running = manager.run(stop.signal);
 * controller.enqueue({ namespace: "default", name: "by-hand" });
 * assert.equal(await seen.promise, "by-hand");
 * stop.abort();
 * await running;
 * ```
 */
export class Controller {
  /** The controller's name (metrics label `controller`, queue name, event source). */
  readonly name: string;
  /** The type it reconciles. */
  readonly forType: ResourceType;
  /** Keys reconciled at once. */
  readonly maxConcurrentReconciles: number;
  readonly #host: ControllerHost;
  readonly #reconcile: Reconciler;
  readonly #queue: RateLimitingQueue<string>;
  readonly #informers: {
    type: ResourceType;
    scope: InformerScope | undefined;
    informer: SharedIndexInformer<KubeObject>;
  }[] = [];
  readonly #recorder: EventRecorder;
  readonly #syncTimeout: number;
  /** Sharded: the uid of each own-type key seen, for the ownership test. */
  readonly #uids = new Map<string, string>();
  /**
   * Sharded: the reconciles running, by key, to stop and wait for on a
   * release.
   */
  readonly #running = new Map<
    string,
    { done: Promise<void>; giveUp: AbortController }
  >();
  #ownInformer: SharedIndexInformer<KubeObject> | undefined;
  readonly #m: {
    total: Counter;
    errors: Counter;
    terminal: Counter;
    panics: Counter;
    time: Histogram;
    active: Gauge;
  };

  /** @internal Use {@link ControllerBuilder.complete}. */
  constructor(
    host: ControllerHost,
    name: string,
    forType: ResourceType,
    opts: ControllerOptions<KubeObject>,
    reconcile: Reconciler,
    watches: WatchSpec[],
  ) {
    const workers = opts.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new RangeError(
        `Manager.controller: opts.maxConcurrentReconciles must be an integer >= 1, got ${
          show(opts.maxConcurrentReconciles)
        }`,
      );
    }
    this.name = name;
    this.forType = forType;
    this.maxConcurrentReconciles = workers;
    this.#host = host;
    this.#reconcile = reconcile;
    this.#syncTimeout = opts.cacheSyncTimeout ?? host.cacheSyncTimeout;
    this.#recorder = host.eventRecorder(name);
    const m = host.metrics;
    this.#queue = new RateLimitingQueue<string>(opts.rateLimiter, {
      name,
      clock: host.clock,
      onDuration: workqueueMetrics(m, name).onDuration,
    });
    const label = { controller: name };
    this.#m = {
      total: m.counter(
        "controller_runtime_reconcile_total",
        "Total number of reconciliations per controller",
        { labelNames: ["controller", "result"] },
      ),
      errors: m.counter(
        "controller_runtime_reconcile_errors_total",
        "Total number of reconciliation errors per controller",
        { labelNames: ["controller"] },
      ),
      terminal: m.counter(
        "controller_runtime_terminal_reconcile_errors_total",
        "Total number of terminal reconciliation errors per controller",
        { labelNames: ["controller"] },
      ),
      panics: m.counter(
        "controller_runtime_reconcile_panics_total",
        "Total number of reconciliation panics per controller",
        { labelNames: ["controller"] },
      ),
      time: m.histogram(
        "controller_runtime_reconcile_time_seconds",
        "Length of time per reconciliation per controller",
        { labelNames: ["controller"], buckets: RECONCILE_BUCKETS },
      ),
      active: m.gauge(
        "controller_runtime_active_workers",
        "Number of currently used workers per controller",
        { labelNames: ["controller"] },
      ),
    };
    // Known at start, as controller-runtime initializes them.
    for (const result of RESULTS) this.#m.total.with({ ...label, result });
    this.#m.errors.with(label);
    this.#m.terminal.with(label);
    this.#m.panics.with(label);
    this.#m.time.with(label);
    this.#m.active.with(label).set(0);
    m.gauge(
      "controller_runtime_max_concurrent_reconciles",
      "Maximum number of concurrent reconciles per controller",
      { labelNames: ["controller"] },
    ).with(label).set(workers);
    for (const w of watches) this.#watch(w);
    // Before this replica's release of ranges is published, the
    // reconciles of keys it no longer owns end.
    host.shards?.subscribe(() => this.#drainUnowned());
  }

  /** The uid of the object a key names, as this replica knows it. */
  #uidOf(key: string): string | undefined {
    return this.#ownInformer?.getIndexer().getByKey(key)?.metadata.uid ??
      this.#uids.get(key);
  }

  #owned(key: string): boolean {
    const uid = this.#uidOf(key);
    return uid !== undefined && this.#host.shards!.owns(uid);
  }

  async #drainUnowned(): Promise<void> {
    // A key given up is another replica's once this replica's claim is
    // released or its Lease expires (a replica cut off from the server
    // cannot release): its reconcile is told to stop at once, as a lost
    // leader's are, so it ends within the Lease's margin.
    const given = [...this.#running].filter(([k]) => !this.#owned(k));
    for (const [key, { giveUp }] of given) {
      giveUp.abort(
        new Error(
          `controller "${this.name}": ${key} is no longer this replica's shard`,
        ),
      );
    }
    await Promise.all(given.map(([, r]) => r.done));
  }

  /**
   * Put a Request on the queue, as a handler would (controller-runtime's
   * `source.Channel` for triggers from outside the cluster). A key already
   * waiting is not queued twice. For a cluster-scoped type the namespace
   * is left out.
   * @param req the object to reconcile
   * @throws {TypeError} when `req.name` is not a non-empty string or `req.namespace` is neither a string nor undefined
   */
  enqueue(req: Request): void {
    if (typeof req?.name !== "string" || req.name === "") {
      throw new TypeError(
        `Controller.enqueue: req.name must be a non-empty string, got ${
          show(req?.name)
        }`,
      );
    }
    checkOptionalString("Controller.enqueue", "req.namespace", req.namespace);
    this.#queue.add(keyOf(req, this.forType.namespaced));
  }

  /** Whether every informer this controller reads has synced. */
  hasSynced(): boolean {
    return this.#informers.every((i) => i.informer.hasSynced());
  }

  /**
   * @internal Wait for this controller's informers to sync, at most its
   * `cacheSyncTimeout` (controller-runtime's per-source `WaitForSync` with
   * `CacheSyncTimeout`). Resolves true when synced, false when `signal`
   * aborted first.
   * @throws {Error} (a rejection) naming each resource not synced in time,
   *   with the informer's last error
   */
  async waitForSync(signal: AbortSignal): Promise<boolean> {
    const timeoutMs = this.#syncTimeout;
    const timer = new AbortController();
    const timedOut = new AbortController();
    this.#host.clock.sleep(timeoutMs, timer.signal).then(
      () => timedOut.abort(),
      () => {},
    );
    try {
      const synced = await waitForCacheSync(
        {
          signal: AbortSignal.any([signal, timedOut.signal]),
          clock: this.#host.clock,
        },
        ...this.#informers.map((i) => i.informer.hasSynced),
      );
      if (synced || signal.aborted) return synced;
    } finally {
      timer.abort();
    }
    const missing = this.#informers.filter((i) => !i.informer.hasSynced())
      .map(({ type, scope, informer }) => {
        const err = informer.health()?.lastError;
        const what = scopeName(type, scope);
        return err ? `${what} (${describeCause(err)})` : what;
      });
    throw new Error(
      `controller "${this.name}": ${
        timedOut.signal.aborted
          ? `the cache did not sync within ${timeoutMs} ms`
          : "an informer stopped before it synced"
      }: ${[...new Set(missing)].join(", ")}`,
    );
  }

  /** @internal The queue, for the manager's metrics and shutdown. */
  get queue(): RateLimitingQueue<string> {
    return this.#queue;
  }

  /** @internal Reconciles running now. */
  get inFlight(): number {
    return this.#m.active.with({ controller: this.name }).get();
  }

  /** @internal The informers this controller reads. */
  get informers(): readonly {
    type: ResourceType;
    scope: InformerScope | undefined;
    informer: SharedIndexInformer<KubeObject>;
  }[] {
    return this.#informers;
  }

  /**
   * @internal Run the workers until `stop` aborts; the reconciles in
   * flight get `reconcileSignal` and are awaited.
   */
  run(stop: AbortSignal, signal: AbortSignal): Promise<void> {
    const queue = this.#queue;
    const clock = this.#host.clock;
    const label = { controller: this.name };
    // Series looked up once: a reconcile only bumps numbers.
    const active = this.#m.active.with(label);
    const errors = this.#m.errors.with(label);
    const terminalErrors = this.#m.terminal.with(label);
    const panics = this.#m.panics.with(label);
    const time = this.#m.time.with(label);
    // Aborts when the workers stop taking keys, or with ctx.signal.
    const stopping = AbortSignal.any([stop, signal]);
    const totals = {
      success: this.#m.total.with({ ...label, result: "success" }),
      error: this.#m.total.with({ ...label, result: "error" }),
      requeue: this.#m.total.with({ ...label, result: "requeue" }),
      requeue_after: this.#m.total.with({ ...label, result: "requeue_after" }),
    };
    // What one reconcile leads to (controller-runtime's reconcileHandler);
    // the loop itself is workqueue's, the one runWorkers runs.
    const shards = this.#host.shards;
    const handle = async (key: string): Promise<Next> => {
      // Sharded: only the keys whose object's uid this replica owns.
      if (shards && !this.#owned(key)) return "forget";
      const fin = Promise.withResolvers<void>();
      // Sharded: ctx.signal also aborts when the key's range is given up.
      const giveUp = shards ? new AbortController() : undefined;
      const ctxSignal = giveUp
        ? AbortSignal.any([signal, giveUp.signal])
        : signal;
      if (giveUp) this.#running.set(key, { done: fin.promise, giveUp });
      active.inc();
      const req = requestOfKey(key, this.forType.namespaced);
      const started = clock.now();
      let result: keyof typeof totals = "error";
      try {
        const out = await this.#reconcile(req, {
          signal: ctxSignal,
          stopping: giveUp
            ? AbortSignal.any([stopping, giveUp.signal])
            : stopping,
          cache: (type, scope) => this.#cache(type, scope, ctxSignal),
          client: this.#host.client,
          recorder: this.#recorder,
          attempt: queue.numRequeues(key),
        });
        const bad = malformedResult(out);
        if (bad !== undefined) {
          // Go's typed Result cannot be malformed; here a Go habit
          // ({ requeueAfter: "5s" }) or a typo must not pass as success.
          throw new TypeError(
            `controller "${this.name}": reconcile of ${key} returned a malformed result: ${bad}; return undefined, { requeueAfter: ms } or { requeue: true }`,
          );
        }
        const after = (out as { requeueAfter?: number } | undefined)
          ?.requeueAfter;
        if (typeof after === "number" && after > 0) {
          result = "requeue_after";
          return { after };
        }
        if ((out as { requeue?: boolean } | undefined)?.requeue) {
          result = "requeue";
          return "rateLimited";
        }
        result = "success";
        return "forget";
      } catch (err) {
        errors.inc();
        // What a stop aborted is no failure of the reconcile: retried,
        // never reported or counted as a panic.
        const byStop = (stopping.aborted &&
          (err === stopping.reason || err === signal.reason)) ||
          (giveUp?.signal.aborted === true && err === giveUp.signal.reason);
        const terminal = !byStop && isTerminal(err);
        if (terminal) terminalErrors.inc();
        // JavaScript's closest thing to a Go panic: a thrown value that is
        // no Error (`throw "boom"`, a rejected promise of a plain object).
        if (!byStop && !(err instanceof Error)) panics.inc();
        if (!byStop) this.#host.onError(err, this.name, req, terminal);
        return terminal ? "forget" : "rateLimited";
      } finally {
        if (shards) {
          this.#running.delete(key);
          fin.resolve();
        }
        active.dec();
        totals[result].inc();
        time.observe((clock.now() - started) / 1000);
      }
    };
    return workLoop(queue, this.maxConcurrentReconciles, stop, handle);
  }

  /** ctx.cache: the synced lister of `type` in the scope it resolves to. */
  async #cache<O extends KubeObject>(
    type: ResourceType<O>,
    explicit: InformerScope | undefined,
    signal: AbortSignal,
  ): Promise<GenericLister<O>> {
    checkType("ReconcileContext.cache", "type", type);
    checkScope("ReconcileContext.cache", "scope", explicit);
    const same = (t: ResourceType) =>
      t.group === type.group && t.resource === type.resource;
    // Sharded: the own type is read from the shard's cache (a factory
    // informer would cache every object again).
    if (
      this.#host.shards && this.#ownInformer && explicit === undefined &&
      same(this.forType)
    ) {
      return newGenericLister(
        this.#ownInformer.getIndexer() as never,
        type,
      );
    }
    const scope = explicit ??
      this.#informers.find((i) => same(i.type))?.scope ??
      this.#host.scopeFor(type as ResourceType, undefined);
    if (scope?.metadataOnly) {
      throw new TypeError(
        `ReconcileContext.cache: the cache of ${
          scopeName(type as ResourceType, scope)
        } holds metadata only; read it with manager.factory.metadataInformerFor(type, ...)`,
      );
    }
    return await this.#host.factory.syncedLister(type, {
      namespace: scope?.namespace,
      labelSelector: scope?.labelSelector,
      fieldSelector: scope?.fieldSelector,
      transform: scope?.transform as ((obj: O) => O) | undefined,
    }, signal);
  }

  #watch(spec: WatchSpec): void {
    const shards = spec.own ? this.#host.shards : undefined;
    const scope = this.#host.scopeFor(spec.type, spec.scope);
    if (shards && scope) {
      // The sharded informer filters by its ranges; a scope on top would
      // be another informer the shards do not follow.
      throw new TypeError(
        `ControllerBuilder.complete: controller "${this.name}": a scope of its own type (${
          scopeName(spec.type, scope)
        }) is not supported with the Manager's sharding`,
      );
    }
    const informer = shards
      ? shards.informerFor(spec.type)
      : scopedInformer(this.#host.factory, spec.type, scope);
    if (shards) this.#ownInformer = informer;
    this.#informers.push({ type: spec.type, scope, informer });
    const { predicates } = spec;
    // Sharded: the own type's objects outside the owned ranges (removed
    // by a relist after a re-shard) are not this replica's to reconcile.
    const map = shards
      ? (obj: DeepReadonly<KubeObject>) => {
        const uid = obj.metadata.uid;
        if (uid === undefined || !shards.owns(uid)) return [];
        const reqs = spec.map(obj);
        for (const r of reqs) {
          this.#uids.set(keyOf(r, this.forType.namespaced), uid);
        }
        return reqs;
      }
      : spec.map;
    const add = (reqs: Request[]) => {
      for (const r of reqs) {
        this.#queue.add(keyOf(r, this.forType.namespaced));
      }
    };
    informer.addEventHandler({
      onAdd: (obj) => {
        if (predicates.every((p) => p.create?.(obj) ?? true)) add(map(obj));
      },
      onUpdate: (old, obj) => {
        if (!predicates.every((p) => p.update?.(old, obj) ?? true)) return;
        if (spec.both) add(map(old));
        add(map(obj));
      },
      onDelete: (deleted) => {
        const obj = deleted instanceof DeletedFinalStateUnknown
          ? deleted.obj
          : deleted;
        if (obj === undefined) {
          // A tombstone without its object: only our own key is known.
          const key = (deleted as DeletedFinalStateUnknown<unknown>).key;
          if (spec.own) this.#queue.add(key);
          return;
        }
        if (predicates.every((p) => p.delete?.(obj) ?? true)) add(map(obj));
      },
    }, { name: this.name }); // its label in kubecache_listener_pending
  }
}

/**
 * Why `out` is not a {@link ReconcileResult} (undefined, or an object with
 * at most `requeueAfter`, a number of ms >= 0, and `requeue`, a boolean),
 * or undefined when it is one.
 */
function malformedResult(out: unknown): string | undefined {
  if (out === undefined) return undefined;
  if (typeof out !== "object" || out === null || Array.isArray(out)) {
    return `expected undefined or an object, got ${show(out)}`;
  }
  for (const [k, v] of Object.entries(out)) {
    if (k === "requeueAfter") {
      if (typeof v !== "number" || !(v >= 0) || v === Infinity) {
        return `requeueAfter must be a number of ms >= 0, got ${show(v)}`;
      }
    } else if (k === "requeue") {
      if (typeof v !== "boolean") {
        return `requeue must be a boolean, got ${show(v)}`;
      }
    } else {
      return `unknown field ${JSON.stringify(k)} (${show(v)})`;
    }
  }
  return undefined;
}

function requestOf(
  obj: DeepReadonly<KubeObject>,
  namespaced: boolean,
): Request {
  const { name, namespace } = obj.metadata;
  return namespaced && namespace
    ? { namespace, name: name ?? "" }
    : { name: name ?? "" };
}

/**
 * `namespace/name`, or `name` (cache `metaNamespaceKeyFunc`). A cluster-scoped
 * type's key has no namespace even when a map or `enqueue` gave one: its
 * Request would otherwise come back named `namespace/name`.
 */
function keyOf(req: Request, namespaced: boolean): string {
  return namespaced && req.namespace
    ? `${req.namespace}/${req.name}`
    : req.name;
}

function requestOfKey(key: string, namespaced: boolean): Request {
  const slash = key.indexOf("/");
  if (!namespaced || slash === -1) return { name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
