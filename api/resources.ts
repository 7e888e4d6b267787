/**
 * Descriptors of Kubernetes resource types: where a kind lives in the API
 * (group, version, plural resource name) and whether it is namespaced. The
 * counterpart of client-go's `schema.GroupVersionResource` plus the discovery
 * data (`metav1.APIResource`) kubectl uses to resolve names.
 *
 * @module
 */

import type { KubeObject } from "./object.ts";
import type {
  ConfigMap,
  CronJob,
  DaemonSet,
  Deployment,
  Job,
  KubeEvent,
  Lease,
  Namespace,
  Node,
  Pod,
  ReplicaSet,
  Secret,
  Service,
  StatefulSet,
} from "./types.ts";

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

function builtin<T extends KubeObject = KubeObject>(
  apiVersion: string,
  kind: string,
  resource: string,
  namespaced: boolean,
  shortNames: string[] = [],
): ResourceType<T> {
  return resourceType<T>({
    apiVersion,
    kind,
    resource,
    namespaced,
    shortNames,
  });
}

/**
 * core/v1 Pod.
 *
 * @example Pod objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Pods } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Pods), "v1");
 * assert.equal(Pods.resource, "pods");
 * assert.equal(Pods.kind, "Pod");
 * assert.equal(Pods.namespaced, true);
 * assert.deepEqual(Pods.shortNames, ["po"]);
 * ```
 */
export const Pods: ResourceType<Pod> = builtin<Pod>("v1", "Pod", "pods", true, [
  "po",
]);
/**
 * core/v1 ConfigMap.
 *
 * @example ConfigMap objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, ConfigMaps } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(ConfigMaps), "v1");
 * assert.equal(ConfigMaps.resource, "configmaps");
 * assert.equal(ConfigMaps.kind, "ConfigMap");
 * assert.equal(ConfigMaps.namespaced, true);
 * assert.deepEqual(ConfigMaps.shortNames, ["cm"]);
 * ```
 */
export const ConfigMaps: ResourceType<ConfigMap> = builtin<ConfigMap>(
  "v1",
  "ConfigMap",
  "configmaps",
  true,
  ["cm"],
);
/**
 * core/v1 Secret.
 *
 * @example Secret objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Secrets } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Secrets), "v1");
 * assert.equal(Secrets.resource, "secrets");
 * assert.equal(Secrets.kind, "Secret");
 * assert.equal(Secrets.namespaced, true);
 * ```
 */
export const Secrets: ResourceType<Secret> = builtin<Secret>(
  "v1",
  "Secret",
  "secrets",
  true,
);
/**
 * core/v1 Service.
 *
 * @example Service objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Services } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Services), "v1");
 * assert.equal(Services.resource, "services");
 * assert.equal(Services.kind, "Service");
 * assert.equal(Services.namespaced, true);
 * assert.deepEqual(Services.shortNames, ["svc"]);
 * ```
 */
export const Services: ResourceType<Service> = builtin<Service>(
  "v1",
  "Service",
  "services",
  true,
  ["svc"],
);
/**
 * core/v1 Namespace (cluster-scoped).
 *
 * @example Namespace objects at cluster scope
 * ```ts
 * import { apiVersionOf, Namespaces } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Namespaces), "v1");
 * assert.equal(Namespaces.resource, "namespaces");
 * assert.equal(Namespaces.kind, "Namespace");
 * assert.equal(Namespaces.namespaced, false);
 * assert.deepEqual(Namespaces.shortNames, ["ns"]);
 * ```
 */
export const Namespaces: ResourceType<Namespace> = builtin<Namespace>(
  "v1",
  "Namespace",
  "namespaces",
  false,
  ["ns"],
);
/**
 * core/v1 Node (cluster-scoped).
 *
 * @example Node objects at cluster scope
 * ```ts
 * import { apiVersionOf, Nodes } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Nodes), "v1");
 * assert.equal(Nodes.resource, "nodes");
 * assert.equal(Nodes.kind, "Node");
 * assert.equal(Nodes.namespaced, false);
 * assert.deepEqual(Nodes.shortNames, ["no"]);
 * ```
 */
export const Nodes: ResourceType<Node> = builtin<Node>(
  "v1",
  "Node",
  "nodes",
  false,
  [
    "no",
  ],
);
/**
 * core/v1 Event.
 *
 * @example Event objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Events } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Events), "v1");
 * assert.equal(Events.resource, "events");
 * assert.equal(Events.kind, "Event");
 * assert.equal(Events.namespaced, true);
 * assert.deepEqual(Events.shortNames, ["ev"]);
 * ```
 */
export const Events: ResourceType<KubeEvent> = builtin<KubeEvent>(
  "v1",
  "Event",
  "events",
  true,
  [
    "ev",
  ],
);
/**
 * core/v1 Endpoints.
 *
 * @example Endpoints objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Endpoints } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Endpoints), "v1");
 * assert.equal(Endpoints.resource, "endpoints");
 * assert.equal(Endpoints.kind, "Endpoints");
 * assert.equal(Endpoints.namespaced, true);
 * assert.deepEqual(Endpoints.shortNames, ["ep"]);
 * ```
 */
export const Endpoints: ResourceType = builtin(
  "v1",
  "Endpoints",
  "endpoints",
  true,
  ["ep"],
);
/**
 * core/v1 ServiceAccount.
 *
 * @example ServiceAccount objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, ServiceAccounts } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(ServiceAccounts), "v1");
 * assert.equal(ServiceAccounts.resource, "serviceaccounts");
 * assert.equal(ServiceAccounts.kind, "ServiceAccount");
 * assert.equal(ServiceAccounts.namespaced, true);
 * assert.deepEqual(ServiceAccounts.shortNames, ["sa"]);
 * ```
 */
export const ServiceAccounts: ResourceType = builtin(
  "v1",
  "ServiceAccount",
  "serviceaccounts",
  true,
  ["sa"],
);
/**
 * core/v1 PersistentVolume (cluster-scoped).
 *
 * @example PersistentVolume objects at cluster scope
 * ```ts
 * import { apiVersionOf, PersistentVolumes } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(PersistentVolumes), "v1");
 * assert.equal(PersistentVolumes.resource, "persistentvolumes");
 * assert.equal(PersistentVolumes.kind, "PersistentVolume");
 * assert.equal(PersistentVolumes.namespaced, false);
 * assert.deepEqual(PersistentVolumes.shortNames, ["pv"]);
 * ```
 */
export const PersistentVolumes: ResourceType = builtin(
  "v1",
  "PersistentVolume",
  "persistentvolumes",
  false,
  ["pv"],
);
/**
 * core/v1 PersistentVolumeClaim.
 *
 * @example PersistentVolumeClaim objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, PersistentVolumeClaims } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(PersistentVolumeClaims), "v1");
 * assert.equal(PersistentVolumeClaims.resource, "persistentvolumeclaims");
 * assert.equal(PersistentVolumeClaims.kind, "PersistentVolumeClaim");
 * assert.equal(PersistentVolumeClaims.namespaced, true);
 * assert.deepEqual(PersistentVolumeClaims.shortNames, ["pvc"]);
 * ```
 */
export const PersistentVolumeClaims: ResourceType = builtin(
  "v1",
  "PersistentVolumeClaim",
  "persistentvolumeclaims",
  true,
  ["pvc"],
);
/**
 * apps/v1 Deployment.
 *
 * @example Deployment objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Deployments } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Deployments), "apps/v1");
 * assert.equal(Deployments.resource, "deployments");
 * assert.equal(Deployments.kind, "Deployment");
 * assert.equal(Deployments.namespaced, true);
 * assert.deepEqual(Deployments.shortNames, ["deploy"]);
 * ```
 */
export const Deployments: ResourceType<Deployment> = builtin<Deployment>(
  "apps/v1",
  "Deployment",
  "deployments",
  true,
  ["deploy"],
);
/**
 * apps/v1 ReplicaSet.
 *
 * @example ReplicaSet objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, ReplicaSets } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(ReplicaSets), "apps/v1");
 * assert.equal(ReplicaSets.resource, "replicasets");
 * assert.equal(ReplicaSets.kind, "ReplicaSet");
 * assert.equal(ReplicaSets.namespaced, true);
 * assert.deepEqual(ReplicaSets.shortNames, ["rs"]);
 * ```
 */
export const ReplicaSets: ResourceType<ReplicaSet> = builtin<ReplicaSet>(
  "apps/v1",
  "ReplicaSet",
  "replicasets",
  true,
  ["rs"],
);
/**
 * apps/v1 StatefulSet.
 *
 * @example StatefulSet objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, StatefulSets } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(StatefulSets), "apps/v1");
 * assert.equal(StatefulSets.resource, "statefulsets");
 * assert.equal(StatefulSets.kind, "StatefulSet");
 * assert.equal(StatefulSets.namespaced, true);
 * assert.deepEqual(StatefulSets.shortNames, ["sts"]);
 * ```
 */
export const StatefulSets: ResourceType<StatefulSet> = builtin<StatefulSet>(
  "apps/v1",
  "StatefulSet",
  "statefulsets",
  true,
  ["sts"],
);
/**
 * apps/v1 DaemonSet.
 *
 * @example DaemonSet objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, DaemonSets } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(DaemonSets), "apps/v1");
 * assert.equal(DaemonSets.resource, "daemonsets");
 * assert.equal(DaemonSets.kind, "DaemonSet");
 * assert.equal(DaemonSets.namespaced, true);
 * assert.deepEqual(DaemonSets.shortNames, ["ds"]);
 * ```
 */
export const DaemonSets: ResourceType<DaemonSet> = builtin<DaemonSet>(
  "apps/v1",
  "DaemonSet",
  "daemonsets",
  true,
  ["ds"],
);
/**
 * batch/v1 Job.
 *
 * @example Job objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Jobs } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Jobs), "batch/v1");
 * assert.equal(Jobs.resource, "jobs");
 * assert.equal(Jobs.kind, "Job");
 * assert.equal(Jobs.namespaced, true);
 * ```
 */
export const Jobs: ResourceType<Job> = builtin<Job>(
  "batch/v1",
  "Job",
  "jobs",
  true,
);
/**
 * batch/v1 CronJob.
 *
 * @example CronJob objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, CronJobs } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(CronJobs), "batch/v1");
 * assert.equal(CronJobs.resource, "cronjobs");
 * assert.equal(CronJobs.kind, "CronJob");
 * assert.equal(CronJobs.namespaced, true);
 * assert.deepEqual(CronJobs.shortNames, ["cj"]);
 * ```
 */
export const CronJobs: ResourceType<CronJob> = builtin<CronJob>(
  "batch/v1",
  "CronJob",
  "cronjobs",
  true,
  ["cj"],
);
/**
 * networking.k8s.io/v1 Ingress.
 *
 * @example Ingress objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Ingresses } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Ingresses), "networking.k8s.io/v1");
 * assert.equal(Ingresses.resource, "ingresses");
 * assert.equal(Ingresses.kind, "Ingress");
 * assert.equal(Ingresses.namespaced, true);
 * assert.deepEqual(Ingresses.shortNames, ["ing"]);
 * ```
 */
export const Ingresses: ResourceType = builtin(
  "networking.k8s.io/v1",
  "Ingress",
  "ingresses",
  true,
  ["ing"],
);
/**
 * coordination.k8s.io/v1 Lease.
 *
 * @example Lease objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, Leases } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(Leases), "coordination.k8s.io/v1");
 * assert.equal(Leases.resource, "leases");
 * assert.equal(Leases.kind, "Lease");
 * assert.equal(Leases.namespaced, true);
 * ```
 */
export const Leases: ResourceType<Lease> = builtin<Lease>(
  "coordination.k8s.io/v1",
  "Lease",
  "leases",
  true,
);
/**
 * discovery.k8s.io/v1 EndpointSlice.
 *
 * @example EndpointSlice objects at a namespace's scope
 * ```ts
 * import { apiVersionOf, EndpointSlices } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(EndpointSlices), "discovery.k8s.io/v1");
 * assert.equal(EndpointSlices.resource, "endpointslices");
 * assert.equal(EndpointSlices.kind, "EndpointSlice");
 * assert.equal(EndpointSlices.namespaced, true);
 * ```
 */
export const EndpointSlices: ResourceType = builtin(
  "discovery.k8s.io/v1",
  "EndpointSlice",
  "endpointslices",
  true,
);
/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition (cluster-scoped).
 *
 * @example CustomResourceDefinition objects at cluster scope
 * ```ts
 * import { apiVersionOf, CustomResourceDefinitions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(apiVersionOf(CustomResourceDefinitions), "apiextensions.k8s.io/v1");
 * assert.equal(CustomResourceDefinitions.resource, "customresourcedefinitions");
 * assert.equal(CustomResourceDefinitions.kind, "CustomResourceDefinition");
 * assert.equal(CustomResourceDefinitions.namespaced, false);
 * assert.deepEqual(CustomResourceDefinitions.shortNames, ["crd","crds"]);
 * ```
 */
export const CustomResourceDefinitions: ResourceType = builtin(
  "apiextensions.k8s.io/v1",
  "CustomResourceDefinition",
  "customresourcedefinitions",
  false,
  ["crd", "crds"],
);

/**
 * Every built-in resource type, in the order above.
 *
 * @example Find a built-in type by kind
 * ```ts
 * import { BUILTIN_RESOURCE_TYPES, Deployments } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(BUILTIN_RESOURCE_TYPES.find((t) => t.kind === "Deployment"), Deployments);
 * ```
 */
export const BUILTIN_RESOURCE_TYPES: readonly ResourceType[] = [
  Pods,
  ConfigMaps,
  Secrets,
  Services,
  Namespaces,
  Nodes,
  Events,
  Endpoints,
  ServiceAccounts,
  PersistentVolumes,
  PersistentVolumeClaims,
  Deployments,
  ReplicaSets,
  StatefulSets,
  DaemonSets,
  Jobs,
  CronJobs,
  Ingresses,
  Leases,
  EndpointSlices,
  CustomResourceDefinitions,
];
