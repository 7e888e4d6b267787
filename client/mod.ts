/**
 * A small Kubernetes REST/watch client over the global `fetch` (a watch
 * reads an HTTP/1.1 socket of its own unless a proxy is in the way):
 * {@link KubeConfig} reads a kubeconfig (or in-cluster config, or options),
 * {@link KubeClient} gets, lists, watches and writes objects of any
 * {@link ResourceType}, throwing a {@link StatusError} for what the server
 * refuses. Also here: authentication (tokens, token files, exec plugins),
 * the incremental watch decoder and discovery.
 *
 * Most code needs only `KubeConfig`, `KubeClient` and a resource descriptor
 * such as `ConfigMaps`:
 *
 * @example Create and list config maps
 * ```ts
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core/client";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start(); // yours: await KubeConfig.load()
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * await client.create(ConfigMaps, {
 *   metadata: { name: "settings", namespace: "default" },
 *   data: { color: "blue" },
 * });
 * const list = await client.list(ConfigMaps, { namespace: "default" });
 * assert.deepEqual(list.items.map((cm) => cm.data?.color), ["blue"]);
 * ```
 *
 * @module
 */

// The API vocabulary the client speaks (api/), shared with cache/.
export * from "../api/resources.ts";
export * from "../api/types.ts";
export * from "../api/errors.ts";
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
// The HTTP side. The transport (Deno.HttpClient setup) is internal, and the
// kubectl column printers belong to the CLI (`@kubecache/core/cli`).
export * from "./rest.ts";
export * from "./watch.ts";
export * from "./config.ts";
export * from "./auth.ts";
export * from "./discovery.ts";
