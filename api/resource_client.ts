/**
 * {@link ResourceClient}, what a list/watch needs of a client (`KubeClient`
 * fits), and the code that drives one as a {@link ListerWatcher}:
 * {@link listWatch} and {@link metadataListWatch} (client-go
 * `NewFilteredListWatchFromClient` and `metadatainformer`). It sits in the
 * API vocabulary, beside the contract in `listwatch.ts`, because both sides
 * use it: the `SharedInformerFactory` (cache/) builds its ListerWatchers
 * with it, and `KubeClient` (client/) is the client it drives; neither side
 * imports the other.
 *
 * @module
 */

import {
  type BatchWatchIterator,
  hasNextBatch,
  type ListerWatcher,
  type ListOptions,
  type ObjectList,
  type WatchEvent,
} from "./listwatch.ts";
import type { KubeObject, PartialObjectMetadata } from "./object.ts";
import type { ResourceType } from "./resources.ts";
import { toPartialObjectMetadata } from "./_partial_metadata.ts";
import { checkShardSelector } from "./shard_selector.ts";
import { shardFilteredListWatch } from "./shard_filter.ts";
import {
  checkFunction,
  checkMethods,
  checkOptionalString,
  checkOptions,
  checkResourceType,
} from "./validate.ts";

/**
 * Options of one list or watch call of a {@link ResourceClient}.
 *
 * @example What listWatch passes to a client
 * ```ts
 * import { ConfigMaps, listWatch, type ResourceClient, type ResourceRequestOptions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const seen: ResourceRequestOptions[] = [];
 * const client: ResourceClient = {
 *   list: (_type, opts) => {
 *     seen.push(opts ?? {});
 *     return Promise.resolve({ metadata: { resourceVersion: "1" }, items: [] });
 *   },
 *   watch: () => Promise.resolve((async function* () {})()),
 * };
 * await listWatch(client, ConfigMaps, { namespace: "team-a" }).list({ limit: 500 });
 * assert.equal(seen[0].namespace, "team-a");
 * assert.equal(seen[0].limit, 500);
 * ```
 */
export interface ResourceRequestOptions extends ListOptions {
  /** Namespace to list in; unset or `""` for all namespaces (or cluster-scoped types). */
  namespace?: string;
  /** Aborts the request (and closes a watch stream). */
  signal?: AbortSignal;
  /**
   * `Accept` header of the request; default `application/json`. A
   * metadata-only list or watch sets `application/json;as=...` (see
   * {@link metadataListWatch}).
   */
  accept?: string;
  /**
   * Of a list: applied to each item as it is decoded, before the whole
   * list is held (see {@link ListWatchOptions.transform}).
   */
  mapItem?: (item: KubeObject) => KubeObject;
}

/**
 * What {@link listWatch} needs of a client: `KubeClient` fits, and so does
 * any object with the same `list` and `watch` methods (a test double).
 *
 * @example A test double instead of a KubeClient
 * ```ts
 * import { ConfigMaps, listWatch, type ResourceClient } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const client: ResourceClient = {
 *   list: () => Promise.resolve({ metadata: { resourceVersion: "1" }, items: [] }),
 *   watch: () => Promise.resolve((async function* () {})()),
 * };
 * const lw = listWatch(client, ConfigMaps);
 * assert.deepEqual((await lw.list({})).items, []);
 * ```
 */
export interface ResourceClient {
  /** List objects of a type (one page when `opts.limit` is set). */
  list<T extends KubeObject>(
    type: ResourceType<T>,
    opts?: ResourceRequestOptions,
  ): Promise<ObjectList<T>>;
  /** Open a watch on a type. */
  watch<T extends KubeObject>(
    type: ResourceType<T>,
    opts?: ResourceRequestOptions,
  ): Promise<AsyncIterable<WatchEvent<T>>>;
}

/**
 * Filters applied to every list and watch of a {@link listWatch}.
 *
 * @example What a ListerWatcher is filtered by
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, listWatch, type ListWatchOptions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * const opts: ListWatchOptions = { namespace: "team-a", labelSelector: "app=web", fieldSelector: "metadata.name!=x" };
 * const lw = listWatch(client, ConfigMaps, opts);
 * assert.match(lw.description!, /^configmaps in team-a/);
 * ```
 */
export interface ListWatchOptions {
  /** Namespace to watch; unset or `""` for all namespaces. */
  namespace?: string;
  /** Label selector, e.g. `"app=web"`. */
  labelSelector?: string;
  /** Field selector, e.g. `"spec.nodeName=node-1"`. */
  fieldSelector?: string;
  /**
   * Shard selector (`shardRange(...)` terms joined by `||`): only the
   * objects whose hash of `metadata.uid` (or `metadata.namespace`) is in
   * the ranges. Sent to the server, which filters when it has the
   * `ShardedListAndWatch` gate (kube-apiserver 1.36+); what it did not
   * filter (no `shardInfo` on a list) is filtered here with the same hash,
   * so the objects are the same on any server version. A per-call
   * `shardSelector` (from a factory's `tweakListOptions`) is honoured the
   * same way when this is unset.
   */
  shardSelector?: string;
  /**
   * Applied to every listed item as it is decoded and to every watched
   * object, e.g. `stripManagedFields`. An informer's own `transform` runs
   * only once a whole list has been received (the Reflector hands complete
   * lists to the DeltaFIFO, as client-go's does), so for a large list the
   * untransformed objects all sit in memory at once; here each item is
   * transformed before the next is decoded, which keeps the peak near the
   * transformed size. Set it here instead of on the informer (the informer
   * would apply it a second time).
   */
  transform?: (obj: KubeObject) => KubeObject;
}

/**
 * Make a {@link ListerWatcher} for one resource type, optionally restricted
 * to a namespace and selectors (client-go `NewFilteredListWatchFromClient`).
 * The filters override whatever the Reflector passes for the same fields.
 * It carries a `description` for logs (`"configmaps in team-a (app=web)"`,
 * the Reflector's default name) and the `expectedType` (apiVersion and kind
 * of `type`) whose other objects the Reflector skips.
 *
 * @example List the labelled config maps of one namespace
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, listWatch } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * // A FakeApiServer stands in for a cluster; for a real one, build the
 * // client from `await KubeConfig.load()`.
 * await using server = await FakeApiServer.start();
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default", labels: { app: "web" } } });
 * server.create(ConfigMaps, { metadata: { name: "b", namespace: "default" } });
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 *
 * const lw = listWatch(client, ConfigMaps, { namespace: "default", labelSelector: "app=web" });
 * const page = await lw.list({ limit: 500 });
 * assert.deepEqual(page.items.map((cm) => cm.metadata.name), ["a"]);
 * ```
 * @throws {TypeError} when `client` has no `list` and `watch` methods, `type`
 *   is not a ResourceType (`"pods"` is not; `Pods` is) or a filter has the
 *   wrong type
 */
export function listWatch<T extends KubeObject>(
  client: ResourceClient,
  type: ResourceType<T>,
  filters: ListWatchOptions = {},
): ListerWatcher<T> {
  checkListWatchArgs("listWatch", client, type, filters);
  return filteredListWatch(client, type, filters);
}

/** The arguments of listWatch and metadataListWatch, checked at the call. */
function checkListWatchArgs(
  call: string,
  client: unknown,
  type: unknown,
  filters: ListWatchOptions,
): void {
  checkMethods(call, "client", client, "a KubeClient", ["list", "watch"]);
  checkResourceType(call, "type", type);
  checkOptions(call, "filters", filters);
  checkOptionalString(call, "filters.namespace", filters.namespace);
  checkOptionalString(call, "filters.labelSelector", filters.labelSelector);
  checkOptionalString(call, "filters.fieldSelector", filters.fieldSelector);
  checkShardSelector(call, "filters.shardSelector", filters.shardSelector);
  if (filters.transform !== undefined) {
    checkFunction(call, "filters.transform", filters.transform);
  }
}

/**
 * A ListerWatcher of `type` with `filters` and, if set, these Accept
 * headers; with a shard selector (fixed, or per call), filtered to the
 * shard whatever the server does.
 */
function filteredListWatch<T extends KubeObject>(
  client: ResourceClient,
  type: ResourceType<KubeObject>,
  filters: ListWatchOptions,
  accept?: { list: string; watch: string },
): ListerWatcher<T> {
  return shardFilteredListWatch(
    unshardedListWatch<T>(client, type, filters, accept),
    filters.shardSelector || undefined,
  );
}

function unshardedListWatch<T extends KubeObject>(
  client: ResourceClient,
  type: ResourceType<KubeObject>,
  filters: ListWatchOptions,
  accept?: { list: string; watch: string },
): ListerWatcher<T> {
  const withFilters = (
    opts: ListOptions,
    signal: AbortSignal | undefined,
    accept: string | undefined,
  ) => {
    const merged: ResourceRequestOptions = { ...opts, signal };
    if (filters.namespace) merged.namespace = filters.namespace;
    if (filters.labelSelector) merged.labelSelector = filters.labelSelector;
    if (filters.fieldSelector) merged.fieldSelector = filters.fieldSelector;
    if (filters.shardSelector) merged.shardSelector = filters.shardSelector;
    if (accept) merged.accept = accept;
    return merged;
  };
  const selectors = [filters.labelSelector, filters.fieldSelector].filter(
    Boolean,
  );
  const meta = accept !== undefined;
  const description = `${type.resource}${type.group ? `.${type.group}` : ""}${
    filters.namespace ? ` in ${filters.namespace}` : ""
  }${selectors.length > 0 ? ` (${selectors.join(", ")})` : ""}${
    meta ? " (metadata)" : ""
  }`;
  // What the Reflector accepts: a metadata-only answer is made of
  // PartialObjectMetadata, whatever the type.
  const expectedType = meta
    ? { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata" }
    : {
      apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
      kind: type.kind,
    };
  // The client reads only the type's path; with an Accept header the
  // answer's shape is the header's, hence the cast.
  const t = type as ResourceType<T>;
  const userTransform = filters.transform as ((obj: T) => T) | undefined;
  // A server that ignores the metadata-only Accept answers with full
  // objects: reduced to their metadata here rather than skipped by the
  // Reflector as an unexpected kind (which left the cache stale).
  const transform = !meta
    ? userTransform
    : userTransform
    ? (obj: T) => userTransform(toPartialObjectMetadata(obj) as unknown as T)
    : (obj: T) => toPartialObjectMetadata(obj) as unknown as T;
  if (!transform) {
    return {
      description,
      expectedType,
      list: (opts, signal) =>
        client.list(t, withFilters(opts, signal, accept?.list)),
      watch: (opts, signal) =>
        client.watch(t, withFilters(opts, signal, accept?.watch)),
    };
  }
  return {
    description,
    expectedType,
    list: (opts, signal) =>
      client.list(t, {
        ...withFilters(opts, signal, accept?.list),
        mapItem: transform as unknown as (item: KubeObject) => KubeObject,
      }),
    watch: async (opts, signal) =>
      transformEvents(
        await client.watch(t, withFilters(opts, signal, accept?.watch)),
        transform,
      ),
  };
}

/**
 * The events of `events`, with `transform` applied to each object (not to a
 * BOOKMARK or ERROR). A `nextBatch` of the source is forwarded (the
 * Reflector's one promise per chunk); either way a throwing `transform`
 * ends the iteration after the events before it, closing the source.
 */
function transformEvents<T extends KubeObject>(
  events: AsyncIterable<WatchEvent<T>>,
  transform: (obj: T) => T,
): AsyncIterable<WatchEvent<T>> {
  const it = new TransformedWatch(events[Symbol.asyncIterator](), transform);
  if (hasNextBatch(it.source)) return it;
  // Without a batch source, offer no nextBatch either.
  const plain: AsyncIterableIterator<WatchEvent<T>> = {
    next: () => it.next(),
    return: () => it.return(),
    [Symbol.asyncIterator]: () => plain,
  };
  return plain;
}

class TransformedWatch<T extends KubeObject>
  implements AsyncIterableIterator<WatchEvent<T>> {
  /** A transform's error, thrown once the events before it are out. */
  #failure: { error: unknown } | undefined;
  #done = false;

  constructor(
    readonly source: AsyncIterator<WatchEvent<T>>,
    readonly transform: (obj: T) => T,
  ) {}

  #map(ev: WatchEvent<T>): WatchEvent<T> {
    if (ev.type === "ERROR" || ev.type === "BOOKMARK") return ev;
    return { type: ev.type, object: this.transform(ev.object) };
  }

  async #fail(error: unknown): Promise<never> {
    this.#done = true;
    this.#failure = undefined;
    await this.source.return?.();
    throw error;
  }

  async next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.#done) return { done: true, value: undefined };
    const r = await this.source.next();
    if (r.done) return r;
    let value;
    try {
      value = this.#map(r.value);
    } catch (error) {
      return this.#fail(error);
    }
    return { done: false, value };
  }

  async nextBatch(): Promise<IteratorResult<WatchEvent<T>[], void>> {
    if (this.#failure) return this.#fail(this.#failure.error);
    if (this.#done) return { done: true, value: undefined };
    const r = await (this.source as BatchWatchIterator<T>).nextBatch();
    if (r.done) return r;
    const out: WatchEvent<T>[] = [];
    for (const ev of r.value) {
      try {
        out.push(this.#map(ev));
      } catch (error) {
        if (out.length === 0) return this.#fail(error);
        this.#failure = { error };
        break;
      }
    }
    return { done: false, value: out };
  }

  async return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#done = true;
    this.#failure = undefined;
    await this.source.return?.();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/**
 * `Accept` of a metadata-only list (client-go's metadata client asks the same).
 *
 * @example What a metadata-only list asks for
 * ```ts
 * import { METADATA_LIST_ACCEPT } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * const res = await fetch(`${server.url}/api/v1/namespaces`, { headers: { accept: METADATA_LIST_ACCEPT } });
 * const list = await res.json();
 * assert.equal(list.kind, "PartialObjectMetadataList");
 * assert.equal(list.items[0].kind, "PartialObjectMetadata");
 * ```
 */
export const METADATA_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/**
 * `Accept` of a metadata-only watch: each event's object is a PartialObjectMetadata.
 *
 * @example What a metadata-only watch asks for
 * ```ts
 * import { METADATA_WATCH_ACCEPT } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(METADATA_WATCH_ACCEPT, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
 * ```
 */
export const METADATA_WATCH_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/**
 * Make a {@link ListerWatcher} of the metadata of one resource type: the
 * same requests as {@link listWatch}, but the server answers with
 * {@link PartialObjectMetadata} objects (only kind, apiVersion and
 * `metadata`; lists with `Accept:` {@link METADATA_LIST_ACCEPT}, watches
 * with {@link METADATA_WATCH_ACCEPT}). An informer over it caches a fraction
 * of the bytes of full objects (client-go `metadatainformer`,
 * `NewFilteredMetadataInformer`; kube-rs `metadata_watcher`): use it when
 * handlers need names, labels, annotations or owners only. Combine it with
 * the `stripManagedFields` transform to drop managedFields as well. A
 * server that ignores the metadata-only `Accept` (older servers, some
 * aggregated APIs) answers with full objects: they are reduced to a
 * PartialObjectMetadata of their metadata as they are decoded, so the
 * cache stays current (the fallback of client-go's metadata client).
 *
 * @typeParam T the full object type (only its resource path is used)
 * @param client lists and watches (a `KubeClient`, or any {@link ResourceClient}
 *   that honours `accept`)
 * @param type the resource type whose metadata to list and watch
 * @param filters namespace and selectors of every list and watch
 * @returns a lister-watcher of {@link PartialObjectMetadata}
 *
 * @example Cache only the metadata of pods
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   KubeClient,
 *   KubeConfig,
 *   metadataListWatch,
 *   newSharedIndexInformer,
 *   Pods,
 * } from "@kubecache/core";
 *
 * // A stand-in apiserver answering metadata-only requests.
 * const item = {
 *   kind: "PartialObjectMetadata",
 *   apiVersion: "meta.k8s.io/v1",
 *   metadata: { name: "web-1", namespace: "default", resourceVersion: "5" },
 * };
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
 *   assert.match(req.headers.get("accept")!, /as=PartialObjectMetadata/);
 *   if (new URL(req.url).searchParams.has("watch")) return new Response(new ReadableStream());
 *   return Response.json({
 *     kind: "PartialObjectMetadataList",
 *     apiVersion: "meta.k8s.io/v1",
 *     metadata: { resourceVersion: "5" },
 *     items: [item],
 *   });
 * });
 * await using client = new KubeClient(
 *   KubeConfig.fromOptions({ server: `http://127.0.0.1:${server.addr.port}` }),
 * );
 * const informer = newSharedIndexInformer(metadataListWatch(client, Pods));
 * const added = Promise.withResolvers<string>();
 * informer.addEventHandler({ onAdd: (m) => added.resolve(m.kind) });
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * assert.equal(await added.promise, "PartialObjectMetadata");
 * assert.deepEqual(informer.getStore().listKeys(), ["default/web-1"]);
 * stop.abort();
 * await running;
 * await server.shutdown();
 * ```
 * @throws {TypeError} when `client` has no `list` and `watch` methods, `type`
 *   is not a ResourceType (`"pods"` is not; `Pods` is) or a filter has the
 *   wrong type
 */
export function metadataListWatch<T extends KubeObject>(
  client: ResourceClient,
  type: ResourceType<T>,
  filters: ListWatchOptions = {},
): ListerWatcher<PartialObjectMetadata> {
  checkListWatchArgs("metadataListWatch", client, type, filters);
  return filteredListWatch(client, type, filters, {
    list: METADATA_LIST_ACCEPT,
    watch: METADATA_WATCH_ACCEPT,
  });
}
