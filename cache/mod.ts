/**
 * The informer machinery of client-go's `tools/cache`: stores, indexers,
 * queues, the Reflector and shared informers. Most programs need only
 * {@link SharedInformerFactory} (one informer per resource type, shared),
 * its informers' event handlers and its listers, which read the cache
 * instead of the server. The factory takes any client with `list` and
 * `watch` (a `KubeClient` fits); a lone informer takes a `ListerWatcher`.
 *
 * @example Cache config maps and read them through a lister
 * ```ts
 * import { SharedInformerFactory } from "@kubecache/core/cache";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * await using factory = new SharedInformerFactory(client);
 * const added: string[] = [];
 * factory.informerFor(ConfigMaps).addEventHandler({
 *   onAdd: (cm) => void added.push(cm.metadata.name!),
 * });
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal);
 * assert.deepEqual(added, ["a"]);
 * assert.equal(factory.lister(ConfigMaps).namespaced("default").list().length, 1);
 * stop.abort();
 * ```
 *
 * @module
 */

// The API vocabulary the cache consumes (api/), shared with client/.
export * from "../api/object.ts";
export * from "../api/clock.ts";
export * from "../api/readonly.ts";
export * from "../api/callback.ts";
export * from "../api/listwatch.ts";
export * from "../api/resource_client.ts";
export {
  newShardMatcher,
  parseShardSelector,
  type ShardField,
  shardHash,
  type ShardMatcher,
  shardRange,
  type ShardRangeRequirement,
  shardSelector,
  ShardSelectorError,
} from "../api/shard_selector.ts";
export type { ResourceType } from "../api/resources.ts";
// The cache machinery.
export * from "./keys.ts";
export * from "./labels.ts";
export * from "./index.ts";
export * from "./thread_safe_store.ts";
export * from "./store.ts";
export * from "./fifo.ts";
export * from "./delta_fifo.ts";
export * from "./heap.ts";
export * from "./reflector.ts";
export * from "./mutation_detector.ts";
export * from "./mutation_cache.ts";
export * from "./listers.ts";
export * from "./undelta_store.ts";
export * from "./expiration_cache.ts";
export * from "./event_handler.ts";
export * from "./controller.ts";
export * from "./shared_informer.ts";
export * from "./factory.ts";
export * from "./cache_not_synced_error.ts";
export * from "./transform.ts";
