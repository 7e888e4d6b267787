/**
 * The well-known shapes every group's types share (apimachinery's
 * `metav1.LabelSelector`, `metav1.Condition`, `metav1.Time`,
 * `resource.Quantity`, `intstr.IntOrString` and core/v1's object
 * references). The generated modules of the built-in groups and the
 * modules `cli.ts gen` writes for custom resources import these instead of
 * declaring copies, so a `LabelSelector` of a Deployment and one of a
 * custom resource are the same type.
 *
 * @module
 */

/**
 * A label selector (apimachinery `metav1.LabelSelector`).
 *
 * @example A Deployment's selector, as text
 * ```ts
 * import { type LabelSelector, parseSelector } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const selector: LabelSelector = { matchLabels: { app: "web" } };
 * const text = Object.entries(selector.matchLabels!).map(([k, v]) => `${k}=${v}`).join(",");
 * assert.equal(parseSelector(text).matches({ app: "web", "pod-template-hash": "6d4b" }), true);
 * ```
 */
export interface LabelSelector {
  /** Labels that must all match exactly. */
  matchLabels?: Record<string, string>;
  /** Set-based requirements, all of which must match. */
  matchExpressions?: {
    /** Label key. */
    key: string;
    /** `"In"`, `"NotIn"`, `"Exists"` or `"DoesNotExist"`. */
    operator: string;
    /** Values for `In`/`NotIn`. */
    values?: string[];
  }[];
}

/**
 * A status condition (core/v1 `PodCondition`, `NodeCondition`, `metav1.Condition`, ...).
 *
 * @example Read a condition
 * ```ts
 * import type { Condition } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const conditions: Condition[] = [{ type: "Ready", status: "True", reason: "KubeletReady" }];
 * const ready = conditions.find((c) => c.type === "Ready")?.status === "True";
 * assert.equal(ready, true);
 * ```
 */
export interface Condition {
  /** Condition type, e.g. `"Ready"`. */
  type: string;
  /** `"True"`, `"False"` or `"Unknown"`. */
  status: string;
  /** RFC 3339 time of the last status change. */
  lastTransitionTime?: string;
  /** Machine-readable reason of the last change. */
  reason?: string;
  /** Human-readable details. */
  message?: string;
  /** Other fields. */
  [field: string]: unknown;
}

/**
 * A point in time as Kubernetes writes it (apimachinery `metav1.Time`): an
 * RFC 3339 string in UTC with second precision, e.g.
 * `"2026-01-01T00:00:00Z"`; `Date.parse` reads it.
 *
 * @example How long ago a pod started
 * ```ts
 * import type { Time } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const started: Time = "2026-01-01T00:00:00Z";
 * assert.equal(Date.parse("2026-01-01T00:01:00Z") - Date.parse(started), 60_000);
 * ```
 */
export type Time = string;

/**
 * An amount of a resource as Kubernetes writes it (apimachinery
 * `resource.Quantity`): a decimal with an optional suffix, `"250m"` (a
 * quarter CPU), `"1Gi"`, `"1e3"`. Servers always write the string form.
 *
 * @example The memory limits of a container
 * ```ts
 * import type { Quantity } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const limits: Record<string, Quantity> = { cpu: "500m", memory: "1Gi" };
 * assert.equal(limits.memory, "1Gi");
 * ```
 */
export type Quantity = string;

/**
 * A number or a string (apimachinery `intstr.IntOrString`): a port by
 * number or by name, a count or a percentage (`maxSurge: "25%"`).
 *
 * @example Resolve a rolling update's maxSurge against a replica count
 * ```ts
 * import type { IntOrString } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const surge = (v: IntOrString, replicas: number) =>
 *   typeof v === "number" ? v : Math.ceil((parseInt(v, 10) / 100) * replicas);
 * assert.equal(surge("25%", 10), 3);
 * assert.equal(surge(2, 10), 2);
 * ```
 */
export type IntOrString = number | string;

/**
 * A reference to an object of any kind (core/v1 `ObjectReference`), as an
 * Event's `involvedObject` or a binding's target holds it. Every field is
 * optional, as the server's schema has it.
 *
 * @example What an event is about
 * ```ts
 * import type { ObjectReference } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ref: ObjectReference = { kind: "Pod", namespace: "default", name: "web-1", fieldPath: "spec.containers{web}" };
 * assert.equal(`${ref.kind}/${ref.namespace}/${ref.name}`, "Pod/default/web-1");
 * ```
 */
export interface ObjectReference {
  /** API version of the referent, e.g. `"v1"`. */
  apiVersion?: string;
  /** The part of the object meant, e.g. `"spec.containers{web}"`. */
  fieldPath?: string;
  /** Kind of the referent, e.g. `"Pod"`. */
  kind?: string;
  /** Name of the referent. */
  name?: string;
  /** Namespace of the referent. */
  namespace?: string;
  /** The referent's resourceVersion the reference was made at. */
  resourceVersion?: string;
  /** UID of the referent. */
  uid?: string;
}

/**
 * A reference to an object by name in the same namespace (core/v1
 * `LocalObjectReference`), as `imagePullSecrets` and `secretRef`s hold it.
 *
 * @example The pull secrets of a pod spec
 * ```ts
 * import type { LocalObjectReference } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const pullSecrets: LocalObjectReference[] = [{ name: "registry" }];
 * assert.deepEqual(pullSecrets.map((s) => s.name), ["registry"]);
 * ```
 */
export interface LocalObjectReference {
  /** Name of the referent; the empty string is the server's default. */
  name?: string;
}
