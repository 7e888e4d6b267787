/**
 * The object shapes every part of kubecache shares: {@link KubeObject} (what
 * stores hold), {@link ObjectMeta} and the apiserver's {@link Status}.
 * Mirrors apimachinery's `metav1.Object`, `metav1.ObjectMeta` and
 * `metav1.Status`, reduced to the fields the cache machinery reads.
 *
 * @module
 */

/**
 * An owner reference of an object (apimachinery `metav1.OwnerReference`).
 *
 * @example Find an object's controller
 * ```ts
 * import type { OwnerReference } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const owners: OwnerReference[] = [
 *   { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-6d4b", uid: "u1", controller: true, blockOwnerDeletion: true },
 * ];
 * assert.equal(owners.find((o) => o.controller)?.name, "web-6d4b");
 * ```
 */
export interface OwnerReference {
  /** API version of the owner, e.g. `"apps/v1"`. */
  apiVersion: string;
  /** Kind of the owner, e.g. `"ReplicaSet"`. */
  kind: string;
  /** Name of the owner. */
  name: string;
  /** UID of the owner. */
  uid: string;
  /** Whether the owner is the managing controller. */
  controller?: boolean;
  /** Whether the owner cannot be deleted before this object. */
  blockOwnerDeletion?: boolean;
}

/**
 * Standard object metadata (apimachinery `metav1.ObjectMeta`). Only `name`
 * is needed by the key functions; every other field is optional and kept as
 * the server sent it.
 *
 * @example The metadata every object has
 * ```ts
 * import type { ObjectMeta } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const meta: ObjectMeta = {
 *   name: "web-1",
 *   namespace: "default",
 *   labels: { app: "web" },
 *   ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-6d4b", uid: "1", controller: true }],
 * };
 * assert.equal(meta.ownerReferences?.find((o) => o.controller)?.kind, "ReplicaSet");
 * ```
 */
export interface ObjectMeta {
  /** Object name, unique within its namespace (or cluster for cluster-scoped kinds). */
  name?: string;
  /** Prefix the server uses to generate `name` on create. */
  generateName?: string;
  /** Namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** Unique id assigned by the server; a recreated object gets a new one. */
  uid?: string;
  /** Opaque version string for optimistic concurrency and watches. */
  resourceVersion?: string;
  /** Sequence number of the desired state (spec changes). */
  generation?: number;
  /** RFC 3339 creation time. */
  creationTimestamp?: string;
  /** RFC 3339 time of a graceful deletion request. */
  deletionTimestamp?: string;
  /** Seconds allowed for graceful termination. */
  deletionGracePeriodSeconds?: number;
  /** Labels: identifying key/value pairs used by selectors. */
  labels?: Record<string, string>;
  /** Annotations: non-identifying key/value pairs. */
  annotations?: Record<string, string>;
  /** Objects this one depends on. */
  ownerReferences?: OwnerReference[];
  /** Finalizers that must be removed before deletion completes. */
  finalizers?: string[];
  /** Server-side-apply field ownership records (often the bulk of an object). */
  managedFields?: unknown[];
}

/**
 * Any Kubernetes object: what every kubecache store and informer holds
 * (apimachinery `metav1.Object` + `runtime.Object`). Extra fields (spec,
 * status, data, ...) are carried untouched.
 *
 * @example Define a typed object
 * ```ts
 * import type { KubeObject } from "@kubecache/core";
 * interface ConfigMap extends KubeObject {
 *   data?: Record<string, string>;
 * }
 * const cm: ConfigMap = { metadata: { name: "a", namespace: "default" } };
 * ```
 */
export interface KubeObject {
  /** `group/version` or `version` for the core group, e.g. `"v1"`. */
  apiVersion?: string;
  /** Kind, e.g. `"Pod"`. */
  kind?: string;
  /** Standard object metadata. */
  metadata: ObjectMeta;
  /** Any other field (spec, status, data, ...), kept as the server sent it. */
  [field: string]: unknown;
}

/**
 * An object's metadata alone, as the apiserver sends it for a metadata-only
 * list or watch (apimachinery `metav1.PartialObjectMetadata`, what
 * client-go's metadata informers cache): kind, apiVersion and the full
 * `metadata` (labels, annotations, owner references, managedFields...),
 * no spec or status. See `metadataListWatch`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PartialObjectMetadata } from "@kubecache/core";
 * const meta: PartialObjectMetadata = {
 *   apiVersion: "meta.k8s.io/v1",
 *   kind: "PartialObjectMetadata",
 *   metadata: { name: "web-1", namespace: "default", labels: { app: "web" } },
 * };
 * assert.equal(meta.metadata.labels?.app, "web");
 * ```
 */
export interface PartialObjectMetadata extends KubeObject {
  /** Always `"meta.k8s.io/v1"`. */
  apiVersion: "meta.k8s.io/v1";
  /** Always `"PartialObjectMetadata"`. */
  kind: "PartialObjectMetadata";
}

/**
 * One cause of a {@link Status} failure (apimachinery `metav1.StatusCause`).
 *
 * @example Which field the server refused
 * ```ts
 * import { StatusError, type StatusCause } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const cause: StatusCause = { reason: "FieldValueInvalid", message: "Invalid value", field: "metadata.name" };
 * const err = StatusError.fromStatus({ code: 422, reason: "Invalid", details: { causes: [cause] } });
 * assert.equal(err.details?.causes?.[0].field, "metadata.name");
 * ```
 */
export interface StatusCause {
  /** Machine-readable reason, e.g. `"FieldValueInvalid"` or `"ResourceVersionTooLarge"`. */
  reason?: string;
  /** Human-readable description. */
  message?: string;
  /** Field path the cause refers to. */
  field?: string;
}

/**
 * Extended data of a {@link Status} (apimachinery `metav1.StatusDetails`).
 *
 * @example What a Status is about
 * ```ts
 * import { StatusError, type StatusDetails } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const details: StatusDetails = { name: "web", kind: "deployments", group: "apps", retryAfterSeconds: 1 };
 * const err = StatusError.fromStatus({ code: 429, reason: "TooManyRequests", details });
 * assert.equal(err.retryAfterSeconds, 1);
 * ```
 */
export interface StatusDetails {
  /** Name of the object the status is about. */
  name?: string;
  /** Group of the object. */
  group?: string;
  /** Kind of the object (or resource, for some errors). */
  kind?: string;
  /** UID of the object. */
  uid?: string;
  /** Individual causes. */
  causes?: StatusCause[];
  /** Seconds the client should wait before retrying (429, 503, 504). */
  retryAfterSeconds?: number;
}

/**
 * The apiserver's result object for failures and some deletions
 * (apimachinery `metav1.Status`), e.g. a 410 `Expired` inside a watch ERROR
 * event.
 *
 * @example The failure the server answers with
 * ```ts
 * import { isNotFound, type Status, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const status: Status = {
 *   kind: "Status",
 *   apiVersion: "v1",
 *   status: "Failure",
 *   message: 'configmaps "x" not found',
 *   reason: "NotFound",
 *   details: { name: "x", kind: "configmaps" },
 *   code: 404,
 * };
 * assert.equal(isNotFound(new StatusError(status)), true);
 * ```
 */
export interface Status {
  /** Always `"Status"`. */
  kind?: "Status";
  /** Always `"v1"`. */
  apiVersion?: string;
  /** List metadata (usually empty). */
  metadata?: { resourceVersion?: string; continue?: string };
  /** `"Success"` or `"Failure"`. */
  status?: "Success" | "Failure" | string;
  /** Human-readable description. */
  message?: string;
  /** Machine-readable reason, e.g. `"NotFound"`, `"Expired"`, `"Conflict"`. */
  reason?: string;
  /** Extended data. */
  details?: StatusDetails;
  /** HTTP status code this status stands for. */
  code?: number;
}
