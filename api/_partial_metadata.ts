/**
 * The metadata-only view of an object, for servers that ignore
 * `Accept: ...;as=PartialObjectMetadata` (older servers, some aggregated
 * APIs) and answer a metadata-only list or watch with full objects.
 * Private to api/.
 *
 * @module
 */

import type { KubeObject, PartialObjectMetadata } from "./object.ts";

/**
 * `obj` as a PartialObjectMetadata: itself when it already is one, else a
 * new object with only `apiVersion: meta.k8s.io/v1`, `kind:
 * PartialObjectMetadata` and its `metadata` (the fallback the client-go
 * metadata client documents: a server without the conversion sends full
 * objects, whose metadata is what was asked for).
 */
export function toPartialObjectMetadata(obj: unknown): PartialObjectMetadata {
  const o = obj as KubeObject;
  if (o?.kind === "PartialObjectMetadata") return o as PartialObjectMetadata;
  if (o === null || typeof o !== "object") return o as PartialObjectMetadata;
  return {
    apiVersion: "meta.k8s.io/v1",
    kind: "PartialObjectMetadata",
    metadata: o.metadata,
  };
}
