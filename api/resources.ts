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

/** Options of {@link resourceType}. */
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

/** core/v1 Pod. */
export const Pods: ResourceType<Pod> = builtin<Pod>("v1", "Pod", "pods", true, [
  "po",
]);
/** core/v1 ConfigMap. */
export const ConfigMaps: ResourceType<ConfigMap> = builtin<ConfigMap>(
  "v1",
  "ConfigMap",
  "configmaps",
  true,
  ["cm"],
);
/** core/v1 Secret. */
export const Secrets: ResourceType<Secret> = builtin<Secret>(
  "v1",
  "Secret",
  "secrets",
  true,
);
/** core/v1 Service. */
export const Services: ResourceType<Service> = builtin<Service>(
  "v1",
  "Service",
  "services",
  true,
  ["svc"],
);
/** core/v1 Namespace (cluster-scoped). */
export const Namespaces: ResourceType<Namespace> = builtin<Namespace>(
  "v1",
  "Namespace",
  "namespaces",
  false,
  ["ns"],
);
/** core/v1 Node (cluster-scoped). */
export const Nodes: ResourceType<Node> = builtin<Node>(
  "v1",
  "Node",
  "nodes",
  false,
  [
    "no",
  ],
);
/** core/v1 Event. */
export const Events: ResourceType<KubeEvent> = builtin<KubeEvent>(
  "v1",
  "Event",
  "events",
  true,
  [
    "ev",
  ],
);
/** core/v1 Endpoints. */
export const Endpoints: ResourceType = builtin(
  "v1",
  "Endpoints",
  "endpoints",
  true,
  ["ep"],
);
/** core/v1 ServiceAccount. */
export const ServiceAccounts: ResourceType = builtin(
  "v1",
  "ServiceAccount",
  "serviceaccounts",
  true,
  ["sa"],
);
/** core/v1 PersistentVolume (cluster-scoped). */
export const PersistentVolumes: ResourceType = builtin(
  "v1",
  "PersistentVolume",
  "persistentvolumes",
  false,
  ["pv"],
);
/** core/v1 PersistentVolumeClaim. */
export const PersistentVolumeClaims: ResourceType = builtin(
  "v1",
  "PersistentVolumeClaim",
  "persistentvolumeclaims",
  true,
  ["pvc"],
);
/** apps/v1 Deployment. */
export const Deployments: ResourceType<Deployment> = builtin<Deployment>(
  "apps/v1",
  "Deployment",
  "deployments",
  true,
  ["deploy"],
);
/** apps/v1 ReplicaSet. */
export const ReplicaSets: ResourceType<ReplicaSet> = builtin<ReplicaSet>(
  "apps/v1",
  "ReplicaSet",
  "replicasets",
  true,
  ["rs"],
);
/** apps/v1 StatefulSet. */
export const StatefulSets: ResourceType<StatefulSet> = builtin<StatefulSet>(
  "apps/v1",
  "StatefulSet",
  "statefulsets",
  true,
  ["sts"],
);
/** apps/v1 DaemonSet. */
export const DaemonSets: ResourceType<DaemonSet> = builtin<DaemonSet>(
  "apps/v1",
  "DaemonSet",
  "daemonsets",
  true,
  ["ds"],
);
/** batch/v1 Job. */
export const Jobs: ResourceType<Job> = builtin<Job>(
  "batch/v1",
  "Job",
  "jobs",
  true,
);
/** batch/v1 CronJob. */
export const CronJobs: ResourceType<CronJob> = builtin<CronJob>(
  "batch/v1",
  "CronJob",
  "cronjobs",
  true,
  ["cj"],
);
/** networking.k8s.io/v1 Ingress. */
export const Ingresses: ResourceType = builtin(
  "networking.k8s.io/v1",
  "Ingress",
  "ingresses",
  true,
  ["ing"],
);
/** coordination.k8s.io/v1 Lease. */
export const Leases: ResourceType<Lease> = builtin<Lease>(
  "coordination.k8s.io/v1",
  "Lease",
  "leases",
  true,
);
/** discovery.k8s.io/v1 EndpointSlice. */
export const EndpointSlices: ResourceType = builtin(
  "discovery.k8s.io/v1",
  "EndpointSlice",
  "endpointslices",
  true,
);
/** apiextensions.k8s.io/v1 CustomResourceDefinition (cluster-scoped). */
export const CustomResourceDefinitions: ResourceType = builtin(
  "apiextensions.k8s.io/v1",
  "CustomResourceDefinition",
  "customresourcedefinitions",
  false,
  ["crd", "crds"],
);

/** Every built-in resource type, in the order above. */
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
