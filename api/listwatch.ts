/**
 * The list/watch contract between a source of objects (the apiserver through
 * `KubeClient`, or a fake) and the Reflector: {@link ListerWatcher}, its
 * options and events. Mirrors client-go `tools/cache/listwatch.go` and
 * apimachinery's `metav1.ListOptions` and `watch.Event`. Part of the API
 * vocabulary, so cache/ and client/ share it without importing each other.
 * The code that adapts a client to it, `listWatch`, is in
 * `resource_client.ts`.
 *
 * @module
 */

import type { KubeObject, Status } from "./object.ts";

/**
 * Query options of a list or watch request (apimachinery `metav1.ListOptions`),
 * sent as URL query parameters of the same names.
 *
 * @example A paged list at the newest resourceVersion
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig, type ListOptions } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * for (const name of ["a", "b", "c"]) server.create(ConfigMaps, { metadata: { name, namespace: "default" } });
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const opts: ListOptions = { resourceVersion: "", limit: 2 };
 * const first = await client.list(ConfigMaps, { namespace: "default", ...opts });
 * assert.equal(first.items.length, 2);
 * const rest = await client.list(ConfigMaps, { namespace: "default", ...opts, continue: first.metadata.continue });
 * assert.deepEqual(rest.items.map((cm) => cm.metadata.name), ["c"]);
 * ```
 */
export interface ListOptions {
  /**
   * Resource version: unset (most recent, quorum read), `"0"` (any, served
   * from the watch cache) or an exact version; for a watch, where it starts.
   */
  resourceVersion?: string;
  /** How `resourceVersion` applies: `"NotOlderThan"` or `"Exact"`. */
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  /** Page size of a list; the server returns a `continue` token when more remain. */
  limit?: number;
  /** Continue token of the previous page. */
  continue?: string;
  /** Label selector, e.g. `"app=web,tier!=db"`. */
  labelSelector?: string;
  /** Field selector, e.g. `"metadata.name=foo"`. */
  fieldSelector?: string;
  /** Server-side timeout of a watch, in seconds. */
  timeoutSeconds?: number;
  /** Ask the server for BOOKMARK events on a watch. */
  allowWatchBookmarks?: boolean;
  /** Watch-list: stream the current state as ADDED events before changes. */
  sendInitialEvents?: boolean;
  /**
   * Server-side sharded list and watch (kube-apiserver 1.36+ with the
   * `ShardedListAndWatch` feature gate): only the objects whose 64-bit
   * FNV-1a hash of a field is in one of the ranges, e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`
   * (build it with `shardRange` and `shardSelector`). A server that applied
   * it echoes it in the list's `metadata.shardInfo`; an older server ignores
   * it and sends everything. `KubeClient` sends it as given; `listWatch`,
   * informers and the Reflector also filter what the server did not.
   */
  shardSelector?: string;
  /**
   * Of a list, and not sent to the server: called at most once with the
   * list's metadata (`resourceVersion`, `continue`) as soon as the response
   * has delivered it, before the items are decoded (the API server writes a
   * list's metadata before its items). The Reflector's pager requests the
   * next page from here, so that page travels while this one is still
   * being read and decoded. It rides in the options so that a wrapper
   * passing them on keeps it. Optional to honour: a ListerWatcher that
   * cannot tell the metadata early ignores it (the Reflector then pages one
   * request at a time). Not called when the metadata comes after the items,
   * or the list fails before it arrives.
   */
  onListMeta?: (metadata: ListMeta) => void;
}

/**
 * A list response (apimachinery `metav1.List` shape): items plus list
 * metadata carrying the resourceVersion and the continue token of a page.
 *
 * @example What a list returns
 * ```ts
 * import type { ConfigMap, ObjectList } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const page: ObjectList<ConfigMap> = {
 *   metadata: { resourceVersion: "42", continue: "token", remainingItemCount: 1 },
 *   items: [{ metadata: { name: "a", namespace: "default" } }],
 * };
 * assert.equal(page.metadata.remainingItemCount! + page.items.length, 2);
 * ```
 */
export interface ObjectList<T> {
  /** API version of the list, e.g. `"v1"`. */
  apiVersion?: string;
  /** Kind of the list, e.g. `"PodList"`. */
  kind?: string;
  /** List metadata. */
  metadata: {
    /** Resource version the list is consistent at. */
    resourceVersion?: string;
    /** Token for the next page; absent or empty on the last page. */
    continue?: string;
    /** How many items remain after this page, when the server knows. */
    remainingItemCount?: number;
    /**
     * Set by a server that applied the request's `shardSelector`: the
     * selector, as the server writes it (apimachinery `ShardInfo`).
     */
    shardInfo?: { selector: string };
  };
  /** The objects of this page. */
  items: T[];
}

/**
 * Type of a watch event (apimachinery `watch.EventType`).
 *
 * @example Count events by type
 * ```ts
 * import type { KubeObject, WatchEvent, WatchEventType } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const events: WatchEvent<KubeObject>[] = [
 *   { type: "ADDED", object: { metadata: { name: "a" } } },
 *   { type: "MODIFIED", object: { metadata: { name: "a" } } },
 *   { type: "ADDED", object: { metadata: { name: "b" } } },
 * ];
 * const counts = new Map<WatchEventType, number>();
 * for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
 * assert.equal(counts.get("ADDED"), 2);
 * ```
 */
export type WatchEventType =
  | "ADDED"
  | "MODIFIED"
  | "DELETED"
  | "BOOKMARK"
  | "ERROR";

/**
 * One event of a watch stream (apimachinery `watch.Event`). A BOOKMARK
 * carries an object with only kind, apiVersion and
 * `metadata.resourceVersion` (and, for the end of a watch-list's initial
 * events, the annotation `k8s.io/initial-events-end: "true"`); an ERROR
 * carries the server's {@link Status}.
 *
 * @example Tell an ERROR from an object event
 * ```ts
 * import type { KubeObject, WatchEvent } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * function describe(event: WatchEvent<KubeObject>): string {
 *   if (event.type === "ERROR") return `error ${event.object.code}`; // a Status
 *   return `${event.type} ${event.object.metadata.name}`;
 * }
 * assert.equal(describe({ type: "ADDED", object: { metadata: { name: "a" } } }), "ADDED a");
 * assert.equal(describe({ type: "ERROR", object: { code: 410, reason: "Expired" } }), "error 410");
 * ```
 */
export type WatchEvent<T> =
  | { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T }
  | { type: "ERROR"; object: Status };

/**
 * An iterator of watch events that can also hand over, in one call, all the
 * events decoded from one chunk of the stream (the iterator `decodeWatch`
 * and so `KubeClient.watch` return has it). The Reflector uses it when
 * present, so a chunk costs one promise instead of one per event; any other
 * consumer iterates events one by one as usual. A wrapper that re-yields
 * events should forward it (see {@link hasNextBatch}) or the gain is lost.
 *
 * `nextBatch()` resolves the events not yet taken, in stream order: the rest
 * of the current chunk, else the next chunk's (never an empty array); it ends
 * and fails where `next()` would, after the events before the failure.
 * Calls must not overlap with each other or with `next()`.
 *
 * @typeParam T the object type of the events
 *
 * @example Take a decoded chunk's events at once
 * ```ts
 * import type { KubeObject } from "@kubecache/core";
 * import { type BatchWatchIterator, decodeWatch } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const body = new Response(
 *   '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"ADDED","object":{"metadata":{"name":"b"}}}\n',
 * ).body!;
 * const events: BatchWatchIterator<KubeObject> = decodeWatch(body);
 * const first = await events.nextBatch();
 * assert.deepEqual(first.done ? [] : first.value.map((e) => e.type), ["ADDED", "ADDED"]); // one chunk, two events
 * assert.equal((await events.nextBatch()).done, true);
 * ```
 */
export interface BatchWatchIterator<T> extends AsyncIterator<WatchEvent<T>> {
  /** The events not yet taken up to the end of the current decoded chunk (at least one), or done. */
  nextBatch(): Promise<IteratorResult<WatchEvent<T>[], void>>;
}

/**
 * Whether an iterator of watch events has {@link BatchWatchIterator}'s
 * `nextBatch` (a structural test: cache/ cannot import the decoder).
 *
 * @example
 * ```ts
 * import { hasNextBatch } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const plain = (async function* () {})();
 * assert.equal(hasNextBatch(plain), false);
 * const batched = Object.assign(plain, {
 *   nextBatch: () => Promise.resolve({ done: true as const, value: undefined }),
 * });
 * assert.equal(hasNextBatch(batched), true);
 * ```
 *
 * @typeParam T the object type of the events
 * @param it an iterator of watch events
 * @returns true when `it.nextBatch` is a function
 */
export function hasNextBatch<T>(
  it: AsyncIterator<WatchEvent<T>>,
): it is BatchWatchIterator<T> {
  return typeof (it as Partial<BatchWatchIterator<T>>).nextBatch ===
    "function";
}

/**
 * The metadata of a list or of one page of it.
 *
 * @example A page's metadata
 * ```ts
 * import type { ListMeta } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const meta: ListMeta = { resourceVersion: "42", continue: "eyJ2Ijo...", remainingItemCount: 500 };
 * assert.equal(meta.continue !== undefined, true); // more pages follow
 * ```
 */
export type ListMeta = ObjectList<unknown>["metadata"];

/**
 * The apiVersion and kind a Reflector expects every watched object to have (client-go's expected GVK).
 *
 * @example Skip objects of another kind
 * ```ts
 * import type { ExpectedType } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const expected: ExpectedType = { apiVersion: "apps/v1", kind: "Deployment" };
 * const fits = (o: { apiVersion?: string; kind?: string }) =>
 *   (o.apiVersion ?? expected.apiVersion) === expected.apiVersion && (o.kind ?? expected.kind) === expected.kind;
 * assert.equal(fits({ apiVersion: "apps/v1", kind: "Deployment" }), true);
 * assert.equal(fits({ apiVersion: "v1", kind: "Pod" }), false);
 * ```
 */
export interface ExpectedType {
  /** e.g. `"apps/v1"`, `"v1"`. */
  apiVersion: string;
  /** e.g. `"Deployment"`. */
  kind: string;
}

/**
 * Lists and watches one kind of object (client-go `cache.ListerWatcher`).
 * Both calls make one attempt and throw on failure (typically a
 * `StatusError`); retrying is the Reflector's job.
 *
 * @typeParam T the object type listed and watched
 *
 * @example A ListerWatcher of your own, in memory
 * ```ts
 * import { type KubeObject, type ListerWatcher, newSharedIndexInformer, waitForCacheSync } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const fixed: ListerWatcher<KubeObject> = {
 *   list: () => Promise.resolve({ metadata: { resourceVersion: "1" }, items: [{ metadata: { name: "a" } }] }),
 *   // A watch that never sends anything, and ends when the informer stops.
 *   watch: (_opts, signal) =>
 *     Promise.resolve((async function* () {
 *       await new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
 *     })()),
 * };
 * const informer = newSharedIndexInformer(fixed);
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * assert.equal(await waitForCacheSync(stop.signal, informer.hasSynced), true);
 * assert.deepEqual(informer.getStore().listKeys(), ["a"]);
 * stop.abort();
 * await running;
 * ```
 */
export interface ListerWatcher<T extends KubeObject = KubeObject> {
  /**
   * What is listed and watched, for logs: `"pods"`, `"configmaps in
   * team-a"`, `"pods (app=web)"`. The Reflector's default name.
   */
  readonly description?: string;
  /**
   * The apiVersion and kind of the objects (client-go's expected GVK): the
   * Reflector skips a watched object that names another.
   */
  readonly expectedType?: ExpectedType;
  /**
   * List objects (one page when `opts.limit` is set). A wrapper that
   * forwards `opts` (as `{ ...opts }` or as is) keeps its
   * {@link ListOptions.onListMeta}, which lets the Reflector request the
   * next page early.
   */
  list(
    opts: ListOptions,
    signal?: AbortSignal,
  ): Promise<ObjectList<T>>;
  /**
   * Start a watch. The returned iterable yields events until the server ends
   * the stream (it then returns) or the connection breaks (it then throws);
   * aborting `signal` or leaving the loop early closes the connection.
   */
  watch(
    opts: ListOptions,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<WatchEvent<T>>>;
}
