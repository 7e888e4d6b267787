/**
 * {@link InformerScope}: which objects of a type a controller's informer
 * caches (controller-runtime `cache.ByObject`, kube-rs `watcher::Config`).
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { ResourceType } from "../api/resources.ts";
import type { SharedInformerFactory } from "../cache/factory.ts";
import type { SharedIndexInformer } from "../cache/shared_informer.ts";
import {
  checkFunction,
  checkOptionalString,
  checkOptions,
  show,
} from "./_check.ts";

/**
 * What one informer of a controller caches, for memory: a controller of
 * ConfigMaps labelled `app=demo` need not hold every ConfigMap of the
 * cluster. Given to `manager.controller(name, Type, { scope })`,
 * `owns(Type, { scope })`, `watches(Type, map, { scope })`, or as a
 * per-type default in the Manager's `cache.byType` (controller-runtime's
 * `cache.Options.ByObject`, kube-rs's `watcher::Config`). The manager's
 * factory shares one informer per type and scope: two controllers with
 * the same scope share one watch.
 *
 * @example ConfigMaps of one app, without their data
 * ```ts
 * import type { InformerScope } from "@kubecache/core/controller";
 * import type { KubeObject } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const scope: InformerScope = {
 *   labelSelector: "app=demo",
 *   transform: (obj: KubeObject) => ({ ...obj, metadata: { ...obj.metadata, managedFields: undefined } }),
 * };
 * assert.equal(scope.labelSelector, "app=demo");
 * ```
 */
export interface InformerScope {
  /** Only this namespace. Default the Manager's `namespace` (all when unset). */
  namespace?: string;
  /** Only objects matching this label selector (sent to the server). */
  labelSelector?: string;
  /** Only objects matching this field selector (sent to the server). */
  fieldSelector?: string;
  /**
   * Cache `PartialObjectMetadata` only (metadata, no spec or data), as
   * controller-runtime's `OnlyMetadata`: enough to map owners or react to
   * labels. `ctx.cache` cannot serve such a scope (it has no full objects).
   */
  metadataOnly?: boolean;
  /**
   * Called on every object before it is cached (client-go
   * `SetTransform`): drop what the reconciler never reads. The same
   * function gives the same informer.
   */
  transform?: (obj: KubeObject) => KubeObject;
}

/** Throws at the call when `value` is not an InformerScope. */
export function checkScope(call: string, name: string, value: unknown): void {
  if (value === undefined) return;
  checkOptions(call, name, value);
  const s = value as InformerScope;
  checkOptionalString(call, `${name}.namespace`, s.namespace);
  checkOptionalString(call, `${name}.labelSelector`, s.labelSelector);
  checkOptionalString(call, `${name}.fieldSelector`, s.fieldSelector);
  if (s.metadataOnly !== undefined && typeof s.metadataOnly !== "boolean") {
    throw new TypeError(
      `${call}: ${name}.metadataOnly must be a boolean, got ${
        show(s.metadataOnly)
      }`,
    );
  }
  if (s.transform !== undefined) {
    checkFunction(call, `${name}.transform`, s.transform);
  }
}

/** The factory's informer of `type` in `scope` (one per type and scope). */
export function scopedInformer(
  factory: SharedInformerFactory,
  type: ResourceType,
  scope: InformerScope | undefined,
): SharedIndexInformer<KubeObject> {
  const opts = {
    namespace: scope?.namespace,
    labelSelector: scope?.labelSelector,
    fieldSelector: scope?.fieldSelector,
    transform: scope?.transform,
  };
  if (scope?.metadataOnly) {
    return factory.metadataInformerFor(
      type,
      opts as Parameters<typeof factory.metadataInformerFor>[1],
    ) as unknown as SharedIndexInformer<KubeObject>;
  }
  return factory.informerFor(type, opts);
}

/**
 * How the manager names the cache of `type` in `scope` (readiness checks,
 * `kubecache_*` labels): the resource, and the scope's parts when scoped,
 * e.g. `configmaps(labels=app=demo)`.
 */
export function scopeName(
  type: ResourceType,
  scope: InformerScope | undefined,
): string {
  const resource = type.group
    ? `${type.resource}.${type.group}`
    : type.resource;
  const parts = [
    scope?.namespace !== undefined ? `namespace=${scope.namespace}` : "",
    scope?.labelSelector ? `labels=${scope.labelSelector}` : "",
    scope?.fieldSelector ? `fields=${scope.fieldSelector}` : "",
    scope?.metadataOnly ? "metadata-only" : "",
    scope?.transform ? "transformed" : "",
  ].filter((p) => p !== "");
  return parts.length > 0 ? `${resource}(${parts.join(",")})` : resource;
}
