/**
 * Adapts a client and a resource type to the {@link ListerWatcher} the
 * Reflector consumes (client-go `cache.NewListWatchFromClient` /
 * `NewFilteredListWatchFromClient`).
 *
 * @module
 */

import type {
  ListerWatcher,
  ListOptions,
  ObjectList,
  WatchEvent,
} from "../cache/listwatch.ts";
import type { KubeObject } from "../cache/object.ts";
import type { ResourceType } from "./resources.ts";

/** Options of one list or watch call of a {@link ResourceClient}. */
export interface ResourceRequestOptions extends ListOptions {
  /** Namespace to list in; unset or `""` for all namespaces (or cluster-scoped types). */
  namespace?: string;
  /** Aborts the request (and closes a watch stream). */
  signal?: AbortSignal;
}

/**
 * What {@link listWatch} needs of a client: `KubeClient` fits, and so does
 * any object with the same `list` and `watch` methods (a test double).
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

/** Filters applied to every list and watch of a {@link listWatch}. */
export interface ListWatchOptions {
  /** Namespace to watch; unset or `""` for all namespaces. */
  namespace?: string;
  /** Label selector, e.g. `"app=web"`. */
  labelSelector?: string;
  /** Field selector, e.g. `"spec.nodeName=node-1"`. */
  fieldSelector?: string;
}

/**
 * Make a {@link ListerWatcher} for one resource type, optionally restricted
 * to a namespace and selectors (client-go `NewFilteredListWatchFromClient`).
 * The filters override whatever the Reflector passes for the same fields.
 *
 * @example
 * ```ts ignore
 * // needs a cluster: see README for the embedded FakeApiServer
 * const lw = listWatch(client, Pods, { namespace: "default", labelSelector: "app=web" });
 * const page = await lw.list({ limit: 500 });
 * ```
 */
export function listWatch<T extends KubeObject>(
  client: ResourceClient,
  type: ResourceType<T>,
  filters: ListWatchOptions = {},
): ListerWatcher<T> {
  const withFilters = (opts: ListOptions, signal?: AbortSignal) => {
    const merged: ResourceRequestOptions = { ...opts, signal };
    if (filters.namespace) merged.namespace = filters.namespace;
    if (filters.labelSelector) merged.labelSelector = filters.labelSelector;
    if (filters.fieldSelector) merged.fieldSelector = filters.fieldSelector;
    return merged;
  };
  return {
    list: (opts, signal) => client.list(type, withFilters(opts, signal)),
    watch: (opts, signal) => client.watch(type, withFilters(opts, signal)),
  };
}
