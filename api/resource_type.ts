/**
 * The descriptor of a Kubernetes resource type: where a kind lives in the
 * API (group, version, plural resource name), whether it is namespaced and
 * which subresources it serves. The counterpart of client-go's
 * `schema.GroupVersionResource` plus the discovery data
 * (`metav1.APIResource`) kubectl uses to resolve names. The built-in
 * descriptors are generated from it (`api/<group>/<version>.ts`).
 *
 * @module
 */

import type { KubeObject } from "./object.ts";

/**
 * A resource type (apimachinery `GroupVersionResource` + `APIResource`).
 * `T` is the object type its API serves; it only types results.
 *
 * @typeParam T the object type of this resource
 *
 * @example A custom resource type by hand
 * ```ts
 * import { type KubeObject, type ResourceType, resourceType } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * interface Widget extends KubeObject {
 *   spec: { size: number };
 * }
 * const Widgets: ResourceType<Widget> = resourceType<Widget>({
 *   apiVersion: "example.com/v1",
 *   kind: "Widget",
 *   resource: "widgets",
 *   namespaced: true,
 * });
 * assert.equal(Widgets.group, "example.com");
 * assert.equal(Widgets.version, "v1");
 * ```
 */
export interface ResourceType<T extends KubeObject = KubeObject> {
  /** API group; `""` for the core group (`/api/v1`). */
  group: string;
  /** API version, e.g. `"v1"`. */
  version: string;
  /** Plural resource name used in URLs, e.g. `"pods"`. */
  resource: string;
  /** Kind of the objects, e.g. `"Pod"`. */
  kind: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
  /** Singular name, e.g. `"pod"`; defaults to the lower-cased kind. */
  singular?: string;
  /** kubectl short names, e.g. `["po"]`. */
  shortNames?: string[];
  /**
   * Subresources the server serves under each object, as discovery lists
   * them without the resource's name: `["status", "scale"]` for
   * deployments, `["binding", "eviction", "log", ...]` for pods.
   */
  subresources?: string[];
}

/**
 * Options of {@link resourceType}.
 *
 * @example Describe a CRD's resource
 * ```ts
 * import { resourceType, type ResourceTypeOptions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const opts: ResourceTypeOptions = {
 *   apiVersion: "stable.example.com/v1",
 *   kind: "CronTab",
 *   resource: "crontabs",
 *   namespaced: true,
 *   shortNames: ["ct"],
 * };
 * assert.equal(resourceType(opts).group, "stable.example.com");
 * ```
 */
export interface ResourceTypeOptions {
  /** `group/version`, or `version` for the core group, e.g. `"example.com/v1"`. */
  apiVersion: string;
  /** Kind, e.g. `"Widget"`. */
  kind: string;
  /** Plural resource name, e.g. `"widgets"`. */
  resource: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
  /** Singular name; defaults to the lower-cased kind. */
  singular?: string;
  /** kubectl short names. */
  shortNames?: string[];
  /** Subresources served under each object, e.g. `["status", "scale"]`. */
  subresources?: string[];
}

/**
 * Describe a resource type, typically a CustomResourceDefinition's.
 *
 * @example A CRD
 * ```ts
 * import { apiVersionOf, resourceType } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const Widgets = resourceType({ apiVersion: "example.com/v1", kind: "Widget", resource: "widgets", namespaced: true });
 * assert.equal(Widgets.group, "example.com");
 * assert.equal(apiVersionOf(Widgets), "example.com/v1");
 * ```
 *
 * @throws {TypeError} when `apiVersion` has more than one `/`, or a name is empty
 * @throws {RangeError} when `apiVersion` has no group and is not `"v1"` (the
 *   core group's only version): `"v1beta1"` alone is a group left out
 */
export function resourceType<T extends KubeObject = KubeObject>(
  opts: ResourceTypeOptions,
): ResourceType<T> {
  const parts = opts.apiVersion.split("/");
  if (parts.length > 2 || parts.some((p) => p === "")) {
    throw new TypeError(
      `Cannot parse apiVersion: expected "group/version" or "version", got "${opts.apiVersion}"`,
    );
  }
  if (!opts.kind || !opts.resource) {
    throw new TypeError(
      `Cannot describe resource type: kind and resource must be non-empty, got kind "${opts.kind}" and resource "${opts.resource}"`,
    );
  }
  const [group, version] = parts.length === 2 ? parts : ["", parts[0]];
  if (group === "" && version !== "v1") {
    // The core group's only version is v1: "v1beta1" alone is a group
    // left out, which the server would answer 404 at /api/v1beta1.
    throw new RangeError(
      `Cannot describe resource type: apiVersion "${version}" has no group, and only the core group's "v1" goes without one; give "group/${version}" (e.g. "example.com/${version}")`,
    );
  }
  return {
    group,
    version,
    resource: opts.resource,
    kind: opts.kind,
    namespaced: opts.namespaced,
    singular: opts.singular ?? opts.kind.toLowerCase(),
    shortNames: opts.shortNames ?? [],
    subresources: opts.subresources ?? [],
  };
}

/**
 * The `apiVersion` string of a resource type: `"v1"` for the core group,
 * `"group/version"` otherwise.
 *
 * @example The apiVersion of an object of a type
 * ```ts
 * import { apiVersionOf, ConfigMaps, Deployments } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(ConfigMaps), "v1");
 * assert.equal(apiVersionOf(Deployments), "apps/v1");
 * ```
 */
export function apiVersionOf(type: ResourceType<KubeObject>): string {
  return type.group === "" ? type.version : `${type.group}/${type.version}`;
}
