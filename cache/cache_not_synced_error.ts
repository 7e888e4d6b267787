/**
 * {@link CacheNotSyncedError}: a read of a cache that has not listed yet.
 *
 * @module
 */

/**
 * Thrown by a lister of {@link SharedInformerFactory.lister} read before
 * its informer has synced its initial list (or after it stopped on a fatal
 * error): the cache would answer "absent" for objects that exist, and a
 * reconciler would take them for deleted. Wait first:
 * `await factory.syncedLister(type)`, `factory.waitForCacheSync(signal)`,
 * or in a reconcile `await ctx.cache(type)`. controller-runtime's cache
 * blocks such a read instead; a synchronous lister cannot.
 *
 * @example A read before the first list throws
 * ```ts
 * import { CacheNotSyncedError, ConfigMaps, KubeClient, KubeConfig, SharedInformerFactory } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * await using factory = new SharedInformerFactory(client);
 * const configMaps = factory.lister(ConfigMaps);
 * assert.throws(() => configMaps.namespaced("default").get("app"), CacheNotSyncedError);
 * ```
 */
export class CacheNotSyncedError extends Error {
  /** What the cache holds, as the informer names it ("configmaps in team-a"). */
  readonly cache: string;

  /**
   * Make the error.
   * @param cache what the cache holds ("configmaps in team-a (app=web)")
   * @param why why it has not synced, when known (the last list error)
   */
  constructor(cache: string, why?: string) {
    super(
      `the cache of ${cache} has not synced${
        why ? ` (${why})` : ""
      }: wait for it first (factory.syncedLister(type), factory.waitForCacheSync(signal), or ctx.cache(type) in a reconcile)`,
    );
    this.name = "CacheNotSyncedError";
    this.cache = cache;
  }
}
