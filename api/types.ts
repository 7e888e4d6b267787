/**
 * The common built-in kinds at the root (`Pod`, `Deployment`, ...: the
 * k8s.io/api structs client-go's typed listers return), by the names
 * kubecache has always given them. Each is the type generated from a real
 * kube-apiserver's OpenAPI v3 (`@kubecache/core/api/<group>/<version>`
 * holds every kind of each group), so every field is typed and documented;
 * `apiVersion` and `kind` are literal types. The built-in resource
 * constants (`Pods`, `Deployments`, ...) are typed with them.
 *
 * @example Index pods by node
 * ```ts
 * import type { IndexFunc, Pod } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const byNode: IndexFunc<Pod> = (pod) =>
 *   pod.spec?.nodeName ? [pod.spec.nodeName] : [];
 * assert.deepEqual(byNode({ metadata: { name: "a" }, spec: { nodeName: "n1", containers: [] } }), ["n1"]);
 * ```
 *
 * @module
 */

import type {
  ConfigMap as CoreConfigMap,
  Container as CoreContainer,
  ContainerState as CoreContainerState,
  ContainerStatus as CoreContainerStatus,
  Event as CoreEvent,
  Namespace as CoreNamespace,
  Node as CoreNode,
  Pod as CorePod,
  PodSpec as CorePodSpec,
  PodStatus as CorePodStatus,
  PodTemplateSpec as CorePodTemplateSpec,
  Secret as CoreSecret,
  Service as CoreService,
} from "./core/v1.ts";
import type {
  DaemonSet as AppsDaemonSet,
  Deployment as AppsDeployment,
  ReplicaSet as AppsReplicaSet,
  StatefulSet as AppsStatefulSet,
} from "./apps/v1.ts";
import type { CronJob as BatchCronJob, Job as BatchJob } from "./batch/v1.ts";
import type { Lease as CoordinationLease } from "./coordination.k8s.io/v1.ts";
import type {
  PersistentVolume as CorePersistentVolume,
  PersistentVolumeClaim as CorePersistentVolumeClaim,
  ServiceAccount as CoreServiceAccount,
} from "./core/v1.ts";
import type { Ingress as NetworkingIngress } from "./networking.k8s.io/v1.ts";
import type { EndpointSlice as DiscoveryEndpointSlice } from "./discovery.k8s.io/v1.ts";
import type { CustomResourceDefinition as ApiextensionsCustomResourceDefinition } from "./apiextensions.k8s.io/v1.ts";

export type {
  Condition,
  IntOrString,
  LabelSelector,
  LocalObjectReference,
  ObjectReference,
  Quantity,
  Time,
} from "./well_known.ts";

/**
 * A container of a pod (core/v1 `Container`).
 *
 * @example The CPU each container of a pod requests
 * ```ts
 * import type { Container, Pod } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const cpuRequests = (pod: Pod) =>
 *   Object.fromEntries((pod.spec?.containers ?? []).map((c: Container) => [c.name, c.resources?.requests?.cpu ?? "none"]));
 * const pod: Pod = {
 *   metadata: { name: "web-1" },
 *   spec: { containers: [{ name: "web", resources: { requests: { cpu: "250m" } } }, { name: "log" }] },
 * };
 * assert.deepEqual(cpuRequests(pod), { web: "250m", log: "none" });
 * ```
 */
export type Container = CoreContainer;

/**
 * The state of a container (core/v1 `ContainerState`); one key is set.
 *
 * @example Why a container is not running
 * ```ts
 * import type { ContainerState } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const why = (s: ContainerState) => s.running ? "Running" : s.waiting?.reason ?? s.terminated?.reason ?? "Unknown";
 * assert.equal(why({ waiting: { reason: "CrashLoopBackOff" } }), "CrashLoopBackOff");
 * ```
 */
export type ContainerState = CoreContainerState;

/**
 * The status of one container of a pod (core/v1 `ContainerStatus`).
 *
 * @example Count restarts
 * ```ts
 * import type { ContainerStatus } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const statuses: ContainerStatus[] = [
 *   { name: "web", ready: true, restartCount: 2, image: "nginx:1.27", imageID: "" },
 *   { name: "sidecar", ready: true, restartCount: 1, image: "envoy:1.31", imageID: "" },
 * ];
 * assert.equal(statuses.reduce((n, s) => n + s.restartCount, 0), 3);
 * ```
 */
export type ContainerStatus = CoreContainerStatus;

/**
 * A pod template (core/v1 `PodTemplateSpec`), as in workload specs.
 *
 * @example Does a pod come from this template?
 * ```ts
 * import { type Pod, type PodTemplateSpec, selectorFromSet } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const madeFrom = (template: PodTemplateSpec, pod: Pod) =>
 *   selectorFromSet(template.metadata?.labels ?? {}).matches(pod.metadata.labels);
 * const template: PodTemplateSpec = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web" }] } };
 * assert.equal(madeFrom(template, { metadata: { name: "web-1", labels: { app: "web", "pod-template-hash": "6d4b" } } }), true);
 * assert.equal(madeFrom(template, { metadata: { name: "db-0", labels: { app: "db" } } }), false);
 * ```
 */
export type PodTemplateSpec = CorePodTemplateSpec;

/**
 * The desired state of a pod (core/v1 `PodSpec`).
 *
 * @example Index pods by node
 * ```ts
 * import type { IndexFunc, Pod, PodSpec } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const spec: PodSpec = { nodeName: "node-a", containers: [{ name: "web" }] };
 * const byNode: IndexFunc<Pod> = (pod) => pod.spec?.nodeName ? [pod.spec.nodeName] : [];
 * assert.deepEqual(byNode({ metadata: { name: "web-1" }, spec }), ["node-a"]);
 * ```
 */
export type PodSpec = CorePodSpec;

/**
 * The observed state of a pod (core/v1 `PodStatus`).
 *
 * @example Is a pod serving? (Running and Ready)
 * ```ts
 * import type { PodStatus } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const serving = (status: PodStatus | undefined) =>
 *   status?.phase === "Running" &&
 *   status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
 * assert.equal(serving({ phase: "Running", conditions: [{ type: "Ready", status: "True" }] }), true);
 * assert.equal(serving({ phase: "Running", conditions: [{ type: "Ready", status: "False" }] }), false);
 * assert.equal(serving({ phase: "Pending" }), false);
 * ```
 */
export type PodStatus = CorePodStatus;

/**
 * core/v1 Pod.
 *
 * @example Pods of a node, from a lister
 * ```ts
 * import { metaNamespaceKeyFunc, newGenericLister, newIndexer, type Pod } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const indexer = newIndexer<Pod>(metaNamespaceKeyFunc, {});
 * indexer.add({
 *   metadata: { name: "web-1", namespace: "default" },
 *   spec: { nodeName: "node-a", containers: [{ name: "web", image: "nginx:1.27" }] },
 *   status: { phase: "Running" },
 * });
 * const onNodeA = newGenericLister(indexer).list().filter((p) => p.spec?.nodeName === "node-a");
 * assert.equal(onNodeA.length, 1);
 * ```
 */
export type Pod = CorePod;

/**
 * core/v1 ConfigMap.
 *
 * @example A setting with a default, read from a cached config map
 * ```ts
 * import { type ConfigMap, type DeepReadonly, metaNamespaceKeyFunc, newGenericLister, newIndexer } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const setting = (cm: DeepReadonly<ConfigMap> | undefined, key: string, fallback: string) => cm?.data?.[key] ?? fallback;
 * const indexer = newIndexer<ConfigMap>(metaNamespaceKeyFunc, {});
 * indexer.add({ metadata: { name: "settings", namespace: "default" }, data: { color: "blue" } });
 * const cm = newGenericLister(indexer).get("default/settings");
 * assert.equal(setting(cm, "color", "green"), "blue");
 * assert.equal(setting(cm, "size", "m"), "m");
 * ```
 */
export type ConfigMap = CoreConfigMap;

/**
 * core/v1 Secret.
 *
 * @example Decode a secret value
 * ```ts
 * import type { Secret } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const secret: Secret = { metadata: { name: "db" }, type: "Opaque", data: { password: btoa("hunter2") } };
 * assert.equal(atob(secret.data!.password), "hunter2");
 * ```
 */
export type Secret = CoreSecret;

/**
 * core/v1 Service.
 *
 * @example The pods a service selects
 * ```ts
 * import { selectorFromSet, type Service } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const svc: Service = { metadata: { name: "web" }, spec: { type: "ClusterIP", selector: { app: "web" } } };
 * assert.equal(selectorFromSet(svc.spec!.selector!).matches({ app: "web", tier: "frontend" }), true);
 * ```
 */
export type Service = CoreService;

/**
 * core/v1 Namespace.
 *
 * @example Skip work in a namespace that is being deleted
 * ```ts
 * import type { Namespace } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const goingAway = (ns: Namespace | undefined) =>
 *   ns?.status?.phase === "Terminating" || ns?.metadata.deletionTimestamp !== undefined;
 * const namespaces: Namespace[] = [
 *   { metadata: { name: "team-a" }, status: { phase: "Active" } },
 *   { metadata: { name: "team-b", deletionTimestamp: "2026-01-01T00:00:00Z" }, status: { phase: "Terminating" } },
 * ];
 * assert.deepEqual(namespaces.filter((ns) => !goingAway(ns)).map((ns) => ns.metadata.name), ["team-a"]);
 * ```
 */
export type Namespace = CoreNamespace;

/**
 * core/v1 Node.
 *
 * @example Is a node ready?
 * ```ts
 * import type { Node } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const node: Node = {
 *   metadata: { name: "node-a" },
 *   status: { conditions: [{ type: "Ready", status: "True" }], addresses: [{ type: "InternalIP", address: "10.0.0.1" }] },
 * };
 * assert.equal(node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"), true);
 * ```
 */
export type Node = CoreNode;

/**
 * apps/v1 Deployment.
 *
 * @example Is a deployment rolled out?
 * ```ts
 * import type { Deployment } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const rolledOut = (d: Deployment) =>
 *   (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
 *   d.status?.updatedReplicas === d.spec?.replicas && d.status?.availableReplicas === d.spec?.replicas;
 * const web: Deployment = {
 *   metadata: { name: "web", generation: 2 },
 *   spec: {
 *     replicas: 3,
 *     selector: { matchLabels: { app: "web" } },
 *     template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } },
 *     strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
 *   },
 *   status: { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3 },
 * };
 * assert.equal(rolledOut(web), true);
 * ```
 */
export type Deployment = AppsDeployment;

/**
 * apps/v1 ReplicaSet.
 *
 * @example Ready replicas
 * ```ts
 * import type { ReplicaSet } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const rs: ReplicaSet = {
 *   metadata: { name: "web-6d4b" },
 *   spec: { replicas: 2, selector: { matchLabels: { app: "web" } } },
 *   status: { replicas: 2, readyReplicas: 1 },
 * };
 * assert.equal(`${rs.status?.readyReplicas ?? 0}/${rs.spec?.replicas}`, "1/2");
 * ```
 */
export type ReplicaSet = AppsReplicaSet;

/**
 * apps/v1 StatefulSet.
 *
 * @example The stable DNS names of its pods
 * ```ts
 * import type { StatefulSet } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const podNames = (sts: StatefulSet) =>
 *   Array.from({ length: sts.spec?.replicas ?? 1 }, (_, i) =>
 *     `${sts.metadata.name}-${i}.${sts.spec?.serviceName}.${sts.metadata.namespace}.svc`);
 * const db: StatefulSet = {
 *   metadata: { name: "db", namespace: "shop" },
 *   spec: {
 *     replicas: 2,
 *     serviceName: "db-headless",
 *     selector: { matchLabels: { app: "db" } },
 *     template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "db", image: "postgres:17" }] } },
 *   },
 * };
 * assert.deepEqual(podNames(db), ["db-0.db-headless.shop.svc", "db-1.db-headless.shop.svc"]);
 * ```
 */
export type StatefulSet = AppsStatefulSet;

/**
 * apps/v1 DaemonSet.
 *
 * @example Scheduled everywhere?
 * ```ts
 * import type { DaemonSet } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ds: DaemonSet = {
 *   metadata: { name: "agent" },
 *   status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberMisscheduled: 0, numberReady: 3 },
 * };
 * assert.equal(ds.status?.numberReady === ds.status?.desiredNumberScheduled, true);
 * ```
 */
export type DaemonSet = AppsDaemonSet;

/**
 * batch/v1 Job.
 *
 * @example Did a job finish?
 * ```ts
 * import type { Job } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const job: Job = { metadata: { name: "report" }, status: { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] } };
 * assert.equal(job.status?.conditions?.some((c) => c.type === "Complete" && c.status === "True"), true);
 * ```
 */
export type Job = BatchJob;

/**
 * batch/v1 CronJob.
 *
 * @example The cron jobs that will run
 * ```ts
 * import type { CronJob } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const jobTemplate = { spec: { template: { spec: { containers: [{ name: "report", image: "report:1" }] } } } };
 * const cronJobs: CronJob[] = [
 *   { metadata: { name: "nightly" }, spec: { schedule: "0 3 * * *", suspend: false, jobTemplate } },
 *   { metadata: { name: "paused" }, spec: { schedule: "30 2 * * 1", suspend: true, jobTemplate } },
 * ];
 * const scheduled = cronJobs.filter((cj) => !cj.spec?.suspend).map((cj) => `${cj.metadata.name}: ${cj.spec?.schedule}`);
 * assert.deepEqual(scheduled, ["nightly: 0 3 * * *"]);
 * ```
 */
export type CronJob = BatchCronJob;

/**
 * core/v1 Event (named `KubeEvent` so it does not shadow the global DOM
 * `Event` where it is imported).
 *
 * @example What an event is about
 * ```ts
 * import type { KubeEvent } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ev: KubeEvent = {
 *   metadata: { name: "web-1.17a" },
 *   involvedObject: { kind: "Pod", namespace: "default", name: "web-1" },
 *   reason: "BackOff",
 *   type: "Warning",
 *   count: 4,
 * };
 * assert.equal(`${ev.involvedObject?.kind}/${ev.involvedObject?.name}: ${ev.reason}`, "Pod/web-1: BackOff");
 * ```
 */
export type KubeEvent = CoreEvent;

/**
 * coordination.k8s.io/v1 Lease (leader election, node heartbeats).
 *
 * @example Has the holder let its lease run out?
 * ```ts
 * import type { Lease } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const expired = (lease: Lease, nowMs: number) =>
 *   !lease.spec?.holderIdentity || !lease.spec.renewTime ||
 *   Date.parse(lease.spec.renewTime) + (lease.spec.leaseDurationSeconds ?? 0) * 1000 < nowMs;
 * const lease: Lease = {
 *   metadata: { name: "my-controller", namespace: "kube-system" },
 *   spec: { holderIdentity: "pod-1", leaseDurationSeconds: 15, renewTime: "2026-01-01T00:00:02.000000Z" },
 * };
 * assert.equal(expired(lease, Date.parse("2026-01-01T00:00:10Z")), false);
 * assert.equal(expired(lease, Date.parse("2026-01-01T00:00:20Z")), true);
 * ```
 */
export type Lease = CoordinationLease;

/**
 * core/v1 ServiceAccount.
 *
 * @example The pull secrets a service account gives its pods
 * ```ts
 * import type { ServiceAccount } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const sa: ServiceAccount = { metadata: { name: "builder" }, imagePullSecrets: [{ name: "registry" }] };
 * assert.deepEqual(sa.imagePullSecrets?.map((s) => s.name), ["registry"]);
 * ```
 */
export type ServiceAccount = CoreServiceAccount;

/**
 * core/v1 PersistentVolume (cluster-scoped).
 *
 * @example Is a volume free to bind?
 * ```ts
 * import type { PersistentVolume } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const pv: PersistentVolume = {
 *   metadata: { name: "pv-1" },
 *   spec: { capacity: { storage: "10Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" } },
 *   status: { phase: "Available" },
 * };
 * assert.equal(pv.status?.phase === "Available" && pv.spec?.claimRef === undefined, true);
 * ```
 */
export type PersistentVolume = CorePersistentVolume;

/**
 * core/v1 PersistentVolumeClaim.
 *
 * @example The storage a claim asks for
 * ```ts
 * import type { PersistentVolumeClaim } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const pvc: PersistentVolumeClaim = {
 *   metadata: { name: "data", namespace: "default" },
 *   spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
 * };
 * assert.equal(pvc.spec?.resources?.requests?.storage, "1Gi");
 * ```
 */
export type PersistentVolumeClaim = CorePersistentVolumeClaim;

/**
 * networking.k8s.io/v1 Ingress.
 *
 * @example The hosts an ingress routes
 * ```ts
 * import type { Ingress } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ing: Ingress = {
 *   metadata: { name: "web" },
 *   spec: {
 *     rules: [{
 *       host: "shop.example.com",
 *       http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] },
 *     }],
 *   },
 * };
 * assert.deepEqual(ing.spec?.rules?.map((r) => r.host), ["shop.example.com"]);
 * ```
 */
export type Ingress = NetworkingIngress;

/**
 * discovery.k8s.io/v1 EndpointSlice.
 *
 * @example The ready addresses of a slice
 * ```ts
 * import type { EndpointSlice } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const slice: EndpointSlice = {
 *   metadata: { name: "web-abc12", labels: { "kubernetes.io/service-name": "web" } },
 *   addressType: "IPv4",
 *   endpoints: [
 *     { addresses: ["10.0.0.5"], conditions: { ready: true } },
 *     { addresses: ["10.0.0.6"], conditions: { ready: false } },
 *   ],
 * };
 * const ready = slice.endpoints.filter((e) => e.conditions?.ready).flatMap((e) => e.addresses);
 * assert.deepEqual(ready, ["10.0.0.5"]);
 * ```
 */
export type EndpointSlice = DiscoveryEndpointSlice;

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition (cluster-scoped).
 *
 * @example The versions a CRD serves
 * ```ts
 * import type { CustomResourceDefinition } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const crd: CustomResourceDefinition = {
 *   metadata: { name: "widgets.example.com" },
 *   spec: {
 *     group: "example.com",
 *     scope: "Namespaced",
 *     names: { plural: "widgets", kind: "Widget" },
 *     versions: [{ name: "v1", served: true, storage: true }, { name: "v1beta1", served: false, storage: false }],
 *   },
 * };
 * assert.deepEqual(crd.spec.versions.filter((v) => v.served).map((v) => v.name), ["v1"]);
 * ```
 */
export type CustomResourceDefinition = ApiextensionsCustomResourceDefinition;
