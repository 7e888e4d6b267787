/**
 * The REST client: {@link KubeClient} (get, list, watch, create, update,
 * patch, delete for any {@link ResourceType}). The {@link StatusError} it
 * throws and its predicates (`isNotFound`, `isConflict`, `isGone`, ...) live
 * in the API vocabulary, `api/errors.ts`.
 *
 * This file holds the verbs, the paths they address and their options;
 * sending and receiving (headers, credentials, impersonation, the idle
 * timer, the HTTP clients and certificate rotation, the socket lists and
 * watches are read from) is the transport's job (`transport.ts`), as
 * client-go's `rest.Request` sits on its `transport` round trippers.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import type { ListOptions, ObjectList, WatchEvent } from "../api/listwatch.ts";
import type {
  ResourceClient,
  ResourceRequestOptions,
} from "../api/resource_client.ts";
import { StatusError } from "../api/errors.ts";
import {
  checkObject,
  checkOptionalString,
  checkOptions,
  checkResourceType,
  checkSignal,
  checkString,
  show,
} from "../api/validate.ts";
import type { KubeObject, Status } from "../api/object.ts";
import { apiVersionOf, type ResourceType } from "../api/resources.ts";
import { type Authenticator, newAuthenticator } from "./auth.ts";
import type { KubeConfig } from "./config.ts";
import { HttpTransport, readJson } from "./transport.ts";
import { decodeWatch } from "./watch.ts";
import { readList } from "./list_decoder.ts";
import {
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_OBJECT_BYTES,
} from "./_json_limits.ts";

// ---- KubeClient ----

/**
 * Options of a {@link KubeClient}.
 *
 * @example A client with a short idle timeout and its own User-Agent
 * ```ts
 * import { KubeClient, KubeConfig, type KubeClientOptions, Namespaces } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * const opts: KubeClientOptions = { timeoutMs: 5_000, userAgent: "my-controller/1.0" };
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }), opts);
 * assert.equal((await client.list(Namespaces)).items.length, 4);
 * ```
 */
export interface KubeClientOptions {
  /**
   * Default idle time limit of one request in ms: the longest wait for the
   * response headers, then for each next chunk of the body (so a big list
   * on a slow link completes as long as bytes keep coming). A watch is
   * bounded until its headers only; its stream lasts as long as the
   * server's `timeoutSeconds`. 0 disables it. Default 30 000. Time during
   * which synchronous work held the event loop does not count: a timer
   * that wakes over 50 ms late starts a fresh window, as the answer may be
   * waiting unread.
   */
  timeoutMs?: number;
  /** Clock for the request timeouts and exec credential expiry. Default the real clock. */
  clock?: Clock;
  /** Authenticator to use instead of the one the config asks for. */
  authenticator?: Authenticator;
  /** `User-Agent` header. Default `kubecache/<version> (Deno)`. */
  userAgent?: string;
  /**
   * Told what the client does not throw: a token file that cannot be
   * re-read (the last token is used), and, once per process at the first
   * client with a CA, that the kubeconfig's CA is trusted beside Deno's
   * root store rather than alone (see the README's Limitations).
   * Default `console.warn`.
   */
  onWarning?: (message: string) => void;
  /**
   * The longest watch line and list item accepted, in bytes (a watch line
   * in characters of its text, the same for ASCII JSON), and of a list
   * without its items (its kind, metadata and spaces); of an error answer
   * only this much is read for its Status. A longer one fails
   * that watch (`WatchDecodeError` of kind `TooLong`) or list (a
   * `SyntaxError`) as soon as it passes the limit, so a broken server or
   * proxy cannot take the process's memory; an informer backs off and
   * tries again. Default 16 MiB, client-go's streaming decoder's limit.
   */
  maxObjectBytes?: number;
  /**
   * The deepest JSON nesting accepted in a watch event, a list or any
   * other answer; deeper fails the call (`TooDeep`, or a `SyntaxError`).
   * Default 10,000, the limit of client-go's decoder. `Infinity` turns the
   * check off.
   */
  maxJsonDepth?: number;
  /**
   * How the answers of `list` and the streams of `watch` are read.
   * `"socket"` (the default): over a connection of the client's own
   * speaking HTTP/1.1, read up to 64 KiB at a time (over TLS one record,
   * 16 KiB at most, as `fetch` reads). `fetch` hands a body over one HTTP
   * chunk per read: one watch event (an API server flushes every event as
   * its own chunk), each read costing a promise and a stream round. Over
   * the socket, events that queued up are decoded in one pass and a 45 MB
   * list costs about half the CPU to read. `"fetch"`: through `fetch` like
   * every other request, HTTP/2 where the server offers it. Every other
   * verb (get, create, update, patch, delete, discovery) always uses
   * `fetch`.
   *
   * The socket asks for a gzip answer to a list (as `fetch` and client-go
   * do; an API server gzips lists over 128 KB) and decodes it. A
   * connection whose answer ended by its framing (not by the server
   * closing it, nor with `Connection: close`, nor aborted) is kept for the
   * next list or watch (two at most per server and client certificate),
   * so a paged list costs one connect and TLS handshake. One the server
   * closes while idle, or that receives bytes while no request is out, is
   * closed at once; a reused one that fails before any answer byte is
   * replaced once, the request sent again. `close()` closes them.
   *
   * Even with `"socket"`, lists and watches use `fetch` when a proxy may
   * apply: the config has a `proxyUrl`, or one of `HTTPS_PROXY`,
   * `HTTP_PROXY`, `ALL_PROXY` (either case) is set and `NO_PROXY` (else
   * `no_proxy`) does not exempt the server's host, by the rules `fetch`
   * follows (`*`, a domain and its subdomains, an IPv4 address or CIDR
   * block, an IPv6 address). Reading those needs `--allow-env` (at least
   * for these eight names); without it the client cannot know whether
   * `fetch` would take a proxy, so it uses `fetch` (no permission prompt
   * is shown). A server that refuses HTTP/1.1 in the TLS handshake
   * (HTTP/2 only) gets the request over `fetch` instead, and every later
   * list and watch of this client too.
   * The socket has TCP keep-alive on (probes after the system's idle
   * time, 2 hours by default on Linux), except for TLS with a client
   * certificate, where Deno offers no way to set it.
   */
  listWatchTransport?: "socket" | "fetch";
}

/**
 * Per-call options every {@link KubeClient} method takes.
 *
 * @example Abort a request
 * ```ts
 * import { type CallOptions, ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * const opts: CallOptions = { signal: AbortSignal.abort(new Error("stopped")), timeoutMs: 1_000 };
 * await assert.rejects(client.get(ConfigMaps, "a", opts), /stopped/);
 * ```
 */
export interface CallOptions {
  /** Aborts the request; the call rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Idle time limit of this call in ms, overriding the client's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * Options of {@link KubeClient.get}.
 *
 * @example Get one object from a namespace
 * ```ts
 * import { ConfigMaps, type GetOptions, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "team-a" } });
 * const opts: GetOptions = { namespace: "team-a" };
 * assert.equal((await client.get(ConfigMaps, "a", opts)).metadata.namespace, "team-a");
 * ```
 */
export interface GetOptions extends CallOptions {
  /** Namespace of a namespaced object; default the config's namespace. */
  namespace?: string;
  /**
   * A subresource of the object (client-go's `SubResource("status")`):
   * `"status"`, `"scale"`, ... The request goes to
   * `/.../<name>/<subresource>`. Through `"status"` a write changes only
   * the object's `status` (and a write to the object itself leaves `status`
   * alone on a kind that has the subresource); the answer is the whole
   * object. Other subresources answer with their own kind (`scale`: an
   * `autoscaling/v1` Scale), whatever `T` says. Letters only.
   */
  subresource?: string;
}

/**
 * Options of {@link KubeClient.list} and {@link KubeClient.watch}.
 *
 * @example One labelled page
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, type ListCallOptions } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default", labels: { app: "web" } } });
 * server.create(ConfigMaps, { metadata: { name: "b", namespace: "default" } });
 * const opts: ListCallOptions = { namespace: "default", labelSelector: "app=web", limit: 10, timeoutMs: 5_000 };
 * assert.deepEqual((await client.list(ConfigMaps, opts)).items.map((cm) => cm.metadata.name), ["a"]);
 * ```
 */
export interface ListCallOptions extends ResourceRequestOptions {
  /** Idle time limit in ms, overriding the client's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * Options of {@link KubeClient.create} and {@link KubeClient.update}.
 *
 * @example A dry run
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, type WriteOptions } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const opts: WriteOptions = { namespace: "default", dryRun: true, fieldManager: "my-controller" };
 * const created = await client.create(ConfigMaps, { metadata: { name: "a" } }, opts);
 * assert.equal(created.metadata.name, "a");
 * assert.equal(server.list(ConfigMaps).length, 0); // validated, not stored
 * ```
 */
export interface WriteOptions extends CallOptions {
  /** Namespace; default the object's `metadata.namespace`, then the config's namespace. */
  namespace?: string;
  /** Validate and answer without persisting (`dryRun=All`). */
  dryRun?: boolean;
  /** Name of the actor making the change (`fieldManager`). */
  fieldManager?: string;
  /**
   * A subresource of the object named by `obj.metadata.name` (client-go's
   * `SubResource("status")`): `"status"`, `"scale"`, `"binding"`... The
   * request goes to `/.../<name>/<subresource>` (a create too: POST
   * `pods/<name>/binding`). Through `"status"` a write changes only
   * the object's `status` (and a write to the object itself leaves `status`
   * alone on a kind that has the subresource); the answer is the whole
   * object. Other subresources answer with their own kind (`scale`: an
   * `autoscaling/v1` Scale), whatever `T` says. Letters only.
   */
  subresource?: string;
}

/**
 * How a patch body is interpreted (the request's content type).
 *
 * @example A merge patch
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, type PatchType } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" }, data: { x: "1" } });
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const patchType: PatchType = "merge";
 * const cm = await client.patch(ConfigMaps, "a", { data: { y: "2" } }, { namespace: "default", patchType });
 * assert.deepEqual(cm.data, { x: "1", y: "2" });
 * ```
 */
export type PatchType = "merge" | "json" | "strategic" | "apply";

/**
 * Options of {@link KubeClient.patch}.
 *
 * @example Server-side apply
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, type PatchOptions } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const opts: PatchOptions = { namespace: "default", patchType: "apply", fieldManager: "my-controller", force: true };
 * const applied = await client.patch(ConfigMaps, "a", {
 *   apiVersion: "v1",
 *   kind: "ConfigMap",
 *   metadata: { name: "a", namespace: "default" },
 *   data: { k: "v" },
 * }, opts);
 * assert.deepEqual(applied.data, { k: "v" });
 * ```
 */
export interface PatchOptions extends CallOptions {
  /** `merge` (RFC 7386), `json` (RFC 6902), `strategic` (built-in types only) or `apply` (server-side apply). */
  patchType: PatchType;
  /** Namespace of a namespaced object; default the config's namespace. */
  namespace?: string;
  /** Validate and answer without persisting. */
  dryRun?: boolean;
  /** Field manager; required by the server for `apply`, where it defaults to `"kubecache"`. */
  fieldManager?: string;
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean;
  /**
   * A subresource of the object (client-go's `SubResource("status")`):
   * `"status"`, `"scale"`, ... The request goes to
   * `/.../<name>/<subresource>`. Through `"status"` a write changes only
   * the object's `status` (and a write to the object itself leaves `status`
   * alone on a kind that has the subresource); the answer is the whole
   * object. Other subresources answer with their own kind (`scale`: an
   * `autoscaling/v1` Scale), whatever `T` says. Letters only.
   */
  subresource?: string;
}

/**
 * Options of {@link KubeClient.delete} (apimachinery `metav1.DeleteOptions`).
 *
 * @example Delete only the object you read
 * ```ts
 * import { ConfigMaps, type DeleteOptions, isConflict, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const cm = server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
 * const stale: DeleteOptions = { namespace: "default", preconditions: { resourceVersion: "1" } };
 * await assert.rejects(client.delete(ConfigMaps, "a", stale), isConflict);
 * await client.delete(ConfigMaps, "a", {
 *   namespace: "default",
 *   preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion },
 *   propagationPolicy: "Background",
 * });
 * assert.equal(server.list(ConfigMaps).length, 0);
 * ```
 */
export interface DeleteOptions extends CallOptions {
  /** Namespace of a namespaced object; default the config's namespace. */
  namespace?: string;
  /** What happens to dependents. */
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  /** Seconds of graceful termination; 0 deletes at once. */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Validate and answer without persisting. */
  dryRun?: boolean;
}

/**
 * Options of {@link KubeClient.request}.
 *
 * @example A request the typed methods do not cover
 * ```ts
 * import { KubeClient, KubeConfig, type RawRequestOptions } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const opts: RawRequestOptions = { query: new URLSearchParams({ limit: "1" }) };
 * const list = await client.request<{ items: unknown[] }>("GET", "/api/v1/namespaces", opts);
 * assert.equal(list.items.length, 1);
 * ```
 */
export interface RawRequestOptions extends CallOptions {
  /** Query parameters. */
  query?: URLSearchParams;
  /** JSON-serialisable body. */
  body?: unknown;
  /** Content type of the body. Default `application/json`. */
  contentType?: string;
  /** `Accept` header. Default `application/json`. */
  accept?: string;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const LIST_PARAMS = [
  "resourceVersion",
  "resourceVersionMatch",
  "limit",
  "continue",
  "labelSelector",
  "fieldSelector",
  "timeoutSeconds",
  "allowWatchBookmarks",
  "sendInitialEvents",
  "shardSelector",
] as const;

/**
 * One request as a {@link KubeClient} observer sees it once its response
 * headers came (or it failed): what client-go's metrics adapters record as
 * `rest_client_requests_total{code,method,host}` and
 * `rest_client_request_duration_seconds{verb,host}`.
 *
 * @example Count requests by code
 * ```ts
 * import { KubeClient, KubeConfig, Namespaces, type RequestObservation } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const seen: RequestObservation[] = [];
 * const stop = client.observeRequests((r) => seen.push(r));
 * await client.list(Namespaces);
 * await client.get(Namespaces, "nope").catch(() => {});
 * stop();
 * assert.deepEqual(seen.map((r) => [r.method, r.code]), [["GET", "200"], ["GET", "404"]]);
 * assert.equal(seen[0].host, new URL(server.url).host);
 * ```
 */
export interface RequestObservation {
  /** HTTP method, e.g. `"GET"` (client-go's `method` and `verb` labels). */
  method: string;
  /** `host:port` of the server. */
  host: string;
  /** The path requested, without the query. */
  path: string;
  /** The status code as a string, or `"<error>"` when no response came. */
  code: string;
  /** Time from sending to the response headers (ms, on the client's clock). */
  durationMs: number;
}

/**
 * A tiny Kubernetes REST client over `fetch` (the counterpart of client-go's
 * dynamic client + `rest.RESTClient`): get, list, watch, create, update,
 * patch and delete for any {@link ResourceType}, JSON to `/api` and
 * `/apis`.
 *
 * Each call makes exactly one HTTP request and never retries: failures
 * throw — a {@link StatusError} for every non-2xx answer (with `code`,
 * `reason`, `retryAfterSeconds`), a {@link RequestTimeoutError} after
 * `timeoutMs` without headers or without body data, `signal.reason` on
 * abort, a `SyntaxError` for a malformed or truncated body. Retrying is the
 * caller's job (the Reflector's). A 401 makes the authenticator drop cached
 * exec credentials, so the next call runs the plugin again.
 *
 * The client owns a `Deno.HttpClient` (CA, client certificate); release it
 * with {@link KubeClient.close} or `await using`.
 *
 * @example Create, change, read and watch a ConfigMap
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * // A FakeApiServer stands in for a cluster; for a real one, build the
 * // client from `await KubeConfig.load()`.
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 *
 * await client.create(ConfigMaps, { metadata: { name: "settings", namespace: "default" }, data: { mode: "slow" } });
 * const patched = await client.patch(ConfigMaps, "settings", { data: { mode: "fast" } }, { patchType: "merge" });
 * const cm = await client.get(ConfigMaps, "settings", { namespace: "default" });
 * assert.equal(cm.data?.mode, "fast");
 * assert.equal(cm.metadata.resourceVersion, patched.metadata.resourceVersion);
 *
 * // A watch from now on; leaving the loop closes the stream.
 * const events = await client.watch(ConfigMaps, { namespace: "default", resourceVersion: cm.metadata.resourceVersion });
 * await client.delete(ConfigMaps, "settings");
 * for await (const ev of events) {
 *   assert.equal(ev.type, "DELETED");
 *   break;
 * }
 * ```
 */
export class KubeClient implements ResourceClient, AsyncDisposable {
  /** The connection settings. */
  readonly config: KubeConfig;
  /** Sends and receives: headers, credentials, idle timer, HTTP clients. */
  #transport: HttpTransport;
  #clock: Clock;
  #observers = new Set<(r: RequestObservation) => void>();
  #maxObjectBytes: number;
  #maxJsonDepth: number;

  /**
   * Create a client.
   * @param config where the server is and how to authenticate
   * @param opts timeouts, clock, authenticator, user agent, warnings
   * @throws {TypeError} when `config` is not a {@link KubeConfig}
   * @throws {RangeError} when `timeoutMs` is negative
   * @throws {KubeConfigError} when the config impersonates several groups
   * or extra values through a `proxyUrl` or a proxy of the environment
   * (they cannot be sent as separate header lines there)
   */
  constructor(config: KubeConfig, opts: KubeClientOptions = {}) {
    // Checked by shape, not instanceof: two copies of the module (a local
    // path and a registry import) make equal configs of different classes.
    const c = config as Partial<KubeConfig> | null | undefined;
    if (
      c === null || typeof c !== "object" || typeof c.server !== "string" ||
      typeof c.tls !== "object" || typeof c.auth !== "object"
    ) {
      throw new TypeError(
        `KubeClient: config must be a KubeConfig, got ${
          typeof config === "object" && config !== null &&
            !Array.isArray(config)
            ? "an object without the fields of a KubeConfig"
            : show(config)
        }`,
      );
    }
    if (opts === null || typeof opts !== "object") {
      throw new TypeError(
        `KubeClient: opts must be an object, got ${show(opts)}`,
      );
    }
    this.config = config;
    const clock = opts.clock ?? realClock;
    const timeoutMs = opts.timeoutMs ?? 30_000;
    if (!(timeoutMs >= 0)) {
      throw new RangeError(
        `KubeClient timeoutMs must be >= 0: got ${opts.timeoutMs}`,
      );
    }
    const auth = opts.authenticator ??
      newAuthenticator(config, { clock, onWarning: opts.onWarning });
    for (const key of ["maxObjectBytes", "maxJsonDepth"] as const) {
      const v = opts[key];
      if (v !== undefined && !(typeof v === "number" && v >= 1)) {
        throw new RangeError(
          `KubeClient: opts.${key} must be a number >= 1, got ${show(v)}`,
        );
      }
    }
    this.#maxObjectBytes = opts.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    this.#maxJsonDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    const listWatchTransport = opts.listWatchTransport ?? "socket";
    if (listWatchTransport !== "socket" && listWatchTransport !== "fetch") {
      throw new RangeError(
        `KubeClient: opts.listWatchTransport must be "socket" or "fetch", got ${
          show(opts.listWatchTransport)
        }`,
      );
    }
    this.#transport = new HttpTransport(config, {
      clock,
      timeoutMs,
      auth,
      userAgent: opts.userAgent ?? "kubecache/0.1.0 (Deno)",
      listWatchTransport,
      onWarning: opts.onWarning,
      maxObjectBytes: this.#maxObjectBytes,
      observe: (method, path, code, sentAt) =>
        this.#observe(method, path, code, sentAt),
    });
    this.#clock = clock;
  }

  /**
   * Get one object.
   * @typeParam T the object type
   * @param type the resource type
   * @param name the object name
   * @param opts namespace, signal, timeout
   * @returns the object
   * @throws {StatusError} e.g. 404 NotFound ({@link isNotFound})
   */
  async get<T extends KubeObject>(
    type: ResourceType<T>,
    name: string,
    opts: GetOptions = {},
  ): Promise<T> {
    checkVerb("KubeClient.get", type, opts, { value: name });
    checkSubresource("KubeClient.get", opts.subresource);
    const path = this.#objectPath(type, name, opts.namespace, opts.subresource);
    return await this.request<T>("GET", path, opts);
  }

  /**
   * List objects: one page when `limit` is set (follow `metadata.continue`).
   * An unset or empty `namespace` lists all namespaces.
   *
   * A list at resourceVersion "0" is answered in one piece whatever the
   * `limit`, which can be more than a JavaScript string holds (512 MiB,
   * about 120k pods). So a body past 256 KiB is decoded item by item as it
   * arrives: parsing overlaps the transfer and the body is never one string.
   *
   * `onListMeta` hears the list's metadata (its continue token) as soon as
   * the head of the body has arrived, before the items are decoded.
   *
   * Every item carries the `kind` and `apiVersion` of `type` (the API server
   * sends list items without them; watch events have them), set on the
   * decoded objects without copying them.
   * @typeParam T the object type
   * @param type the resource type
   * @param opts namespace, list options, signal, idle timeout
   * @returns the list
   * @throws {StatusError} e.g. 410 Expired for an old continue token ({@link isExpired}),
   *   also for a failure Status sent with a 2xx code
   * @throws {TypeError} when the answer is not a list, the connection
   *   fails, or a gzip body is not valid gzip
   * @throws {SyntaxError} when the body is malformed or truncated
   * @throws {RequestTimeoutError} when headers or the next body chunk take longer than the timeout
   */
  async list<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ListCallOptions = {},
  ): Promise<ObjectList<T>> {
    checkVerb("KubeClient.list", type, opts);
    checkSelectors("KubeClient.list", opts);
    const path = this.#collectionPath(type, opts.namespace || undefined);
    const list = await this.#transport.receive(
      "GET",
      path,
      { ...opts, query: listQuery(opts, false) },
      (body, what, onChunk) =>
        readList(body, {
          what,
          onChunk,
          mapItem: opts.mapItem as ((item: unknown) => unknown) | undefined,
          onListMeta: opts.onListMeta,
          maxObjectBytes: this.#maxObjectBytes,
          maxJsonDepth: this.#maxJsonDepth,
        }),
      "list",
    );
    return setTypeMeta(type, checkList(list as ObjectList<T>, path));
  }

  /**
   * Open a watch (`?watch=true`). Resolves once the server has answered
   * with the stream's headers; the iterable then yields events (ERROR
   * events included, as {@link WatchEvent}s with a Status) until the server
   * ends the stream. It throws a `WatchDecodeError` for a malformed or cut
   * stream and `signal.reason` on abort. Leaving the loop early or aborting
   * closes the connection; a returned iterable must be iterated (or its
   * `return()` called) to release the connection.
   * @typeParam T the object type
   * @param type the resource type
   * @param opts namespace, list options (resourceVersion, timeoutSeconds, allowWatchBookmarks, ...), signal, timeout for the headers
   * @returns the events
   * @throws {StatusError} when the server refuses the watch
   *
   * @example Watch config maps; narrow an event before reading its object
   * ```ts
   * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
   * const events = await client.watch(ConfigMaps, { namespace: "default" });
   * server.create(ConfigMaps, {
   *   metadata: { name: "settings", namespace: "default" },
   *   data: { color: "blue" },
   * });
   * for await (const ev of events) {
   *   // An ERROR event carries a Status and a BOOKMARK only a resourceVersion:
   *   // past these two checks, `ev.object` is a ConfigMap.
   *   if (ev.type === "ERROR") throw new Error(ev.object.message);
   *   if (ev.type === "BOOKMARK") continue;
   *   assert.equal(ev.type, "ADDED");
   *   assert.equal(ev.object.data?.color, "blue");
   *   break; // leaving the loop closes the watch
   * }
   * ```
   */
  async watch<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ListCallOptions = {},
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    checkVerb("KubeClient.watch", type, opts);
    checkSelectors("KubeClient.watch", opts);
    const path = this.#collectionPath(type, opts.namespace || undefined);
    const { response, release } = await this.#transport.send("GET", path, {
      ...opts,
      query: listQuery(opts, true),
    }, "watch");
    const body = response.body;
    if (body === null) {
      release();
      return (async function* () {})();
    }
    // Released by the decoder itself: a wrapping generator would cost a
    // second async hop per event.
    return decodeWatch<T>(body, {
      signal: opts.signal,
      onClose: release,
      typeMeta: { kind: type.kind, apiVersion: apiVersionOf(type) },
      maxObjectBytes: this.#maxObjectBytes,
      maxJsonDepth: this.#maxJsonDepth,
    });
  }

  /**
   * Create an object (POST).
   * @typeParam T the object type
   * @param type the resource type
   * @param obj the object; `metadata.name` or `generateName` set
   * @param opts namespace, dryRun, fieldManager, signal, timeout
   * @returns the created object as stored
   * @throws {StatusError} e.g. 409 AlreadyExists ({@link isAlreadyExists})
   */
  async create<T extends KubeObject>(
    type: ResourceType<T>,
    obj: T,
    opts: WriteOptions = {},
  ): Promise<T> {
    checkVerb("KubeClient.create", type, opts);
    checkObject("KubeClient.create", "obj", obj);
    checkSubresource("KubeClient.create", opts.subresource);
    const ns = opts.namespace ?? obj.metadata?.namespace;
    // A subresource is one object's (pods/binding, pods/eviction): the
    // POST goes to that object, named by the body, as client-go's dynamic
    // client does.
    const path = opts.subresource
      ? this.#objectPath(type, obj.metadata?.name ?? "", ns, opts.subresource)
      : this.#collectionPath(type, this.#namespace(type, ns));
    return await this.request<T>("POST", path, {
      ...opts,
      query: writeQuery(opts),
      body: bodyOf(type, obj, opts.subresource),
    });
  }

  /**
   * Replace an object (PUT). With `metadata.resourceVersion` set, the
   * server rejects a stale write with 409 Conflict ({@link isConflict}).
   * @typeParam T the object type
   * @param type the resource type
   * @param obj the object; `metadata.name` set
   * @param opts namespace, dryRun, fieldManager, signal, timeout
   * @returns the updated object as stored
   * @throws {StatusError} e.g. 409 Conflict, 404 NotFound
   * @throws {TypeError} when `obj.metadata.name` is missing
   */
  async update<T extends KubeObject>(
    type: ResourceType<T>,
    obj: T,
    opts: WriteOptions = {},
  ): Promise<T> {
    checkVerb("KubeClient.update", type, opts);
    checkObject("KubeClient.update", "obj", obj);
    checkSubresource("KubeClient.update", opts.subresource);
    const name = obj.metadata?.name;
    if (!name) {
      throw new TypeError(
        `Cannot update ${type.resource}: metadata.name is not set`,
      );
    }
    const ns = opts.namespace ?? obj.metadata.namespace;
    const path = this.#objectPath(type, name, ns, opts.subresource);
    return await this.request<T>("PUT", path, {
      ...opts,
      query: writeQuery(opts),
      body: bodyOf(type, obj, opts.subresource),
    });
  }

  /**
   * Patch an object (PATCH) with a merge, JSON, strategic-merge or
   * server-side-apply patch.
   * @typeParam T the object type
   * @param type the resource type
   * @param name the object name
   * @param patch the patch document (an array of operations for `json`)
   * @param opts patchType, namespace, fieldManager, force, dryRun, signal, timeout
   * @returns the patched object
   * @throws {StatusError} e.g. 422 Invalid, 404 NotFound
   */
  async patch<T extends KubeObject>(
    type: ResourceType<T>,
    name: string,
    patch: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    checkVerb("KubeClient.patch", type, opts, { value: name });
    if (opts === undefined) {
      throw new TypeError(
        `KubeClient.patch: options must be an object with a patchType, got undefined`,
      );
    }
    if (typeof patch !== "object" || patch === null) {
      throw new TypeError(
        `KubeClient.patch: patch must be an object or an array, got ${
          show(patch)
        }`,
      );
    }
    const contentType = Object.hasOwn(PATCH_CONTENT_TYPES, opts.patchType)
      ? PATCH_CONTENT_TYPES[opts.patchType]
      : undefined;
    if (!contentType) {
      throw new TypeError(
        `KubeClient.patch: options.patchType must be one of ${
          Object.keys(PATCH_CONTENT_TYPES).map((k) => `"${k}"`).join(", ")
        }, got ${show(opts.patchType)}`,
      );
    }
    checkSubresource("KubeClient.patch", opts.subresource);
    const fieldManager = opts.fieldManager ??
      (opts.patchType === "apply" ? "kubecache" : undefined);
    const query = writeQuery({ ...opts, fieldManager });
    if (opts.force !== undefined) query.set("force", String(opts.force));
    const path = this.#objectPath(
      type,
      name,
      opts.namespace,
      opts.subresource,
    );
    return await this.request<T>("PATCH", path, {
      ...opts,
      query,
      body: patch,
      contentType,
    });
  }

  /**
   * Delete an object. The server answers with a Status, or with the object
   * when deletion is graceful or blocked by finalizers.
   * @typeParam T the object type
   * @param type the resource type
   * @param name the object name
   * @param opts namespace, propagationPolicy, gracePeriodSeconds, preconditions, dryRun, signal, timeout
   * @returns the server's Status or the object
   * @throws {StatusError} e.g. 404 NotFound, 409 Conflict on a failed precondition
   */
  async delete<T extends KubeObject>(
    type: ResourceType<T>,
    name: string,
    opts: DeleteOptions = {},
  ): Promise<T | Status> {
    checkVerb("KubeClient.delete", type, opts, { value: name });
    const path = this.#objectPath(type, name, opts.namespace);
    const { propagationPolicy, gracePeriodSeconds, preconditions, dryRun } =
      opts;
    const hasBody = propagationPolicy !== undefined ||
      gracePeriodSeconds !== undefined || preconditions !== undefined ||
      dryRun;
    return await this.request<T | Status>("DELETE", path, {
      ...opts,
      body: hasBody
        ? {
          apiVersion: "v1",
          kind: "DeleteOptions",
          propagationPolicy,
          gracePeriodSeconds,
          preconditions,
          dryRun: dryRun ? ["All"] : undefined,
        }
        : undefined,
    });
  }

  /**
   * Make one JSON request to a path of the server (e.g. discovery's
   * `/apis`) and decode the answer.
   * @typeParam R the decoded body type
   * @param method HTTP method
   * @param path absolute path, e.g. `"/api/v1"`
   * @param opts query, body, content type, signal, timeout
   * @returns the decoded body
   * @throws {StatusError} for a non-2xx answer
   * @throws {SyntaxError} when a 2xx body is not JSON
   * @throws {RequestTimeoutError} when headers or the next body chunk take longer than the timeout
   */
  async request<R>(
    method: string,
    path: string,
    opts: RawRequestOptions = {},
  ): Promise<R> {
    const maxDepth = this.#maxJsonDepth;
    return await this.#transport.receive(
      method,
      path,
      opts,
      (body, what, onChunk) => readJson(body, what, onChunk, maxDepth),
    ) as R;
  }

  /**
   * Tell `observer` of every request this client sends, once its response
   * headers came or it failed (client-go's `metrics.Register` adapters,
   * per client): the Manager of `@kubecache/core/controller` turns them
   * into `rest_client_*` metrics. A throwing observer is ignored.
   * @param observer called with each {@link RequestObservation}
   * @returns a function that removes the observer
   * @throws {TypeError} when `observer` is not a function
   */
  observeRequests(observer: (r: RequestObservation) => void): () => void {
    if (typeof observer !== "function") {
      throw new TypeError(
        `KubeClient.observeRequests: observer must be a function, got ${
          show(observer)
        }`,
      );
    }
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #observe(method: string, path: string, code: string, started: number) {
    if (this.#observers.size === 0) return;
    const r: RequestObservation = {
      method,
      host: new URL(this.config.server).host,
      path,
      code,
      durationMs: this.#clock.now() - started,
    };
    for (const o of this.#observers) {
      try {
        o(r);
      } catch {
        // an observer must not break a request
      }
    }
  }
  /** Release the HTTP client(s); later calls throw. Idempotent. */
  close(): void {
    this.#transport.close();
  }

  /** Same as {@link KubeClient.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }

  // ---- internals ----

  #namespace(type: ResourceType, ns: string | undefined): string | undefined {
    if (!type.namespaced) return undefined;
    return ns || this.config.namespace;
  }

  #collectionPath(type: ResourceType, ns: string | undefined): string {
    const base = type.group === ""
      ? `/api/${type.version}`
      : `/apis/${type.group}/${type.version}`;
    const nsPart = type.namespaced && ns
      ? `/namespaces/${encodeURIComponent(ns)}`
      : "";
    return `${base}${nsPart}/${type.resource}`;
  }

  #objectPath(
    type: ResourceType,
    name: string,
    ns: string | undefined,
    subresource?: string,
  ) {
    if (!name) {
      throw new TypeError(
        `Cannot address a ${type.kind} without a name: got "${name}"`,
      );
    }
    const path = this.#collectionPath(type, this.#namespace(type, ns));
    const sub = subresource ? `/${subresource}` : "";
    return `${path}/${encodeURIComponent(name)}${sub}`;
  }
}

function listQuery(opts: ListOptions, watch: boolean): URLSearchParams {
  const q = new URLSearchParams();
  if (watch) q.set("watch", "true");
  for (const key of LIST_PARAMS) {
    const v = opts[key];
    if (v === undefined || v === "") continue;
    q.set(key, String(v));
  }
  return q;
}

function writeQuery(
  opts: { dryRun?: boolean; fieldManager?: string },
): URLSearchParams {
  const q = new URLSearchParams();
  if (opts.dryRun) q.set("dryRun", "All");
  if (opts.fieldManager) q.set("fieldManager", opts.fieldManager);
  return q;
}

/**
 * The arguments every verb shares, checked at the call: `type` a
 * ResourceType, `opts` an options object whose `namespace` is a string and
 * `signal` an AbortSignal. `name`, when the verb takes one, a non-empty
 * string.
 */
function checkVerb(
  call: string,
  type: unknown,
  opts: unknown,
  name?: { value: unknown },
): void {
  checkResourceType(call, "type", type);
  if (name) checkString(call, "name", name.value);
  checkOptions(call, "options", opts);
  const o = (opts ?? {}) as CallOptions & { namespace?: unknown };
  checkOptionalString(call, "options.namespace", o.namespace);
  if (o.signal !== undefined) checkSignal(call, "options.signal", o.signal);
}

/**
 * `options.subresource`, when given, is a subresource's name: letters only
 * (`status`, `scale`, `binding`), so it cannot reach another path.
 */
function checkSubresource(call: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "string" || !/^[A-Za-z]+$/.test(value)) {
    throw new TypeError(
      `${call}: options.subresource must be a subresource name such as "status" or "scale" (letters only), got ${
        show(value)
      }`,
    );
  }
}

/**
 * The selectors of a list or watch are strings, as listWatch's filters
 * are: an object would be sent as "[object Object]" and an array joined
 * with commas.
 */
function checkSelectors(call: string, opts: ListCallOptions): void {
  checkOptionalString(call, "options.labelSelector", opts.labelSelector);
  checkOptionalString(call, "options.fieldSelector", opts.fieldSelector);
  checkOptionalString(call, "options.shardSelector", opts.shardSelector);
}

/**
 * The body of a write: the object with its apiVersion and kind, except
 * through a subresource of another kind (scale, binding, eviction), whose
 * body the caller types.
 */
function bodyOf<T extends KubeObject>(
  type: ResourceType<T>,
  obj: T,
  subresource: string | undefined,
): T {
  return subresource && subresource !== "status"
    ? obj
    : withTypeMeta(type, obj);
}

/** Fill in apiVersion and kind when the caller left them out. */
function withTypeMeta<T extends KubeObject>(type: ResourceType<T>, obj: T): T {
  if (obj.apiVersion && obj.kind) return obj;
  return { apiVersion: apiVersionOf(type), kind: type.kind, ...obj };
}

/**
 * Give each item the `kind` and `apiVersion` of its resource type: a list's
 * items come without them from the API server (only the list has TypeMeta),
 * while watch events carry them, and a cache holding both shapes surprises
 * every reader. Fields are set on the decoded objects, never copied; a
 * value the server did send is kept (client-go's dynamic client does the
 * same for `UnstructuredList` items).
 */
function setTypeMeta<T extends KubeObject>(
  type: ResourceType<T>,
  list: ObjectList<T>,
): ObjectList<T> {
  const kind = type.kind;
  const apiVersion = apiVersionOf(type);
  const items = list.items as KubeObject[];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null || typeof item !== "object") continue;
    if (item.kind === undefined) item.kind = kind;
    if (item.apiVersion === undefined) item.apiVersion = apiVersion;
  }
  return list;
}

/**
 * Vet a decoded list: a failure Status is an error (client-go `Result.Into`),
 * and a missing or null `items` (Go's nil slice) is an empty list.
 */
function checkList<T>(list: ObjectList<T>, path: string): ObjectList<T> {
  const value = list as unknown as Record<string, unknown> | null;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(
      `Cannot read the list from GET ${path}: expected an object, got ${
        Array.isArray(value) ? "an array" : String(value)
      }`,
    );
  }
  if (value.kind === "Status" && value.status === "Failure") {
    throw StatusError.fromStatus(value as unknown as Status);
  }
  if (value.items === undefined || value.items === null) list.items = [];
  else if (!Array.isArray(value.items)) {
    throw new TypeError(
      `Cannot read the list from GET ${path}: items is not an array: ${typeof value
        .items}`,
    );
  }
  if (value.metadata === undefined || value.metadata === null) {
    list.metadata = {};
  }
  return list;
}
