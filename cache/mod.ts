/**
 * The informer machinery of client-go's `tools/cache`: stores, indexers,
 * queues, the Reflector and shared informers.
 *
 * @module
 */

// The API vocabulary the cache consumes (api/), shared with client/.
export * from "../api/object.ts";
export * from "../api/clock.ts";
export * from "../api/readonly.ts";
export * from "../api/listwatch.ts";
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
export * from "./transform.ts";
