/**
 * The built-in resource types a script or a controller commonly uses
 * (`Pods`, `Deployments`, ...), at the root under the names kubecache has
 * always given them: each is the descriptor generated for its group/version
 * (`@kubecache/core/api/<group>/<version>`, which has every resource of the
 * group), typed with the generated kind. The counterpart of client-go's
 * `schema.GroupVersionResource` plus the discovery data
 * (`metav1.APIResource`) kubectl uses to resolve names.
 *
 * @module
 */

import type { ResourceType } from "./resource_type.ts";
import type {
  ConfigMap,
  CronJob,
  CustomResourceDefinition,
  DaemonSet,
  Deployment,
  EndpointSlice,
  Ingress,
  Job,
  KubeEvent,
  Lease,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
} from "./types.ts";
import type { Endpoints as CoreEndpoints } from "./core/v1.ts";
import {
  ConfigMaps as coreConfigMaps,
  Endpoints as coreEndpoints,
  Events as coreEvents,
  Namespaces as coreNamespaces,
  Nodes as coreNodes,
  PersistentVolumeClaims as corePersistentVolumeClaims,
  PersistentVolumes as corePersistentVolumes,
  Pods as corePods,
  Secrets as coreSecrets,
  ServiceAccounts as coreServiceAccounts,
  Services as coreServices,
} from "./core/v1.ts";
import {
  DaemonSets as appsDaemonSets,
  Deployments as appsDeployments,
  ReplicaSets as appsReplicaSets,
  StatefulSets as appsStatefulSets,
} from "./apps/v1.ts";
import { CronJobs as batchCronJobs, Jobs as batchJobs } from "./batch/v1.ts";
import { Ingresses as networkingIngresses } from "./networking.k8s.io/v1.ts";
import { Leases as coordinationLeases } from "./coordination.k8s.io/v1.ts";
import {
  EndpointSlices as discoveryEndpointSlices,
} from "./discovery.k8s.io/v1.ts";
import {
  CustomResourceDefinitions as apiextensionsCustomResourceDefinitions,
} from "./apiextensions.k8s.io/v1.ts";

export {
  apiVersionOf,
  type ResourceType,
  resourceType,
  type ResourceTypeOptions,
} from "./resource_type.ts";

/**
 * core/v1 Endpoints: a Service's addresses, as the endpoints controller
 * writes them (superseded by EndpointSlices, still served).
 *
 * @example The ready addresses of a service
 * ```ts
 * import type { Endpoints } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ep: Endpoints = {
 *   metadata: { name: "web", namespace: "default" },
 *   subsets: [{ addresses: [{ ip: "10.0.0.5" }], notReadyAddresses: [{ ip: "10.0.0.6" }], ports: [{ port: 8080 }] }],
 * };
 * assert.deepEqual(ep.subsets?.flatMap((s) => s.addresses ?? []).map((a) => a.ip), ["10.0.0.5"]);
 * ```
 */
export type Endpoints = CoreEndpoints;

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
export const Pods: ResourceType<Pod> = corePods;
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
export const ConfigMaps: ResourceType<ConfigMap> = coreConfigMaps;
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
export const Secrets: ResourceType<Secret> = coreSecrets;
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
export const Services: ResourceType<Service> = coreServices;
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
export const Namespaces: ResourceType<Namespace> = coreNamespaces;
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
export const Nodes: ResourceType<Node> = coreNodes;
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
export const Events: ResourceType<KubeEvent> = coreEvents;
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
export const Endpoints: ResourceType<Endpoints> = coreEndpoints;
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
export const ServiceAccounts: ResourceType<ServiceAccount> =
  coreServiceAccounts;
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
export const PersistentVolumes: ResourceType<PersistentVolume> =
  corePersistentVolumes;
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
export const PersistentVolumeClaims: ResourceType<PersistentVolumeClaim> =
  corePersistentVolumeClaims;
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
export const Deployments: ResourceType<Deployment> = appsDeployments;
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
export const ReplicaSets: ResourceType<ReplicaSet> = appsReplicaSets;
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
export const StatefulSets: ResourceType<StatefulSet> = appsStatefulSets;
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
export const DaemonSets: ResourceType<DaemonSet> = appsDaemonSets;
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
export const Jobs: ResourceType<Job> = batchJobs;
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
export const CronJobs: ResourceType<CronJob> = batchCronJobs;
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
export const Ingresses: ResourceType<Ingress> = networkingIngresses;
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
export const Leases: ResourceType<Lease> = coordinationLeases;
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
export const EndpointSlices: ResourceType<EndpointSlice> =
  discoveryEndpointSlices;
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
export const CustomResourceDefinitions: ResourceType<CustomResourceDefinition> =
  apiextensionsCustomResourceDefinitions;

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
