/**
 * kubecache: the informer machinery of Kubernetes client-go for Deno.
 * Re-exports `@kubecache/core/cache`, `@kubecache/core/client` and
 * `@kubecache/core/workqueue`.
 *
 * @module
 */

export * from "./cache/mod.ts";
export * from "./client/mod.ts";
export * from "./workqueue/mod.ts";
