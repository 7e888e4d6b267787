/**
 * A tiny Kubernetes REST/watch client over the global `fetch`: kubeconfig,
 * auth, CRUD, streaming watch, resource type descriptors.
 *
 * @module
 */

export * from "./resources.ts";
export * from "./list_watch.ts";
export * from "./rest.ts";
export * from "./watch.ts";
export * from "./config.ts";
export * from "./auth.ts";
export * from "./transport.ts";
export * from "./discovery.ts";
export * from "./types.ts";
