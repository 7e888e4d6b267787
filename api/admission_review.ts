/**
 * The wire types of an admission webhook call (admission.k8s.io/v1
 * `AdmissionReview`): what kube-apiserver sends a validating or mutating
 * webhook and what the webhook answers. Part of the API vocabulary: the
 * controller runtime's webhook server answers them and `FakeApiServer`
 * sends them.
 *
 * @module
 */

import type { KubeObject, Status } from "./object.ts";

/**
 * A group, version and kind (apimachinery `metav1.GroupVersionKind`).
 *
 * @example The kind of a Deployment
 * ```ts
 * import type { GroupVersionKind } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const gvk: GroupVersionKind = { group: "apps", version: "v1", kind: "Deployment" };
 * assert.equal(`${gvk.group}/${gvk.version}`, "apps/v1");
 * ```
 */
export interface GroupVersionKind {
  /** API group; `""` for the core group. */
  group: string;
  /** API version, e.g. `"v1"`. */
  version: string;
  /** Kind, e.g. `"Pod"`. */
  kind: string;
}

/**
 * A group, version and resource (apimachinery `metav1.GroupVersionResource`).
 *
 * @example The resource of Deployments
 * ```ts
 * import type { GroupVersionResource } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const gvr: GroupVersionResource = { group: "apps", version: "v1", resource: "deployments" };
 * assert.equal(gvr.resource, "deployments");
 * ```
 */
export interface GroupVersionResource {
  /** API group; `""` for the core group. */
  group: string;
  /** API version, e.g. `"v1"`. */
  version: string;
  /** Plural resource name, e.g. `"pods"`. */
  resource: string;
}

/**
 * Who made the request being admitted (authentication/v1 `UserInfo`).
 *
 * @example An administrator
 * ```ts
 * import type { UserInfo } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const user: UserInfo = { username: "admin", groups: ["system:masters"] };
 * assert.ok(user.groups?.includes("system:masters"));
 * ```
 */
export interface UserInfo {
  /** The user's name. */
  username?: string;
  /** A unique value that identifies the user across time. */
  uid?: string;
  /** The groups the user belongs to. */
  groups?: string[];
  /** Other information the authenticator provided. */
  extra?: Record<string, string[]>;
}

/**
 * The operation being admitted (admission/v1 `Operation`).
 *
 * @example Validate only on update
 * ```ts
 * import type { AdmissionOperation } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const check = (op: AdmissionOperation) => op === "UPDATE";
 * assert.equal(check("CREATE"), false);
 * ```
 */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/**
 * What kube-apiserver asks a webhook to admit (admission/v1
 * `AdmissionRequest`). `object` is the object as it would be stored
 * (absent on DELETE), `oldObject` the stored one (UPDATE and DELETE).
 *
 * @example A create request
 * ```ts
 * import type { AdmissionRequest } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const req: AdmissionRequest = {
 *   uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
 *   kind: { group: "", version: "v1", kind: "ConfigMap" },
 *   resource: { group: "", version: "v1", resource: "configmaps" },
 *   name: "app",
 *   namespace: "default",
 *   operation: "CREATE",
 *   userInfo: { username: "admin" },
 *   object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app" } },
 * };
 * assert.equal(req.object?.metadata.name, "app");
 * ```
 */
export interface AdmissionRequest {
  /** Identifies this call; the response carries it back. */
  uid: string;
  /** The kind of `object` as sent to the webhook. */
  kind: GroupVersionKind;
  /** The resource being requested. */
  resource: GroupVersionResource;
  /** The subresource, e.g. `"status"` or `"scale"`; absent for the main resource. */
  subResource?: string;
  /** The kind of the original request (it differs when the API server converted it). */
  requestKind?: GroupVersionKind;
  /** The resource of the original request. */
  requestResource?: GroupVersionResource;
  /** The subresource of the original request. */
  requestSubResource?: string;
  /** The object's name (empty on a create with `generateName`). */
  name?: string;
  /** The object's namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** CREATE, UPDATE, DELETE or CONNECT. */
  operation: AdmissionOperation;
  /** Who made the request. */
  userInfo: UserInfo;
  /** The new object (CREATE, UPDATE); `null` or absent on DELETE. */
  object?: KubeObject | null;
  /** The existing object (UPDATE, DELETE). */
  oldObject?: KubeObject | null;
  /** Whether nothing will be persisted (`?dryRun=All`): a webhook with side effects must skip them. */
  dryRun?: boolean;
  /** The operation's options (`CreateOptions`, `UpdateOptions`, `DeleteOptions`). */
  options?: Record<string, unknown> | null;
}

/**
 * A webhook's answer (admission/v1 `AdmissionResponse`). `patch` is the
 * base64 of an RFC 6902 JSON patch (`patchType: "JSONPatch"`), from
 * mutating webhooks only; `status` says why a request was denied.
 *
 * @example A denial
 * ```ts
 * import type { AdmissionResponse } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const res: AdmissionResponse = {
 *   uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
 *   allowed: false,
 *   status: { code: 403, reason: "Forbidden", message: "replicas must be at most 10" },
 * };
 * assert.equal(res.status?.code, 403);
 * ```
 */
export interface AdmissionResponse {
  /** The request's `uid`. */
  uid: string;
  /** Whether the request is admitted. */
  allowed: boolean;
  /** Why (a denial's code, reason and message). */
  status?: Status;
  /** Base64 of the JSON patch to apply to the object. */
  patch?: string;
  /** The patch's format; only `"JSONPatch"` exists. */
  patchType?: "JSONPatch";
  /** Annotations the API server adds to its audit event. */
  auditAnnotations?: Record<string, string>;
  /** Warnings the API server passes on to the client (`Warning` headers). */
  warnings?: string[];
}

/**
 * The body of an admission webhook call and of its answer (admission.k8s.io/v1
 * `AdmissionReview`): a request going in, a response coming back.
 *
 * @example The answer to a request
 * ```ts
 * import type { AdmissionReview } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const answer: AdmissionReview = {
 *   apiVersion: "admission.k8s.io/v1",
 *   kind: "AdmissionReview",
 *   response: { uid: "1", allowed: true },
 * };
 * assert.equal(answer.response?.allowed, true);
 * ```
 */
export interface AdmissionReview {
  /** `"admission.k8s.io/v1"`. */
  apiVersion: "admission.k8s.io/v1";
  /** `"AdmissionReview"`. */
  kind: "AdmissionReview";
  /** What is asked (sent by the API server). */
  request?: AdmissionRequest;
  /** The answer (sent by the webhook). */
  response?: AdmissionResponse;
}
