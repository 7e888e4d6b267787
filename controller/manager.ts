/**
 * {@link Manager}: runs controllers on shared informers, with leader
 * election, metrics, health endpoints and graceful shutdown
 * (controller-runtime `pkg/manager`).
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import type { KubeObject } from "../api/object.ts";
import type { ResourceType } from "../api/resources.ts";
import { SharedInformerFactory } from "../cache/factory.ts";
import { defaultErrorHandler } from "../cache/_processor.ts";
import { describeCause } from "../cache/reflector_status.ts";
import {
  newSharedIndexInformer,
  type SharedIndexInformer,
  waitForCacheSync,
} from "../cache/shared_informer.ts";
import type { KubeClient } from "../client/rest.ts";
import { LeaderElector } from "../leaderelection/leader_elector.ts";
import { LeaseLock } from "../leaderelection/lease_lock.ts";
import { listWatch } from "../api/resource_client.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "../cache/index.ts";
import { type ShardingOptions, ShardMembership } from "./sharding.ts";
import { shardedListWatch } from "./sharded_source.ts";
import {
  checkClock,
  checkDuration,
  checkFunction,
  checkName,
  checkOptionalString,
  checkOptions,
  checkPort,
  checkPositive,
  checkPredicates,
  checkRateLimiter,
  checkSubdomainName,
  checkType,
  show,
} from "./_check.ts";
import {
  type Controller,
  ControllerBuilder,
  type ControllerHost,
  type ControllerOptions,
  type Request,
  type ShardGate,
} from "./builder.ts";
import { EventRecorder } from "./event_recorder.ts";
import {
  EndpointServer,
  type HealthCheck,
  type HealthChecker,
  type ServeOptions,
} from "./health.ts";
import { UserChecks } from "./_health_checks.ts";
import { MetricsRegistry } from "./metrics.ts";
import { checkScope, type InformerScope, scopeName } from "./informer_scope.ts";
import { registerProcessMetrics } from "./_process_metrics.ts";
import { workqueueMetrics } from "./_workqueue_metrics.ts";
import {
  type ConversionOptions,
  type WebhookBuilder,
  WebhookRegistry,
} from "./webhook.ts";
import { WebhookServer, type WebhookServerOptions } from "./webhook_server.ts";
import {
  type WebhookManifestOptions,
  webhookManifests,
} from "./webhook_manifests.ts";

/**
 * Leader election settings of a {@link Manager} (controller-runtime
 * `LeaderElection*` options; durations in ms, as {@link LeaderElector}'s).
 *
 * @example
 * ```ts
 * import type { LeaderElectionOptions } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const le: LeaderElectionOptions = { name: "my-controller", namespace: "kube-system" };
 * assert.equal(le.releaseOnCancel ?? true, true);
 * ```
 */
export interface LeaderElectionOptions {
  /** Name of the Lease the replicas share. */
  name: string;
  /** Namespace of the Lease. */
  namespace: string;
  /** This replica's identity. Default hostname + `_` + a random UUID (controller-runtime's). */
  identity?: string;
  /** Default 15 000. */
  leaseDuration?: number;
  /** Default 10 000. */
  renewDeadline?: number;
  /** Default 2 000. */
  retryPeriod?: number;
  /** Give the Lease up on shutdown so another replica takes over at once. Default true. */
  releaseOnCancel?: boolean;
  /**
   * Called when this replica starts leading, before the workers and the
   * leader runnables start (client-go `OnStartedLeading`). A throw is
   * logged.
   */
  onStartedLeading?: () => void;
  /**
   * Called when this replica stops leading: on shutdown after the Lease is
   * released, or when leadership is lost (client-go `OnStoppedLeading`).
   * A throw is logged.
   */
  onStoppedLeading?: () => void;
}

/**
 * Code the {@link Manager} runs beside its controllers (controller-runtime
 * `manager.Runnable`, and `LeaderElectionRunnable` with
 * `needLeaderElection`): a poller, a cache warmer, a server of your own.
 *
 * `start(signal)` is called once the controllers' caches have synced;
 * with `needLeaderElection: true` (and the Manager's `leaderElection`
 * set), only once this replica leads. `signal` aborts the moment shutdown
 * starts (or leadership is lost); the manager then waits for the promise
 * within `gracefulShutdownTimeout` (1 s more at most) before it goes on
 * without it. A promise that rejects before the stop makes `run()` stop
 * and reject with its error; one that resolves early just ends.
 *
 * @example Poll something while the manager runs
 * ```ts
 * import { Manager, type Runnable } from "@kubecache/core/controller";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * await using manager = new Manager(client);
 * const started = Promise.withResolvers<void>();
 * let stopped = false;
 * const poller: Runnable = {
 *   async start(signal) {
 *     started.resolve();
 *     await new Promise((resolve) => signal.addEventListener("abort", resolve));
 *     stopped = true;
 *   },
 *   needLeaderElection: false,
 * };
 * manager.add(poller);
 * const stop = new AbortController();
 * const running = manager.run(stop.signal);
 * await started.promise;
 * stop.abort();
 * await running;
 * assert.equal(stopped, true);
 * ```
 */
export interface Runnable {
  /** Run until `signal` aborts; the promise settles when done. */
  start(signal: AbortSignal): Promise<void>;
  /**
   * Run only on the leader (controller-runtime's `NeedLeaderElection`).
   * Default false here, as a plain Runnable in controller-runtime (its
   * controllers say true). Without `leaderElection`, every replica runs it.
   */
  needLeaderElection?: boolean;
}

/**
 * Options of {@link Manager}.
 *
 * @example A manager with every option
 * ```ts
 * import type { ManagerOptions } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const opts: ManagerOptions = {
 *   namespace: "team-a",
 *   leaderElection: { name: "my-controller", namespace: "team-a" },
 *   metrics: { port: 8080 },
 *   health: { port: 8081, hostname: "0.0.0.0" },
 *   gracefulShutdownTimeout: 10_000,
 * };
 * assert.equal(opts.metrics && opts.metrics.port, 8080);
 * ```
 */
export interface ManagerOptions {
  /** Only watch this namespace. Default all namespaces. */
  namespace?: string;
  /** Run workers only while holding this Lease. Default: no election, always run. */
  leaderElection?: LeaderElectionOptions;
  /**
   * Split each controller's objects between the replicas that run with
   * the same `sharding.name`: every replica holds a member Lease
   * `<name>-<identity>`, the live members sorted by identity cut the 64-bit
   * hash space of the objects' uids into equal ranges, and each replica's
   * controllers list, watch (server-side sharded where the server
   * supports it) and reconcile only the objects of its ranges; objects of
   * `owns` types follow their owner's uid. A range changes hands only after
   * its owner released it or its Lease expired. See {@link ShardMembership}.
   * Default: no sharding.
   */
  sharding?: ShardingOptions;
  /** Serve `GET /metrics`. Default false. */
  metrics?: ServeOptions | false;
  /** Serve `GET /healthz` and `/readyz`. Default false. May share the metrics port. */
  health?: ServeOptions | false;
  /**
   * Serve the webhooks of {@link Manager.webhook} and
   * {@link Manager.conversion} over HTTPS from a certificate and key file
   * pair re-read when it changes (see {@link WebhookServer}). Every replica
   * serves, leader or not; the server is up before the caches start and
   * stops after them, and `/readyz` has its `webhook` check. Default false.
   */
  webhook?: WebhookServerOptions | false;
  /**
   * How long reconciles in flight may run on after shutdown starts (ms),
   * before their `ctx.signal` aborts; `ctx.stopping` aborts at once.
   * Default 25 000: with the bounded steps after it (1 s for a reconcile
   * that ignores its signal, the Lease release, 2 s for Events) the whole
   * shutdown ends before the kubelet's SIGKILL at Kubernetes' default
   * `terminationGracePeriodSeconds` of 30 s. Raise both together.
   */
  gracefulShutdownTimeout?: number;
  /**
   * How long (ms) each controller waits for its informers' initial lists
   * before `run()` rejects naming the resource (controller-runtime's
   * `CacheSyncTimeout`, 2 minutes); per controller too. Default 120 000.
   */
  cacheSyncTimeout?: number;
  /**
   * Per-type default scopes of the controllers' informers
   * (controller-runtime `cache.Options.ByObject`): a `for`, `owns` or
   * `watches` of a listed type without its own `scope` caches only what
   * the entry says. Matched by API group and resource.
   */
  cache?: { byType?: [ResourceType, InformerScope][] };
  /** Clock of everything timed. Default the real clock. */
  clock?: Clock;
  /**
   * Told of every failed reconcile (the error is also counted and the key
   * retried with backoff, unless it is a `TerminalError`: then
   * `where.terminal` is true and the key is not retried). Not told of an
   * error that is the abort reason of `ctx.signal` or `ctx.stopping`.
   * Default `console.error`.
   */
  onError?: (error: unknown, where: ReconcileErrorSource) => void;
}

/**
 * Where a reconcile error reported to `ManagerOptions.onError` came from.
 *
 * @example Log terminal errors apart
 * ```ts
 * import type { ReconcileErrorSource } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const where: ReconcileErrorSource = { controller: "cm", request: { namespace: "default", name: "a" }, terminal: true };
 * assert.equal(where.terminal ? "gave up" : "will retry", "gave up");
 * ```
 */
export interface ReconcileErrorSource {
  /** The controller's name. */
  controller: string;
  /** The key reconciled. */
  request: Request;
  /** True for a `TerminalError` (or an error caused by one): not retried. */
  terminal: boolean;
}

/**
 * Thrown (as `run()`'s rejection) when the manager lost leadership
 * without being asked to stop: another replica may be working already, so
 * the process should exit and be restarted (controller-runtime exits with
 * "leader election lost").
 *
 * @example Exit on lost leadership
 * ```ts
 * import { LeadershipLostError } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const err: unknown = new LeadershipLostError("my-controller");
 * assert.ok(err instanceof LeadershipLostError);
 * assert.match((err as Error).message, /leader election lost/);
 * ```
 */
export class LeadershipLostError extends Error {
  /**
   * Make the error.
   * @param lease the Lease's name
   */
  constructor(lease: string) {
    super(`leader election lost: Lease ${lease}`);
    this.name = "LeadershipLostError";
  }
}

/**
 * Runs controllers (controller-runtime `Manager`, kube-rs's `Controller`
 * runtime): one {@link SharedInformerFactory} for all of them (two
 * controllers watching Secrets share one watch), one
 * {@link MetricsRegistry}, Event recorders, optional leader election, and
 * the `/metrics`, `/healthz`, `/readyz` endpoints.
 *
 * `run(signal)`:
 *
 * 1. starts the endpoint servers and every controller's informers, and
 *    waits for them to sync (`/readyz` answers 503 until then, 200 after;
 *    readiness does not depend on leadership);
 * 2. with `leaderElection`, campaigns for the Lease; every replica keeps
 *    warm caches and queues, only the leader runs workers;
 * 3. when `signal` aborts: workers take no new keys; reconciles in flight
 *    may finish within `gracefulShutdownTimeout` (then their `ctx.signal`
 *    aborts and they are awaited); the Lease is released (it is renewed
 *    until then); informers, recorders and servers stop; `run()` resolves.
 *    A reconcile still running 1 s after its signal aborted is given up
 *    on: the shutdown goes on without it and `run()` rejects saying so;
 * 4. when leadership is lost without being asked, the workers' signals
 *    abort at once and `run()` rejects with {@link LeadershipLostError}
 *    after the same cleanup: exit, and let a supervisor restart you.
 *
 * A fatal informer error (e.g. the mutation detector firing) rejects
 * `run()` the same way.
 *
 * @example A controller that labels every ConfigMap it sees
 * ```ts
 * import { Manager } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * server.create(ConfigMaps, { metadata: { name: "app", namespace: "default" } });
 *
 * await using manager = new Manager(client);
 * const configMaps = manager.factory.lister(ConfigMaps);
 * const done = Promise.withResolvers<void>();
 * manager.controller("labeller", ConfigMaps).complete(async (req, ctx) => {
 *   const cm = configMaps.namespaced(req.namespace!).get(req.name);
 *   if (!cm || cm.metadata.labels?.seen) return;
 *   await ctx.client.patch(ConfigMaps, req.name, { metadata: { labels: { seen: "yes" } } },
 *     { namespace: req.namespace, patchType: "merge", signal: ctx.signal });
 *   done.resolve();
 * });
 * const stop = new AbortController();
 * const running = manager.run(stop.signal);
 * await done.promise;
 * stop.abort();
 * await running;
 * assert.equal(server.get(ConfigMaps, "default", "app")?.metadata.labels?.seen, "yes");
 * ```
 */
export class Manager implements AsyncDisposable {
  /** Where every controller's informers come from (one per type). */
  readonly factory: SharedInformerFactory;
  /** The metrics of the controllers, queues, informers and leader election. */
  readonly metrics: MetricsRegistry;
  /** This replica's shard membership, with the `sharding` option. */
  readonly shards: ShardMembership | undefined;
  readonly #shardGate: ShardGate | undefined;
  /** The sharded informers of the controllers' own types, by resource. */
  readonly #sharded = new Map<string, SharedIndexInformer<KubeObject>>();
  #shardedStop: AbortSignal | undefined;
  readonly #client: KubeClient;
  readonly #clock: Clock;
  readonly #opts: ManagerOptions;
  readonly #graceful: number;
  readonly #controllers: Controller[] = [];
  readonly #builders: { name: string; completed(): boolean }[] = [];
  readonly #runnables: Runnable[] = [];
  #isLeader: () => boolean = () => false;
  readonly #recorders = new Map<string, EventRecorder>();
  readonly #informers = new Map<string, SharedIndexInformer<KubeObject>>();
  #servers: EndpointServer[] = [];
  readonly #webhooks = new WebhookRegistry();
  #webhookServer: WebhookServer | undefined;
  #started = false;
  #running = false;
  /** While run() runs: stop it with an informer's fatal error. */
  #onFatal: ((error: unknown) => void) | undefined;
  readonly #userChecks = {
    healthz: new UserChecks("Manager.addHealthzCheck"),
    readyz: new UserChecks("Manager.addReadyzCheck"),
  };
  #dispose = new AbortController();
  #stopped: Promise<void> | undefined;
  #unobserve: () => void;

  /**
   * Create a manager; nothing runs until {@link Manager.run}.
   * @param client the client every controller, recorder and informer uses
   * @param opts namespace, leader election, endpoints, shutdown timeout, clock
   * @throws {TypeError} when `client` is not a KubeClient or an option has the wrong type
   * @throws {RangeError} when a duration or port is out of range
   */
  constructor(client: KubeClient, opts: ManagerOptions = {}) {
    const call = "new Manager";
    if (
      typeof client?.list !== "function" || typeof client.watch !== "function"
    ) {
      throw new TypeError(
        `${call}: client must be a KubeClient, got ${show(client)}`,
      );
    }
    checkOptions(call, "opts", opts);
    checkClock(call, "opts.clock", opts.clock);
    if (opts.cache !== undefined) {
      checkOptions(call, "opts.cache", opts.cache);
      const byType = opts.cache.byType;
      if (byType !== undefined && !Array.isArray(byType)) {
        throw new TypeError(
          `${call}: opts.cache.byType must be an array of [ResourceType, InformerScope] pairs, got ${
            show(byType)
          }`,
        );
      }
      byType?.forEach((pair, i) => {
        if (!Array.isArray(pair) || pair.length !== 2) {
          throw new TypeError(
            `${call}: opts.cache.byType[${i}] must be a [ResourceType, InformerScope] pair, got ${
              show(pair)
            }`,
          );
        }
        checkType(call, `opts.cache.byType[${i}][0]`, pair[0]);
        checkScope(call, `opts.cache.byType[${i}][1]`, pair[1]);
      });
    }
    if (opts.cacheSyncTimeout !== undefined) {
      checkPositive(call, "opts.cacheSyncTimeout", opts.cacheSyncTimeout);
    }
    checkDuration(
      call,
      "opts.gracefulShutdownTimeout",
      opts.gracefulShutdownTimeout,
    );
    const le = opts.leaderElection;
    if (le !== undefined) {
      checkOptions(call, "opts.leaderElection", le);
      checkSubdomainName(call, "opts.leaderElection.name", le.name);
      checkName(call, "opts.leaderElection.namespace", le.namespace);
      if (
        le.releaseOnCancel !== undefined &&
        typeof le.releaseOnCancel !== "boolean"
      ) {
        throw new TypeError(
          `${call}: opts.leaderElection.releaseOnCancel must be a boolean, got ${
            show(le.releaseOnCancel)
          }`,
        );
      }
      for (const cb of ["onStartedLeading", "onStoppedLeading"] as const) {
        if (le[cb] !== undefined) {
          checkFunction(call, `opts.leaderElection.${cb}`, le[cb]);
        }
      }
      // The elector checks its durations (whole seconds, deadline order)
      // at construction: make one now so a bad option throws here, named
      // as the option the caller wrote.
      asOption(
        call,
        "opts.leaderElection",
        "new LeaderElector",
        () =>
          new LeaderElector({
            lock: new LeaseLock({
              client,
              namespace: le.namespace,
              name: le.name,
              identity: le.identity ?? "check",
            }),
            leaseDuration: le.leaseDuration,
            renewDeadline: le.renewDeadline,
            retryPeriod: le.retryPeriod,
            callbacks: {
              onStartedLeading: () => {},
              onStoppedLeading: () => {},
            },
          }),
      );
    }
    for (const key of ["metrics", "health"] as const) {
      const o = opts[key];
      if (o === undefined || o === false) continue;
      checkOptions(call, `opts.${key}`, o);
      checkPort(call, `opts.${key}.port`, o.port);
      checkOptionalString(call, `opts.${key}.hostname`, o.hostname);
    }
    if (opts.onError !== undefined) {
      checkFunction(call, "opts.onError", opts.onError);
    }
    if (opts.webhook !== undefined && opts.webhook !== false) {
      checkOptions(call, "opts.webhook", opts.webhook);
      checkPort(call, "opts.webhook.port", opts.webhook.port);
      checkName(call, "opts.webhook.certFile", opts.webhook.certFile);
      checkName(call, "opts.webhook.keyFile", opts.webhook.keyFile);
      checkOptionalString(call, "opts.webhook.hostname", opts.webhook.hostname);
    }
    this.#client = client;
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
    this.#graceful = opts.gracefulShutdownTimeout ??
      DEFAULT_GRACEFUL_SHUTDOWN_MS;
    this.factory = new SharedInformerFactory(client, {
      namespace: opts.namespace,
      clock: this.#clock,
      // An informer's fatal error rejects run(), naming the controller and
      // the resource: logging it here too would print it twice (Deno's
      // "run again with the --allow-net flag" once per line).
      // Told here, not by factory.stopped(): that covers only the
      // informers started when it is called, not one a reconcile asks
      // for later, and a cache stopped for good must not leave run()
      // (and the workers reading it) going on.
      errorHandler: (error, context) => {
        if (context.source === "fatal" && this.#onFatal) {
          return this.#onFatal(error);
        }
        defaultErrorHandler(error, context);
      },
    });
    this.metrics = new MetricsRegistry();
    const sharding = opts.sharding;
    if (sharding !== undefined) {
      checkOptions(call, "opts.sharding", sharding);
      const clock = this.#clock;
      this.shards = asOption(
        call,
        "opts.sharding",
        "new ShardMembership",
        () => new ShardMembership(client, { ...sharding, clock }),
      );
      this.#shardGate = this.#makeShardGate(this.shards);
    }
    this.#registerMetrics();
    this.#unobserve = this.#observeClient(client);
  }

  /** client-go's `rest_client_*` metrics, from the client's request observer. */
  #observeClient(client: KubeClient): () => void {
    if (typeof client.observeRequests !== "function") return () => {};
    const total = this.metrics.counter(
      "rest_client_requests_total",
      "Number of HTTP requests, partitioned by status code, method, and host.",
      { labelNames: ["code", "method", "host"] },
    );
    const duration = this.metrics.histogram(
      "rest_client_request_duration_seconds",
      "Request latency in seconds. Broken down by verb, and host.",
      {
        labelNames: ["verb", "host"],
        buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      },
    );
    return client.observeRequests((r) => {
      total.with({ code: r.code, method: r.method, host: r.host }).inc();
      duration.with({ verb: r.method, host: r.host }).observe(
        r.durationMs / 1000,
      );
    });
  }

  /**
   * Register the admission webhooks of `type` (controller-runtime
   * `ctrl.NewWebhookManagedBy(mgr).For(&T{})` with `WithDefaulter` and
   * `WithValidator`): `.defaulter(fn)` serves
   * `/mutate-<group>-<version>-<kind>`, `.validator({ create, update,
   * delete })` serves `/validate-…`, on the server of the `webhook` option.
   * Register before {@link Manager.run}.
   * @param type the resource type admitted
   * @returns the builder
   * @throws {TypeError} when `type` is not a ResourceType
   * @throws {Error} when the manager runs already
   *
   * @example A defaulter and a validator, answered without a server
   * ```ts
   * import { Manager, webhookPath } from "@kubecache/core/controller";
   * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
   * import assert from "node:assert/strict";
   *
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
   * await using manager = new Manager(client);
   * manager.webhook(ConfigMaps)
   *   .defaulter((cm) => ({ ...cm, data: { owner: "team-a", ...cm.data } }))
   *   .validator({ delete: () => { throw new Error("configmaps are forever"); } });
   * assert.equal(webhookPath("mutate", ConfigMaps), "/mutate--v1-configmap");
   * ```
   */
  webhook<T extends KubeObject>(type: ResourceType<T>): WebhookBuilder<T> {
    if (this.#started) {
      throw new Error("Manager.webhook: register webhooks before run()");
    }
    checkType("Manager.webhook", "type", type);
    return this.#webhooks.webhook(type);
  }

  /**
   * Serve the conversion of `type`'s kind between its versions on
   * `/convert` (controller-runtime's conversion webhook with a hub):
   * `convert(obj, toVersion)` turns an object into `toVersion`, one side
   * of each call being `hub`; the server goes through the hub between two
   * other versions. Register before {@link Manager.run}.
   * @param type the resource type (any version of its group and kind)
   * @param opts the hub version and the conversion
   * @throws {TypeError} when an argument has the wrong type
   * @throws {Error} when the kind has a conversion already, or the manager runs already
   *
   * @example v1beta1's `sizeInches` is v1's `size`
   * ```ts
   * import { Manager } from "@kubecache/core/controller";
   * import { KubeClient, KubeConfig, resourceType } from "@kubecache/core";
   *
   * const Widgets = resourceType({ apiVersion: "example.com/v1", kind: "Widget", resource: "widgets", namespaced: true });
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
   * await using manager = new Manager(client);
   * manager.conversion(Widgets, {
   *   hub: "v1",
   *   convert(obj, toVersion) {
   *     const { spec, ...rest } = obj as any;
   *     return toVersion === "v1"
   *       ? { ...rest, spec: { size: spec.sizeInches } }
   *       : { ...rest, spec: { sizeInches: spec.size } };
   *   },
   * });
   * ```
   */
  conversion<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ConversionOptions,
  ): void {
    if (this.#started) {
      throw new Error("Manager.conversion: register conversions before run()");
    }
    checkType("Manager.conversion", "type", type);
    this.#webhooks.conversion(type, opts);
  }

  /**
   * The manifests that deploy this manager's webhooks and conversions
   * (Service, cert-manager Issuer and Certificate, webhook
   * configurations, CRD conversion stanzas): see {@link webhookManifests}.
   * A program prints them (for instance under a `--print-manifests` flag)
   * instead of anyone writing them by hand.
   * @param opts the Service's name, namespace and pod selector
   * @returns the objects
   * @throws {TypeError} when an option has the wrong type
   *
   * @example Print them for kubectl apply
   * ```ts
   * import { Manager } from "@kubecache/core/controller";
   * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
   * import assert from "node:assert/strict";
   *
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
   * await using manager = new Manager(client);
   * manager.webhook(ConfigMaps).defaulter((cm) => cm);
   * const items = manager.webhookManifests({ name: "cm-hooks", namespace: "ops", selector: { app: "cm" } });
   * const list = JSON.stringify({ apiVersion: "v1", kind: "List", items }, null, 2); // kubectl apply -f -
   * assert.match(list, /"kind": "MutatingWebhookConfiguration"/);
   * ```
   */
  webhookManifests(opts: WebhookManifestOptions): KubeObject[] {
    return webhookManifests(this.#webhooks, opts);
  }

  /**
   * The Event recorder of `component` (controller-runtime
   * `GetEventRecorderFor`); one per component, stopped with the manager.
   * Each controller's `ctx.recorder` is the recorder of its name.
   * @param component `source.component` of the Events
   * @returns the recorder
   * @throws {TypeError} when `component` is not a non-empty string
   */
  eventRecorder(component: string): EventRecorder {
    checkName("Manager.eventRecorder", "component", component);
    let r = this.#recorders.get(component);
    if (!r) {
      r = new EventRecorder(this.#client, { component, clock: this.#clock });
      this.#recorders.set(component, r);
    }
    return r;
  }

  /**
   * Start building a controller of `forType` (controller-runtime
   * `NewControllerManagedBy(mgr).Named(name).For(forType)`); finish with
   * `.complete(reconcile)`. Every controller must be complete before
   * `run()`.
   * @param name unique controller name (metrics, queue, Event source)
   * @param forType the type reconciled
   * @param opts workers, rate limiter, predicates
   * @returns a builder
   * @throws {TypeError} on a bad argument (`opts.predicates` not an array of predicates, `opts.rateLimiter` not a RateLimiter, ...) or a name used already
   * @throws {Error} when the manager has started
   */
  controller<T extends KubeObject>(
    name: string,
    forType: ResourceType<T>,
    opts: ControllerOptions<T> = {},
  ): ControllerBuilder<T> {
    const call = "Manager.controller";
    checkName(call, "name", name);
    checkType(call, "forType", forType);
    checkOptions(call, "opts", opts);
    checkPredicates(call, "opts.predicates", opts.predicates);
    if (opts.rateLimiter !== undefined) {
      checkRateLimiter(call, "opts.rateLimiter", opts.rateLimiter);
    }
    if (opts.cacheSyncTimeout !== undefined) {
      checkPositive(call, "opts.cacheSyncTimeout", opts.cacheSyncTimeout);
    }
    checkScope(call, "opts.scope", opts.scope);
    if (this.#started) {
      throw new Error(`${call}: cannot add "${name}": the manager has started`);
    }
    if (this.#builders.some((b) => b.name === name)) {
      throw new TypeError(`${call}: a controller named "${name}" exists`);
    }
    const builder = new ControllerBuilder<T>(
      this.#host(),
      name,
      forType,
      opts,
    );
    this.#builders.push({ name, completed: () => builder.completed });
    return builder;
  }

  /**
   * Run `runnable` beside the controllers (controller-runtime
   * `mgr.Add(runnable)`): started after the caches sync, only while leading
   * when it says `needLeaderElection: true`, stopped with the controllers
   * in the shutdown; see {@link Runnable}.
   * @param runnable `{ start(signal), needLeaderElection? }`
   * @throws {TypeError} when `runnable` has no `start` function or `needLeaderElection` is not a boolean
   * @throws {Error} when the manager has started
   *
   * @example A leader-only job
   * ```ts
   * import { Manager } from "@kubecache/core/controller";
   * import { KubeClient, KubeConfig } from "@kubecache/core";
   * import assert from "node:assert/strict";
   *
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
   * await using manager = new Manager(client);
   * manager.add({ start: async () => {}, needLeaderElection: true });
   * assert.throws(() => manager.add({} as never), /Manager.add: runnable.start must be a function/);
   * ```
   */
  add(runnable: Runnable): void {
    const call = "Manager.add";
    checkOptions(call, "runnable", runnable);
    checkFunction(call, "runnable.start", runnable?.start);
    if (
      runnable.needLeaderElection !== undefined &&
      typeof runnable.needLeaderElection !== "boolean"
    ) {
      throw new TypeError(
        `${call}: runnable.needLeaderElection must be a boolean, got ${
          show(runnable.needLeaderElection)
        }`,
      );
    }
    if (this.#started) {
      throw new Error(
        `${call}: cannot add a runnable: the manager has started`,
      );
    }
    this.#runnables.push(runnable);
  }

  /**
   * Whether this replica leads now (controller-runtime `mgr.Elected()`
   * having closed): with `leaderElection`, while it holds the Lease;
   * without, from `run()` until the shutdown starts. False before `run()`
   * and after.
   * @returns whether the leader's work runs here
   *
   * @example Not leading before run()
   * ```ts
   * import { Manager } from "@kubecache/core/controller";
   * import { KubeClient, KubeConfig } from "@kubecache/core";
   * import assert from "node:assert/strict";
   *
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
   * await using manager = new Manager(client);
   * assert.equal(manager.isLeader(), false);
   * ```
   */
  isLeader(): boolean {
    return this.#isLeader();
  }

  /** The controllers added so far. */
  controllers(): readonly Controller[] {
    return this.#controllers;
  }

  /**
   * Whether every informer of every controller has synced its initial list
   * (what `/readyz` reports, without the server). False until `run()` has
   * started them and they have listed; stays true once they have (as
   * client-go's `HasSynced`); true with no controllers.
   */
  hasSynced(): boolean {
    return [...this.#informers.values()].every((i) => i.hasSynced());
  }

  /**
   * Wait until every controller's informers have synced
   * (controller-runtime `mgr.GetCache().WaitForCacheSync(ctx)`, as
   * `manager.factory.waitForCacheSync` does for a factory): in a test,
   * before injecting a fault meant for a reconcile rather than for the
   * initial list. May be called before `run()`; resolves once `run()` has
   * started the informers and they have listed.
   * @param signal stops waiting
   * @returns true once synced; false when `signal` aborted first or an
   *   informer stopped (run() ended) before it had synced
   * @throws {TypeError} (as a rejection) when `signal` is not an AbortSignal
   *
   * @example Wait for the caches, then break the next request
   * ```ts
   * import { Manager } from "@kubecache/core/controller";
   * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
   * await using manager = new Manager(client);
   * manager.controller("cm", ConfigMaps).complete(() => {});
   * const stop = new AbortController();
   * const running = manager.run(stop.signal);
   * assert.equal(await manager.waitForCacheSync(stop.signal), true);
   * assert.equal(manager.hasSynced(), true);
   * stop.abort();
   * await running;
   * ```
   */
  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    if (!(signal instanceof AbortSignal)) {
      return Promise.reject(
        new TypeError(
          `Manager.waitForCacheSync: signal must be an AbortSignal, got ${
            show(signal)
          }`,
        ),
      );
    }
    return waitForCacheSync(
      { signal, clock: this.#clock },
      ...[...this.#informers.values()].map((i) => i.hasSynced),
    );
  }

  /**
   * Add a check to `GET /healthz` (controller-runtime
   * `AddHealthzCheck`): it runs on every probe beside the Manager's own
   * `ping`, listed by name under `?verbose`, served alone on
   * `/healthz/<name>`; when it fails (see {@link HealthChecker}: anything
   * but `true`, a throw, or no answer within the endpoint's 500 ms) the
   * endpoint answers 503 naming it. May be called while the manager runs.
   * @param name unique; no "/", "," or whitespace
   * @param check sync or async, given a signal that aborts when its time is up
   * @throws {TypeError} on a bad name or a check that is not a function
   * @throws {Error} when the name is taken
   *
   * @example A liveness check of your own
   * ```ts
   * import { Manager } from "@kubecache/core/controller";
   * import { KubeClient, KubeConfig } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
   * await using manager = new Manager(client, { health: { port: 0 } });
   * let lastTick = Date.now();
   * manager.addHealthzCheck("tick", () => Date.now() - lastTick < 60_000);
   * const stop = new AbortController();
   * const running = manager.run(stop.signal);
   * const url = `http://127.0.0.1:${manager.addresses().health!.port}/healthz`;
   * assert.equal(await (await fetch(`${url}?verbose`)).text(), "[+]ping ok\n[+]tick ok\nhealthz check passed\n");
   * lastTick = 0;
   * const res = await fetch(url);
   * assert.equal(res.status, 503);
   * assert.match(await res.text(), /\[-\]tick failed/);
   * stop.abort();
   * await running;
   * ```
   */
  addHealthzCheck(name: string, check: HealthChecker): void {
    this.#userChecks.healthz.add(name, check);
  }

  /**
   * Add a check to `GET /readyz` (controller-runtime `AddReadyzCheck`),
   * beside `ping` and the informers' sync; otherwise as
   * {@link Manager.addHealthzCheck}.
   * @param name unique; no "/", "," or whitespace
   * @param check sync or async, given a signal that aborts when its time is up
   * @throws {TypeError} on a bad name or a check that is not a function
   * @throws {Error} when the name is taken
   *
   * @example Not ready until a warm-up is done
   * ```ts
   * import { Manager } from "@kubecache/core/controller";
   * import { KubeClient, KubeConfig } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
   * await using manager = new Manager(client, { health: { port: 0 } });
   * let warm = false;
   * manager.addReadyzCheck("warm-up", async () => warm);
   * const stop = new AbortController();
   * const running = manager.run(stop.signal);
   * const url = `http://127.0.0.1:${manager.addresses().health!.port}/readyz`;
   * let res = await fetch(url);
   * assert.equal(res.status, 503);
   * assert.equal(await res.text(), "[+]ping ok\n[-]warm-up failed: reason withheld\nreadyz check failed\n");
   * warm = true;
   * res = await fetch(url);
   * assert.equal(await res.text(), "ok");
   * stop.abort();
   * await running;
   * ```
   */
  addReadyzCheck(name: string, check: HealthChecker): void {
    this.#userChecks.readyz.add(name, check);
  }

  /**
   * Where the endpoint servers listen (the chosen ports, when 0 was
   * asked). Filled once `run()` has started the servers, which it does
   * before it returns its promise: read it right after calling `run()`.
   * `webhook` comes a little later, once the webhook server has read its
   * certificate files and listens. Empty before `run()` and after it ends.
   */
  addresses(): {
    metrics?: Deno.NetAddr;
    health?: Deno.NetAddr;
    webhook?: Deno.NetAddr;
  } {
    const [first, second] = this.#servers;
    const out: {
      metrics?: Deno.NetAddr;
      health?: Deno.NetAddr;
      webhook?: Deno.NetAddr;
    } = {};
    if (this.#webhookServer?.listening) out.webhook = this.#webhookServer.addr;
    if (!first) return out;
    if (this.#opts.metrics) out.metrics = first.addr;
    if (this.#opts.health) {
      out.health = (this.#opts.metrics ? second ?? first : first).addr;
    }
    return out;
  }

  /**
   * Run until `signal` aborts (then resolve) or leadership is lost (then
   * reject with {@link LeadershipLostError}); see the class description.
   * A manager runs once.
   * @param signal stops the manager gracefully
   * @returns once everything has stopped
   * @throws {TypeError} (as a rejection) when `signal` is not an AbortSignal or the manager ran already
   * @throws {LeadershipLostError} (as a rejection) when leadership was lost
   */
  run(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      return Promise.reject(
        new TypeError(
          `Manager.run: signal must be an AbortSignal, got ${show(signal)}`,
        ),
      );
    }
    if (this.#started) {
      return Promise.reject(
        new TypeError("Manager.run: the manager has run already"),
      );
    }
    const incomplete = this.#builders.filter((b) => !b.completed());
    if (incomplete.length > 0) {
      return Promise.reject(
        new Error(
          `Manager.run: ${
            incomplete.map((b) => `controller "${b.name}"`).join(", ")
          } never completed: finish each with .complete(reconcile)`,
        ),
      );
    }
    this.#started = true;
    this.#running = true;
    try {
      this.#startServers();
    } catch (err) {
      // A taken port: nothing has started, the manager stays unusable.
      this.#running = false;
      return Promise.reject(err);
    }
    const run = this.#run(AbortSignal.any([signal, this.#dispose.signal]));
    this.#stopped = run.then(() => {}, () => {});
    return run;
  }

  /** Stop (as if `run`'s signal aborted) and wait until stopped; closes the recorders of a manager never run. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#dispose.abort(new Error("Manager disposed"));
    this.#unobserve();
    if (this.#stopped) await this.#stopped;
    else {
      for (const c of this.#controllers) c.queue.shutDown();
      await Promise.all([...this.#recorders.values()].map((r) => r.close()));
      await this.factory.shutdown();
    }
  }

  /** What the controllers use of the membership: sharded informers, the owner test. */
  #makeShardGate(m: ShardMembership): ShardGate {
    return {
      owns: (uid) => m.owns(uid),
      subscribe: (l) => m.subscribe(l),
      informerFor: (type) => {
        const key = `${type.group}/${type.resource}`;
        let informer = this.#sharded.get(key);
        if (!informer) {
          const namespace = type.namespaced ? this.#opts.namespace : undefined;
          informer = newSharedIndexInformer(
            shardedListWatch(listWatch(this.#client, type, { namespace }), m),
            {
              clock: this.#clock,
              indexers: type.namespaced
                ? { [NAMESPACE_INDEX]: metaNamespaceIndexFunc }
                : {},
            },
          );
          this.#sharded.set(key, informer);
          const stop = this.#shardedStop;
          if (stop && !stop.aborted) {
            informer.run(stop).catch((err) => this.#onFatal?.(err));
          }
        }
        return informer;
      },
    };
  }

  #host(): ControllerHost {
    return {
      shards: this.#shardGate,
      factory: this.factory,
      client: this.#client,
      clock: this.#clock,
      metrics: this.metrics,
      cacheSyncTimeout: this.#opts.cacheSyncTimeout ??
        DEFAULT_CACHE_SYNC_TIMEOUT_MS,
      scopeFor: (type, scope) =>
        scope ??
          this.#opts.cache?.byType?.find(([t]) =>
            t.group === type.group && t.resource === type.resource
          )?.[1],
      eventRecorder: (c) => this.eventRecorder(c),
      onError: (error, controller, request, terminal) => {
        const report = this.#opts.onError ??
          ((e: unknown, w: ReconcileErrorSource) =>
            console.error(
              `controller ${w.controller}: reconcile of ${
                w.request.namespace ? `${w.request.namespace}/` : ""
              }${w.request.name} failed${
                w.terminal ? " (terminal: not retried)" : ""
              }:`,
              e,
            ));
        try {
          report(error, { controller, request, terminal });
        } catch (err) {
          console.error("Manager: onError threw:", err);
        }
      },
      add: (controller) => {
        if (this.#started) {
          throw new Error(
            `ControllerBuilder.complete: cannot add "${controller.name}": the manager has started`,
          );
        }
        this.#controllers.push(controller);
        for (const { type, scope, informer } of controller.informers) {
          this.#track(type, scope, informer);
        }
      },
    };
  }

  /**
   * The run sequence, in order (controller-runtime's runnable groups:
   * HTTP servers, caches, others, leader election). A phase added later
   * goes into this list, in its place.
   *
   * Start:
   * 1. endpoint servers (in `run()`, so `addresses()` is filled at once),
   *    then the webhook server (before the caches: a converted kind's
   *    cache needs it);
   * 2. caches: every informer asked of the factory starts (and any asked
   *    for later, at once);
   * 3. sync: each controller waits for its own informers, at most its
   *    `cacheSyncTimeout` (then `run()` rejects naming the resource);
   *    one controller's missing CRD does not hold the others;
   * 4. runnables that need no leader, once every controller's caches
   *    synced;
   * 5. leader election, when configured: while leading, each controller's
   *    workers run once its caches synced, and the runnables needing a
   *    leader once all synced; without it, the same at once.
   *
   * Then wait for a stop: `signal` aborted, leadership lost, or a failure.
   *
   * Stop:
   * 1. `stopping`: workers take no new key, `ctx.stopping` and the
   *    runnables' signals abort;
   * 2. drain: reconciles and runnables in flight get
   *    `gracefulShutdownTimeout`, then `ctx.signal` aborts; ABANDON_MS
   *    later they are given up on;
   * 3. leader election ends: the Lease is released (it was renewed while
   *    draining);
   * 4. queues and caches stop;
   * 5. Events are flushed (EVENT_FLUSH_MS at most), then the webhook
   *    server and the endpoint servers close.
   */
  async #run(signal: AbortSignal): Promise<void> {
    const clock = this.#clock;
    const graceful = this.#graceful;
    // One controller per phase, aborted in the order above.
    const stopRequested = new AbortController();
    const stopping = new AbortController();
    const reconcileAbort = new AbortController();
    const electorStop = new AbortController();
    const informerStop = new AbortController();
    const timers = new AbortController();
    const state: { failure?: { error: unknown }; lost?: LeadershipLostError } =
      {};
    const fail = (error: unknown) => {
      state.failure ??= { error };
      reconcileAbort.abort(error);
      stopRequested.abort(error);
    };
    this.#onFatal = fail;
    const onAbort = () => stopRequested.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });

    // What runs until the stop: the controllers' workers and the
    // runnables, each pushed the moment it is due (a promise that waits
    // for its caches), so a drain never misses one.
    const work: Promise<unknown>[] = [];
    const synced = new Map<Controller, Promise<boolean>>();
    const allSynced = () =>
      Promise.all(synced.values()).then((oks) => oks.every(Boolean));
    let runnablesRunning = 0;
    const runRunnable = async (r: Runnable, stop: AbortSignal) => {
      runnablesRunning++;
      try {
        await r.start(stop);
      } catch (err) {
        // An error before the stop stops the manager (controller-runtime
        // returns it from Start); after, it is only worth a line.
        if (!stop.aborted) fail(err);
        else if (err !== stop.reason) {
          console.error("Manager: a runnable failed while stopping:", err);
        }
      } finally {
        runnablesRunning--;
      }
    };
    const startRunnables = (leader: boolean, stop: AbortSignal) => {
      for (const r of this.#runnables) {
        if ((r.needLeaderElection === true) !== leader) continue;
        work.push(
          allSynced().then((ok) =>
            ok && !stop.aborted ? runRunnable(r, stop) : undefined
          ),
        );
      }
    };
    // The leader's work: the workers, and the runnables needing a leader.
    const startLeading = (lead?: AbortSignal) => {
      const stop = lead
        ? AbortSignal.any([lead, stopping.signal])
        : stopping.signal;
      for (const c of this.#controllers) {
        work.push(
          synced.get(c)!.then((ok) =>
            ok && !stop.aborted ? c.run(stop, reconcileAbort.signal) : undefined
          ),
        );
      }
      startRunnables(true, stop);
    };
    // Stop 2's bound: a reconcile that ignores its aborted signal (a
    // request made without it to a server that hangs) must not hold the
    // shutdown, and the Lease, forever.
    const abandoned = Promise.withResolvers<void>();
    let stuck = 0;
    let stuckRunnables = 0;
    reconcileAbort.signal.addEventListener("abort", () => {
      clock.sleep(ABANDON_MS, timers.signal).then(() => {
        stuck = this.#controllers.reduce((n, c) => n + c.inFlight, 0);
        stuckRunnables = runnablesRunning;
        abandoned.resolve();
      }, () => {});
    }, { once: true });
    const drained = () =>
      Promise.race([
        Promise.allSettled(work).then(() => {}),
        abandoned.promise,
      ]);

    let electing: Promise<void> | undefined;
    // Shard membership stops after the workers (its release waits for
    // nothing then) and before the caches.
    const shardStop = new AbortController();
    let sharding: Promise<void> | undefined;
    const shardedRuns: Promise<void>[] = [];
    try {
      // Start 1b: the webhook server, on every replica, before the caches
      // (a cache of a converted kind needs the conversion webhook).
      await this.#webhookServer?.start();
      // Start 2.
      this.factory.start(informerStop.signal);
      if (this.shards) {
        this.#shardedStop = informerStop.signal;
        for (const i of this.#sharded.values()) {
          shardedRuns.push(
            i.run(informerStop.signal).catch((err) => this.#onFatal?.(err)),
          );
        }
        sharding = this.shards.run(shardStop.signal);
      }
      // Start 3.
      for (const c of this.#controllers) {
        synced.set(
          c,
          c.waitForSync(stopRequested.signal).catch((err) => {
            fail(err);
            return false;
          }),
        );
      }
      // Start 4: runnables not needing a leader, once the caches synced.
      startRunnables(false, stopping.signal);
      // Start 5.
      if (!stopRequested.signal.aborted) {
        const le = this.#opts.leaderElection;
        if (le) {
          electing = this.#elect(le, electorStop.signal, {
            startLeading,
            drained,
            lost: (err) => {
              state.lost = err;
              // Another replica may be taking over: stop now.
              reconcileAbort.abort(err);
              stopRequested.abort(err);
            },
          });
          electing.catch(fail);
        } else {
          // No election: this replica is the leader until it stops.
          this.#isLeader = () => !stopping.signal.aborted;
          startLeading();
        }
      }
      await aborted(stopRequested.signal);
    } finally {
      signal.removeEventListener("abort", onAbort);
      // Stop 1.
      stopping.abort(stopRequested.signal.reason);
      // Stop 2.
      clock.sleep(graceful, timers.signal).then(
        () =>
          reconcileAbort.abort(
            new Error(`graceful shutdown timeout (${graceful} ms) passed`),
          ),
        () => {},
      );
      await drained();
      // Stop 3.
      electorStop.abort(stopRequested.signal.reason);
      await electing?.catch(() => {});
      shardStop.abort(stopRequested.signal.reason);
      await sharding;
      // Stop 4. Keys waiting out a requeueAfter or a backoff hold a
      // timer: drop them, or the process stays alive after run()
      // (controller-runtime shuts the queue down when a controller stops).
      for (const c of this.#controllers) c.queue.shutDown();
      informerStop.abort();
      await this.factory.shutdown();
      await Promise.all(shardedRuns);
      // Stop 5.
      timers.abort();
      await this.#closeRecorders();
      // The webhook server last but the endpoints, as controller-runtime
      // stops its webhooks after the caches.
      await this.#webhookServer?.close();
      await Promise.all(this.#servers.map((s) => s.close()));
      this.#servers = [];
      this.#running = false;
      this.#onFatal = undefined;
      this.#isLeader = () => false;
      this.#unobserve();
    }
    if (state.failure) throw state.failure.error;
    if (state.lost && !signal.aborted) throw state.lost;
    if (stuck > 0) {
      throw new Error(
        `Manager.run: ${stuck} reconcile(s) did not end within ${ABANDON_MS} ms after their ctx.signal aborted (gracefulShutdownTimeout ${graceful} ms); shut down without them`,
      );
    }
    if (stuckRunnables > 0) {
      throw new Error(
        `Manager.run: ${stuckRunnables} runnable(s) did not end within gracefulShutdownTimeout (${graceful} ms) and ${ABANDON_MS} ms more; shut down without them`,
      );
    }
  }

  /**
   * Campaign for the Lease until `stop` aborts; while leading, run the
   * workers. Leadership lost without `stop` is reported to `lost`.
   */
  async #elect(
    le: LeaderElectionOptions,
    stop: AbortSignal,
    on: {
      startLeading(lead: AbortSignal): void;
      drained(): Promise<void>;
      lost(err: LeadershipLostError): void;
    },
  ): Promise<void> {
    const leading = this.metrics.gauge(
      "leader_election_master_status",
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      { labelNames: ["name"] },
    ).with({ name: le.name });
    leading.set(0);
    const callback = (fn: (() => void) | undefined, name: string) => {
      try {
        fn?.();
      } catch (err) {
        console.error(`Manager: leaderElection.${name} threw:`, err);
      }
    };
    const elector = new LeaderElector({
      lock: new LeaseLock({
        client: this.#client,
        namespace: le.namespace,
        name: le.name,
        identity: le.identity ?? defaultIdentity(),
      }),
      leaseDuration: le.leaseDuration,
      renewDeadline: le.renewDeadline,
      retryPeriod: le.retryPeriod,
      releaseOnCancel: le.releaseOnCancel ?? true,
      clock: this.#clock,
      name: le.name,
      // One line per failure, worded as the informers word theirs
      // ("cannot reach https://...: connection refused"), not a stack.
      onError: (err) =>
        console.error(`leaderelection ${le.name}: ${describeCause(err)}`),
      callbacks: {
        onStartedLeading: (lead) => {
          leading.set(1);
          callback(le.onStartedLeading, "onStartedLeading");
          lead.addEventListener("abort", () => {
            if (!stop.aborted) on.lost(new LeadershipLostError(le.name));
          }, { once: true });
          on.startLeading(lead);
          // The elector keeps renewing until stop aborts, and releases
          // the Lease once this settles.
          return on.drained();
        },
        onStoppedLeading: () => {
          leading.set(0);
          callback(le.onStoppedLeading, "onStoppedLeading");
        },
      },
    });
    this.#isLeader = () => elector.isLeader();
    await elector.run(stop);
    if (!stop.aborted) on.lost(new LeadershipLostError(le.name));
  }

  async #closeRecorders(): Promise<void> {
    // Write what is queued, for a little while, then drop the rest.
    const timer = new AbortController();
    await Promise.race([
      Promise.all([...this.#recorders.values()].map((r) => r.flush())),
      this.#clock.sleep(EVENT_FLUSH_MS, timer.signal).catch(() => {}),
    ]);
    timer.abort();
    await Promise.all([...this.#recorders.values()].map((r) => r.close()));
  }

  #startServers(): void {
    const { metrics, health, webhook } = this.#opts;
    if (webhook) {
      this.#webhookServer = new WebhookServer(webhook, {
        registry: this.#webhooks,
        metrics: this.metrics,
        clock: this.#clock,
      });
    }
    const endpoints = {
      healthz: (): HealthCheck[] => [{
        name: "ping",
        check: () => this.#running,
      }, ...this.#userChecks.healthz.list()],
      readyz: (): HealthCheck[] => [
        { name: "ping", check: () => this.#running },
        ...[...this.#informers].map(([resource, informer]) => ({
          name: `informer-sync:${resource}`,
          check: () => informer.hasSynced(),
        })),
        ...(this.#webhookServer
          ? [{ name: "webhook", check: () => this.#webhookServer!.listening }]
          : []),
        ...this.#userChecks.readyz.list(),
      ],
      clock: this.#clock,
    };
    try {
      if (metrics && health && metrics.port === health.port && metrics.port) {
        this.#servers.push(
          new EndpointServer(metrics, { metrics: this.metrics, ...endpoints }),
        );
        return;
      }
      if (metrics) {
        this.#servers.push(
          new EndpointServer(metrics, { metrics: this.metrics }),
        );
      }
      if (health) this.#servers.push(new EndpointServer(health, endpoints));
    } catch (err) {
      for (const s of this.#servers) s.close();
      this.#servers = [];
      throw err;
    }
  }

  /** Informer metrics, once per informer (shared by the controllers reading it). */
  #track(
    type: ResourceType,
    scope: InformerScope | undefined,
    informer: SharedIndexInformer<KubeObject>,
  ): void {
    if ([...this.#informers.values()].includes(informer)) return;
    // Two transforms of one type read the same: number the second.
    const base = scopeName(type, scope);
    let resource = base;
    for (let n = 2; this.#informers.has(resource); n++) {
      resource = `${base}#${n}`;
    }
    this.#informers.set(resource, informer);
    const events = this.metrics.counter(
      "kubecache_reflector_watch_events_total",
      "Objects added, updated (to a new resourceVersion) or deleted by the informer after its initial list.",
      { labelNames: ["resource"] },
    ).with({ resource });
    informer.addEventHandler({
      onAdd: (_obj, initial) => {
        if (!initial) events.inc();
      },
      onUpdate: (old, obj) => {
        if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) {
          events.inc();
        }
      },
      onDelete: () => events.inc(),
    }, { name: "kubecache-metrics" });
  }

  #registerMetrics(): void {
    const m = this.metrics;
    registerProcessMetrics(m);
    const shards = this.shards;
    if (shards) {
      const label = { name: shards.name };
      const members = m.gauge(
        "kubecache_shard_members",
        "Live members of the shard group, as this replica last read them.",
        { labelNames: ["name"] },
      ).with(label);
      const fraction = m.gauge(
        "kubecache_shard_owned_fraction",
        "The part of the hash space this replica owns, 0 to 1.",
        { labelNames: ["name"] },
      ).with(label);
      const moving = m.gauge(
        "kubecache_shard_moving",
        "1 while this replica's owned ranges differ from its share.",
        { labelNames: ["name"] },
      ).with(label);
      const reshards = m.counter(
        "kubecache_shard_reshards_total",
        "Changes of the ranges this replica owns.",
        { labelNames: ["name"] },
      ).with(label);
      let counted = 0;
      m.addCollector(() => {
        members.set(shards.members().length);
        fraction.set(shards.ownedFraction());
        moving.set(shards.moving() ? 1 : 0);
        const n = shards.reshards();
        if (n > counted) reshards.inc(n - counted);
        counted = n;
      });
      this.addReadyzCheck("shards", () => !shards.moving());
    }
    const gauge = (name: string, help: string, labelNames: string[]) =>
      m.gauge(name, help, { labelNames });
    const synced = gauge(
      "kubecache_informer_synced",
      "1 when the informer has synced its initial list, else 0.",
      ["resource"],
    );
    const lists = m.counter(
      "kubecache_reflector_lists_total",
      "Successful lists (or watch-lists) of the informer's reflector.",
      { labelNames: ["resource"] },
    );
    const lastRv = gauge(
      "kubecache_reflector_last_sync_resource_version",
      "The resourceVersion the informer last synced to (as a number).",
      ["resource"],
    );
    const listenerPending = gauge(
      "kubecache_listener_pending",
      "Notifications waiting in an informer handler's buffer (a handler registered with maxPending holds back the watch at its bound).",
      ["resource", "handler"],
    );
    m.addCollector(() => {
      for (const c of this.#controllers) {
        workqueueMetrics(m, c.name).update(c.queue.metrics());
      }
      for (const [resource, informer] of this.#informers) {
        const label = { resource };
        synced.with(label).set(informer.hasSynced() ? 1 : 0);
        const rv = informer.lastSyncResourceVersion();
        const health = informer.health();
        const l = lists.with(label);
        const n = rv === "" ? 0 : 1 + (health?.relists ?? 0);
        l.inc(Math.max(0, n - l.get()));
        const num = Number(rv);
        if (rv !== "" && Number.isFinite(num)) lastRv.with(label).set(num);
        for (const l of health?.listeners ?? []) {
          listenerPending.with({ resource, handler: l.name }).set(l.pending);
        }
      }
    });
  }
}

/**
 * How long after their `ctx.signal` aborts the manager still waits for
 * reconciles in flight before it shuts down without them.
 */
const ABANDON_MS = 1_000;

/**
 * gracefulShutdownTimeout's default: 30 s (the kubelet's default grace)
 * less the steps that follow it, so the Lease is released before SIGKILL.
 */
const DEFAULT_GRACEFUL_SHUTDOWN_MS = 25_000;

/** cacheSyncTimeout's default: controller-runtime's 2 minutes. */
const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/** How long the shutdown waits for queued Events to be written. */
const EVENT_FLUSH_MS = 2_000;

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

function defaultIdentity(): string {
  let host = "kubecache";
  try {
    host = Deno.hostname();
  } catch {
    // no --allow-sys: the UUID alone keeps replicas apart
  }
  return `${host}_${crypto.randomUUID()}`;
}

/**
 * Run `make`, the constructor of a part built from a Manager option, and
 * reword its argument errors to name the Manager's call and option
 * (`new Manager: opts.sharding.name ...`), not a class the caller never
 * called.
 */
function asOption<R>(
  call: string,
  option: string,
  inner: string,
  make: () => R,
): R {
  try {
    return make();
  } catch (err) {
    if (
      (err instanceof TypeError || err instanceof RangeError) &&
      err.message.startsWith(`${inner}: `)
    ) {
      const rest = err.message.slice(inner.length + 2);
      const field = /^(?:opts|config)\./.exec(rest);
      const message = field
        ? `${call}: ${option}.${rest.slice(field[0].length)}`
        : `${call}: ${option}: ${rest}`;
      throw new (err.constructor as typeof TypeError)(message, { cause: err });
    }
    throw err;
  }
}
