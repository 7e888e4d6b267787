/**
 * Typed resources for every kind: a generator of TypeScript modules from a
 * cluster's OpenAPI v3 documents, a saved document, or
 * CustomResourceDefinition manifests. Each module holds the interfaces of
 * one group/version's kinds and a `ResourceType` descriptor per resource,
 * so informers, listers and `KubeClient` calls on custom resources are
 * typed. The command line runs it as `cli.ts gen`.
 *
 * @example Types for a CRD, written as files would be
 * ```ts
 * import { generateFromCrds } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const modules = generateFromCrds([{
 *   apiVersion: "apiextensions.k8s.io/v1",
 *   kind: "CustomResourceDefinition",
 *   metadata: { name: "widgets.example.com" },
 *   spec: {
 *     group: "example.com",
 *     scope: "Namespaced",
 *     names: { plural: "widgets", kind: "Widget", shortNames: ["wd"] },
 *     versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
 *   },
 * }]);
 * assert.deepEqual([...modules.keys()], ["example.com/v1.ts"]);
 * assert.match(modules.get("example.com/v1.ts")!, /shortNames: \["wd"\]/);
 * ```
 *
 * @module
 */

export * from "./openapi.ts";
export * from "./crd.ts";
