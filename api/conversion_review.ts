/**
 * The wire types of a CRD conversion webhook call (apiextensions.k8s.io/v1
 * `ConversionReview`): kube-apiserver sends objects of one version of a
 * custom resource and asks for them in another. Part of the API
 * vocabulary: the controller runtime's webhook server answers them and
 * `FakeApiServer` sends them.
 *
 * @module
 */

import type { KubeObject, Status } from "./object.ts";

/**
 * Objects to convert (apiextensions/v1 `ConversionRequest`): each to
 * `desiredAPIVersion`.
 *
 * @example Ask for v1
 * ```ts
 * import type { ConversionRequest } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const req: ConversionRequest = {
 *   uid: "1",
 *   desiredAPIVersion: "example.com/v1",
 *   objects: [{ apiVersion: "example.com/v1beta1", kind: "Widget", metadata: { name: "w" } }],
 * };
 * assert.equal(req.objects.length, 1);
 * ```
 */
export interface ConversionRequest {
  /** Identifies this call; the response carries it back. */
  uid: string;
  /** `group/version` to convert every object to. */
  desiredAPIVersion: string;
  /** The objects, each of some version of the resource. */
  objects: KubeObject[];
}

/**
 * The webhook's answer (apiextensions/v1 `ConversionResponse`): the objects
 * in the desired version, in the request's order, with `result.status`
 * `"Success"`; or `"Failure"` and a message, and no objects.
 *
 * @example A failure
 * ```ts
 * import type { ConversionResponse } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const res: ConversionResponse = {
 *   uid: "1",
 *   convertedObjects: [],
 *   result: { status: "Failure", message: "unknown version v2" },
 * };
 * assert.equal(res.result.status, "Failure");
 * ```
 */
export interface ConversionResponse {
  /** The request's `uid`. */
  uid: string;
  /** The converted objects, in the request's order. */
  convertedObjects: KubeObject[];
  /** `status: "Success"`, or `"Failure"` with a `message`. */
  result: Status;
}

/**
 * The body of a conversion webhook call and of its answer
 * (apiextensions.k8s.io/v1 `ConversionReview`).
 *
 * @example The answer to a request
 * ```ts
 * import type { ConversionReview } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const answer: ConversionReview = {
 *   apiVersion: "apiextensions.k8s.io/v1",
 *   kind: "ConversionReview",
 *   response: { uid: "1", convertedObjects: [], result: { status: "Success" } },
 * };
 * assert.equal(answer.response?.result.status, "Success");
 * ```
 */
export interface ConversionReview {
  /** `"apiextensions.k8s.io/v1"`. */
  apiVersion: "apiextensions.k8s.io/v1";
  /** `"ConversionReview"`. */
  kind: "ConversionReview";
  /** What is asked (sent by the API server). */
  request?: ConversionRequest;
  /** The answer (sent by the webhook). */
  response?: ConversionResponse;
}
