/**
 * {@link FakeApiServer}: an in-process Kubernetes API server for tests,
 * demos and benchmarks — a real HTTP(S) server on 127.0.0.1 that speaks
 * kube-apiserver's list/watch/CRUD protocol for any registered resource
 * type, with discovery good enough for kubectl, a bounded watch history,
 * and fault injection.
 *
 * @module
 */

import { listenError } from "../api/listen_error.ts";
import { startControllers } from "./_apiserver_controllers.ts";
import { type Clock, realClock } from "../api/clock.ts";
import type { KubeObject } from "../api/object.ts";
import {
  BUILTIN_RESOURCE_TYPES,
  Namespaces,
  type ResourceType,
} from "../api/resources.ts";
import { FakeApiServerFaults, faultState } from "./fake_api_server_faults.ts";
import { handle, type ServerContext } from "./_apiserver_http.ts";
import { serveMutualTls, type ServerHandle } from "./_apiserver_mtls.ts";
import { Cluster, keyOf } from "./_apiserver_registry.ts";
import { namespaceRange } from "./_apiserver_store.ts";
import type { Watch } from "./_apiserver_watch.ts";
import { storeDirect } from "./_apiserver_write_chain.ts";
import {
  MUTATING_CONFIGS,
  VALIDATING_CONFIGS,
} from "./_apiserver_admission.ts";
import type { RequestRecord } from "./request_record.ts";

export { FakeApiServerFaults } from "./fake_api_server_faults.ts";
export type { FailNextOptions, SplitMode } from "./fake_api_server_faults.ts";
export type { RequestRecord } from "./request_record.ts";

/**
 * TLS material of a {@link FakeApiServer}, all PEM.
 *
 * @example Serve HTTPS (certificate from openssl)
 * ```ts
 * import type { FakeApiServerTlsOptions } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * // Made with: openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 ...
 * const tls: FakeApiServerTlsOptions = { cert: "-----BEGIN CERTIFICATE-----...", key: "-----BEGIN PRIVATE KEY-----..." };
 * assert.equal(tls.ca, undefined); // set it to require client certificates
 * ```
 */
export interface FakeApiServerTlsOptions {
  /** Server certificate chain (PEM). */
  cert: string;
  /** Server private key (PEM). */
  key: string;
  /**
   * CA (PEM) that client certificates must chain to. When set, requests
   * must present a client certificate signed by it.
   */
  ca?: string;
}

/**
 * Options of {@link FakeApiServer.start}.
 *
 * @example A bare apiserver for two kinds, with a token
 * ```ts
 * import { FakeApiServer, type FakeApiServerOptions } from "@kubecache/core/testing";
 * import { ConfigMaps, Namespaces, Pods } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const opts: FakeApiServerOptions = {
 *   port: 0, // a free port
 *   token: "secret",
 *   resources: [ConfigMaps, Namespaces],
 *   historyLimit: 100,
 *   bookmarkInterval: 60_000,
 *   controllers: false,
 *   watchList: false,
 * };
 * await using server = await FakeApiServer.start(opts);
 * const wrong = await fetch(`${server.url}/api/v1/configmaps`, { headers: { authorization: "Bearer x" } });
 * assert.equal(wrong.status, 401);
 * await wrong.body?.cancel();
 * const right = await fetch(`${server.url}/api/v1/configmaps`, { headers: { authorization: "Bearer secret" } });
 * assert.equal(right.status, 200);
 * await right.body?.cancel();
 * assert.deepEqual(server.list(Namespaces).map((ns) => ns.metadata.name), [
 *   "default",
 *   "kube-node-lease",
 *   "kube-public",
 *   "kube-system",
 * ]);
 * assert.throws(() => server.list(Pods), TypeError); // not served
 * ```
 */
export interface FakeApiServerOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Serve HTTPS with this certificate and key. */
  tls?: FakeApiServerTlsOptions;
  /**
   * Bearer token every request must carry. Other tokens get 401
   * Unauthorized; requests without one get 403 Forbidden except on
   * /healthz, /livez, /readyz and /version.
   */
  token?: string;
  /** Resource types served. Default: the built-in types of `api/resources.ts`. */
  resources?: readonly ResourceType[];
  /**
   * Events kept for watch replay (the watch cache window). A watch from an
   * older resourceVersion gets a 410 Expired ERROR event; an exact list or
   * continue token that old gets HTTP 410. Default 10 000.
   */
  historyLimit?: number;
  /** Period of BOOKMARK events on watches that allow them, in ms. Default 60 000. */
  bookmarkInterval?: number;
  /**
   * Clock of the server's timers (bookmarks, watch timeouts, latency, the
   * too-large-resourceVersion wait) and of creationTimestamps. Default:
   * the wall clock. A `FakeClock` makes them deterministic.
   */
  clock?: Clock;
  /**
   * Whether the server implements watch-list (streaming lists, Kubernetes
   * 1.27+): `sendInitialEvents` with `resourceVersionMatch=NotOlderThan`
   * on a watch, and 422 for `sendInitialEvents` on a list. `false` behaves
   * like a server without it (1.24): `sendInitialEvents` is ignored and any
   * `resourceVersionMatch` on a watch is 422, so a Reflector's fallback to
   * list-then-watch can be tested. Default true.
   */
  watchList?: boolean;
  /**
   * Whether the server implements server-side sharded list and watch
   * (kube-apiserver 1.36+ with the `ShardedListAndWatch` feature gate): a
   * list or watch with `shardSelector` gets only the objects whose 64-bit
   * FNV-1a hash of the field is in the ranges, a list echoes the selector
   * in `metadata.shardInfo.selector` (written as the server writes it: each
   * term `shardRange(field, 'start', 'end')`, joined by ` || `), and a
   * selector that does not parse is answered as kube-apiserver answers it:
   * a reason-less 500 Status `invalid shard selector: ...` (the parser's
   * error reaches the handler as a plain error). Default false: the
   * parameter is ignored, as a server without the gate or older than 1.36
   * ignores it.
   */
  shardedListAndWatch?: boolean;
  /**
   * How long a read served by the watch cache (a list with a
   * resourceVersion and no limit, a GET with a resourceVersion) waits for a
   * resourceVersion newer than the server's before it answers 504 "Too
   * large resource version", in ms on the server's clock. Default 3000,
   * as kube-apiserver.
   */
  tooLargeResourceVersionDelay?: number;
  /**
   * Whether the controllers of a cluster run beside the apiserver: the
   * namespace controller (a deleted namespace's objects are deleted, then
   * the namespace), the garbage collector (dependents of a deleted owner
   * are deleted, or orphaned, per `propagationPolicy`) and the kubelet's
   * part of graceful deletion (a pod marked with a grace period goes when
   * it ends, on the server's clock). They act shortly after the write
   * that calls for them. `false` is a bare kube-apiserver, as in the
   * recorded transcripts: a namespace stays Terminating until its
   * `/finalize`, finalizers stay until a client removes them. Default true.
   */
  controllers?: boolean;
  /**
   * Where a webhook's `clientConfig.service` is reached: the base URL
   * (`https://127.0.0.1:9443`) of the Service's port, to which the
   * webhook's `path` is appended (kube-apiserver's `ServiceResolver`; in a
   * cluster, the Service's endpoints). Without it, or when it returns
   * undefined, calling such a webhook fails and its `failurePolicy`
   * decides. Webhooks with `clientConfig.url` need none.
   */
  serviceResolver?: (service: WebhookServiceReference) => string | undefined;
}

/**
 * A webhook's Service, as {@link FakeApiServerOptions.serviceResolver}
 * gets it (admissionregistration/v1 `ServiceReference` with the port
 * defaulted to 443).
 *
 * @example Every webhook Service is the Manager on this host
 * ```ts
 * import type { WebhookServiceReference } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const resolve = (svc: WebhookServiceReference) => `https://127.0.0.1:9443`;
 * assert.equal(resolve({ namespace: "default", name: "widgets-webhook", port: 443 }), "https://127.0.0.1:9443");
 * ```
 */
export interface WebhookServiceReference {
  /** The Service's namespace. */
  namespace: string;
  /** The Service's name. */
  name: string;
  /** The Service's port (443 when the reference leaves it out). */
  port: number;
}

const INITIAL_NAMESPACES = [
  "default",
  "kube-system",
  "kube-public",
  "kube-node-lease",
];

/**
 * An in-process fake kube-apiserver over real HTTP on 127.0.0.1 (the
 * embedded cluster of kubecache's tests and demo; plays the part of
 * client-go's `FakeControllerSource` at the wire level, like kube-rs'
 * mock apiserver).
 *
 * It serves `/api/v1` and `/apis/<group>/<version>` for every registered
 * {@link ResourceType}, namespaced or cluster-scoped, with discovery
 * (`/api`, `/apis`, `/version`) for kubectl, health endpoints (`/healthz`,
 * `/readyz`, `/livez`), and kube-apiserver's semantics:
 *
 * - one global, increasing resourceVersion; lists at RV unset, `"0"`,
 *   exact, `resourceVersionMatch`; `limit` + `continue` with
 *   `remainingItemCount`; label and field selectors (`metadata.name`,
 *   `metadata.namespace`, per-kind fields such as pods' `spec.nodeName`);
 * - create (uid, creationTimestamp, generation; 409 AlreadyExists),
 *   update with optimistic concurrency (409 Conflict), merge, JSON,
 *   strategic-merge and apply patches, delete (the object or a Status);
 *   an update that changes nothing keeps the resourceVersion;
 * - watch streams of newline-delimited JSON from a resourceVersion,
 *   replaying the bounded history; too old → a 200 stream carrying an ERROR
 *   event with a 410 Expired Status; BOOKMARKs; `timeoutSeconds`;
 *   `sendInitialEvents=true` + `resourceVersionMatch=NotOlderThan`.
 *
 * Objects handed out by the direct state methods are the stored ones,
 * deep-frozen: copy before changing them. A BOOKMARK's object is
 * `{ kind, apiVersion, metadata: { resourceVersion, creationTimestamp: null } }`
 * exactly as kube-apiserver sends it (plus the `k8s.io/initial-events-end`
 * annotation at the end of a watch-list's initial events). List items carry
 * no kind/apiVersion, as from the real server; watch and GET objects do.
 * `kubectl` works against it (get, -o json, create -f, apply -f,
 * apply --server-side, delete, scale, get -w, explain): discovery, OpenAPI
 * v3 as kube-apiserver serves it (`/openapi/v3` listing each group/version
 * document with its hash; built-in kinds with the schemas a real
 * kube-apiserver v1.26 published, a CRD's served versions from its
 * schemas, so `cli.ts gen --from-cluster` and `kubectl explain` read it),
 * and Table responses with kubectl's columns (also PartialObjectMetadata
 * for metadata-only clients).
 * A CustomResourceDefinition, once created, is Established at once and its
 * resource served; deleting it deletes its custom resources first.
 *
 * @example Start, write, list over HTTP
 * ```ts
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import { ConfigMaps } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
 * const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`);
 * const list = await res.json();
 * assert.equal(list.kind, "ConfigMapList");
 * assert.deepEqual(list.items.map((o: { metadata: { name: string } }) => o.metadata.name), ["a"]);
 * ```
 */
export class FakeApiServer implements AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:34567` (no trailing slash). */
  readonly url: string;
  /** Fault injection: failures, closed and stalled watches, split writes, latency. */
  readonly faults: FakeApiServerFaults;
  /** Every request received, in order, failed ones included. */
  readonly requests: RequestRecord[];
  readonly #cluster: Cluster;
  readonly #server: ServerHandle;
  readonly #closing: AbortController;
  readonly #watches: Set<Watch>;
  readonly #pauses: Map<ReturnType<typeof setTimeout>, () => void>;
  #closed: Promise<void> | undefined;

  /** Use {@link FakeApiServer.start}: it listens before handing out the server. */
  private constructor(parts: {
    url: string;
    faults: FakeApiServerFaults;
    requests: RequestRecord[];
    cluster: Cluster;
    server: ServerHandle;
    closing: AbortController;
    watches: Set<Watch>;
    pauses: Map<ReturnType<typeof setTimeout>, () => void>;
  }) {
    this.url = parts.url;
    this.faults = parts.faults;
    this.requests = parts.requests;
    this.#cluster = parts.cluster;
    this.#server = parts.server;
    this.#closing = parts.closing;
    this.#watches = parts.watches;
    this.#pauses = parts.pauses;
  }

  /**
   * Start a server listening on 127.0.0.1.
   * @param opts port, TLS, token, resource types, history size, bookmark period, clock
   * @returns the running server; close it with `close()` or `await using`
   * @throws {RangeError} when `historyLimit`, `bookmarkInterval` or
   *   `tooLargeResourceVersionDelay` is negative or not finite
   */
  static async start(
    opts: FakeApiServerOptions = {},
  ): Promise<FakeApiServer> {
    const historyLimit = opts.historyLimit ?? 10_000;
    const bookmarkInterval = opts.bookmarkInterval ?? 60_000;
    const tooLargeDelayMs = opts.tooLargeResourceVersionDelay ?? 3_000;
    if (!(tooLargeDelayMs >= 0) || !Number.isFinite(tooLargeDelayMs)) {
      throw new RangeError(
        `Cannot start FakeApiServer with tooLargeResourceVersionDelay ${tooLargeDelayMs}: expected a finite number of ms >= 0`,
      );
    }
    if (!Number.isInteger(historyLimit) || historyLimit < 0) {
      throw new RangeError(
        `Cannot start FakeApiServer with historyLimit ${historyLimit}: expected an integer >= 0`,
      );
    }
    if (!(bookmarkInterval > 0) || !Number.isFinite(bookmarkInterval)) {
      throw new RangeError(
        `Cannot start FakeApiServer with bookmarkInterval ${bookmarkInterval}: expected a finite number of ms > 0`,
      );
    }
    const clock = opts.clock ?? realClock;
    // Webhook configurations are served by every kube-apiserver.
    const types = [...(opts.resources ?? BUILTIN_RESOURCE_TYPES)];
    for (const t of [VALIDATING_CONFIGS, MUTATING_CONFIGS]) {
      if (
        !types.some((x) => x.group === t.group && x.resource === t.resource)
      ) {
        types.push(t);
      }
    }
    const cluster = new Cluster(types, {
      historyLimit,
      clock,
    });
    const nsTable = cluster.find(
      Namespaces.group,
      Namespaces.version,
      Namespaces.resource,
    );
    if (nsTable) {
      for (const name of INITIAL_NAMESPACES) {
        cluster.create(nsTable, { metadata: { name } });
      }
    }
    const closing = new AbortController();
    if (opts.controllers ?? true) {
      startControllers(cluster, clock, closing.signal);
    }
    const watches = new Set<Watch>();
    const pauses = new Map<ReturnType<typeof setTimeout>, () => void>();
    const faults = new FakeApiServerFaults(() => watches);
    const requests: RequestRecord[] = [];
    const ctx: ServerContext = {
      cluster,
      faults: faultState(faults),
      clock,
      token: opts.token,
      bookmarkInterval,
      watches,
      requests,
      closing: closing.signal,
      pause: () => pause(pauses),
      host: "",
      tooLargeDelayMs,
      watchList: opts.watchList ?? true,
      shardedListAndWatch: opts.shardedListAndWatch ?? false,
      serviceResolver: opts.serviceResolver,
    };
    const server = await listen(opts, (req) => handle(ctx, req));
    const addr = server.addr;
    ctx.host = `${addr.hostname}:${addr.port}`;
    const scheme = opts.tls ? "https" : "http";
    return new FakeApiServer({
      url: `${scheme}://${addr.hostname}:${addr.port}`,
      faults,
      requests,
      cluster,
      server,
      closing,
      watches,
      pauses,
    });
  }

  /** The port the server listens on. */
  get port(): number {
    return this.#server.addr.port;
  }

  /**
   * Create an object directly (no HTTP), as a POST would: server-set
   * metadata, a new resourceVersion, an ADDED event. A namespaced object
   * without a namespace goes to "default"; the namespace need not exist.
   * @returns the stored object (frozen)
   * @throws {StatusError} 409 AlreadyExists, 422 Invalid (bad name)
   * @throws {TypeError} when the type is not served by this server
   */
  create<T extends KubeObject>(type: ResourceType<T>, obj: T): T {
    const table = this.#cluster.table(type);
    return storeDirect(this.#cluster, table, "CREATE", obj).obj as T;
  }

  /**
   * Replace an object directly, as a PUT would. A set
   * `metadata.resourceVersion` must be the stored one; an update that
   * changes nothing returns the stored object unchanged (no event).
   * Unlike a PUT, it skips the kind's update validation, as a controller
   * with storage access would: a test or the demo may schedule a pod by
   * setting `spec.nodeName` (over HTTP that is `pods/binding`).
   * @returns the stored object (frozen)
   * @throws {StatusError} 404 NotFound, 409 Conflict (stale resourceVersion)
   * @throws {TypeError} when the type is not served by this server
   */
  update<T extends KubeObject>(type: ResourceType<T>, obj: T): T {
    const table = this.#cluster.table(type);
    return storeDirect(this.#cluster, table, "UPDATE", obj, {
      unvalidated: true,
    }).obj as T;
  }

  /**
   * Delete an object directly, as a DELETE with `gracePeriodSeconds=0`
   * would: an object with finalizers only gets a deletionTimestamp, a pod
   * is written with its deletion fields (MODIFIED) and then removed, a
   * namespace goes Terminating (with `controllers`, its objects are then
   * deleted and so is it). Namespace first, then name, as in {@link get}.
   * @param namespace `""` for cluster-scoped types
   * @param options `gracePeriodSeconds` (default 0: no graceful deletion) and `propagationPolicy`
   * @returns the object as last stored (for a removed object, at the deletion's resourceVersion)
   * @throws {StatusError} 404 NotFound
   * @throws {TypeError} when the type is not served by this server
   */
  delete<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string,
    name: string,
    options: { gracePeriodSeconds?: number; propagationPolicy?: string } = {},
  ): T {
    return this.#cluster.delete(this.#cluster.table(type), namespace, name, {
      gracePeriodSeconds: 0,
      ...options,
    }).entry.obj as T;
  }

  /**
   * The stored object, or undefined. The namespace comes before the name
   * (client-go's object tracker order), the reverse of
   * `KubeClient.get(type, name, { namespace })`:
   * `server.get(ConfigMaps, "default", "app-config")`. Swapped, the lookup
   * finds nothing and returns undefined.
   * @param type the resource type
   * @param namespace `""` for cluster-scoped types
   * @param name the object's name
   * @throws {TypeError} when the type is not served by this server
   */
  get<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string,
    name: string,
  ): T | undefined {
    const table = this.#cluster.table(type);
    const ns = type.namespaced ? namespace : "";
    return table.get(keyOf(ns, name))?.obj as T | undefined;
  }

  /**
   * The stored objects of a type, sorted by namespace and name.
   * @param namespace only this namespace; unset or `""` for all
   * @throws {TypeError} when the type is not served by this server
   */
  list<T extends KubeObject>(type: ResourceType<T>, namespace = ""): T[] {
    const arr = this.#cluster.table(type).sorted();
    const [s, e] = namespaceRange(arr, type.namespaced ? namespace : "");
    const out: T[] = [];
    for (let i = s; i < e; i++) out.push(arr[i].obj as T);
    return out;
  }

  /** The current global resourceVersion (of the latest write). */
  resourceVersion(): string {
    return String(this.#cluster.rv);
  }

  /**
   * Forget all event history (like an etcd compaction plus a watch cache
   * restart): watches, exact lists and continue tokens older than the
   * current resourceVersion now get 410 Expired.
   */
  compact(): void {
    this.#cluster.compact();
  }

  /**
   * Compact etcd at the current resourceVersion, and only etcd: lists that
   * etcd serves at an older resourceVersion (`limit`, `Exact`, continue
   * tokens) answer 410 Expired; watches, served by the watch cache, still
   * resume from older resourceVersions, and lists without `limit` still
   * answer from the cache.
   * @example
   * ```ts
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import { ConfigMaps } from "@kubecache/core";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
   * const old = server.resourceVersion();
   * server.create(ConfigMaps, { metadata: { name: "b", namespace: "default" } });
   * server.compactStorage();
   * const cm = `${server.url}/api/v1/namespaces/default/configmaps`;
   * const exact = await fetch(`${cm}?resourceVersion=${old}&resourceVersionMatch=Exact`);
   * assert.equal(exact.status, 410);
   * await exact.body?.cancel();
   * const cached = await fetch(`${cm}?resourceVersion=${old}`);
   * assert.equal(cached.status, 200);
   * await cached.body?.cancel();
   * ```
   */
  compactStorage(): void {
    this.#cluster.compactStorage();
  }

  /**
   * Restart the watch cache at the current resourceVersion (what an
   * apiserver restart does): a watch from an older resourceVersion gets
   * 200 and one ERROR event with a 410 Expired Status; lists, served by
   * etcd, are unaffected (an exact list at an older resourceVersion still
   * answers 200).
   * @example
   * ```ts
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import { ConfigMaps } from "@kubecache/core";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * const old = server.resourceVersion();
   * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
   * server.resetWatchCache();
   * const res = await fetch(
   *   `${server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${old}`,
   * );
   * assert.equal(res.status, 200);
   * const event = JSON.parse(await res.text());
   * assert.equal(event.type, "ERROR");
   * assert.equal(event.object.code, 410);
   * ```
   */
  resetWatchCache(): void {
    this.#cluster.resetWatchCache();
  }

  /**
   * Stop the server: end every open watch stream, cancel pending timers,
   * and wait for the HTTP server to finish. Idempotent.
   */
  close(): Promise<void> {
    return this.#closed ??= this.#shutdown();
  }

  /** Same as {@link FakeApiServer.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #shutdown(): Promise<void> {
    this.#closing.abort();
    for (const w of [...this.#watches]) w.close();
    for (const [id, resolve] of this.#pauses) {
      clearTimeout(id);
      resolve();
    }
    this.#pauses.clear();
    await this.#server.shutdown();
  }
}

/** Listen with Deno.serve, or node:https when client certificates are verified. */
async function listen(
  opts: FakeApiServerOptions,
  handler: (req: Request) => Promise<Response>,
): Promise<ServerHandle> {
  const port = opts.port ?? 0;
  const tls = opts.tls;
  if (tls?.ca !== undefined) {
    return await serveMutualTls({
      port,
      cert: tls.cert,
      key: tls.key,
      ca: tls.ca,
    }, handler);
  }
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: "127.0.0.1",
      port,
      onListen: () => {},
      ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    }, handler);
  } catch (err) {
    throw listenError("FakeApiServer", "127.0.0.1", port, err);
  }
  return {
    addr: server.addr,
    shutdown: async () => {
      await server.shutdown();
      await server.finished;
    },
  };
}

/** A 1 ms pause between split writes, released early on close. */
function pause(
  pauses: Map<ReturnType<typeof setTimeout>, () => void>,
): Promise<void> {
  return new Promise((resolve) => {
    const id = setTimeout(() => {
      pauses.delete(id);
      resolve();
    }, 1);
    pauses.set(id, resolve);
  });
}
