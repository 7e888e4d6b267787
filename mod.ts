/**
 * kubecache: the informer machinery of Kubernetes client-go for Deno.
 * Re-exports `@kubecache/core/cache` and `@kubecache/core/client`.
 *
 * @module
 */

export * from "./cache/mod.ts";
export * from "./client/mod.ts";
