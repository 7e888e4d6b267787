/**
 * A tiny Kubernetes REST/watch client over the global `fetch`: kubeconfig,
 * auth, CRUD, streaming watch, resource type descriptors.
 *
 * @module
 */

// The API vocabulary the client speaks (api/), shared with cache/.
export * from "../api/resources.ts";
export * from "../api/types.ts";
export * from "../api/errors.ts";
export * from "../api/listwatch.ts";
// The HTTP side.
export * from "./rest.ts";
export * from "./watch.ts";
export * from "./config.ts";
export * from "./auth.ts";
export * from "./transport.ts";
export * from "./discovery.ts";
export * from "./printers.ts";
