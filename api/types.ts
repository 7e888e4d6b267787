/**
 * Minimal shapes of the built-in Kubernetes kinds (the k8s.io/api structs
 * client-go's typed listers return), reduced to the fields code commonly
 * reads. Every field is optional and any other field is still allowed, so a
 * server object always fits; the built-in resource constants (`Pods`,
 * `Deployments`, ...) are typed with them.
 *
 * @example Index pods by node
 * ```ts
 * import type { IndexFunc, Pod } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const byNode: IndexFunc<Pod> = (pod) =>
 *   pod.spec?.nodeName ? [pod.spec.nodeName] : [];
 * assert.deepEqual(byNode({ metadata: { name: "a" }, spec: { nodeName: "n1" } }), ["n1"]);
 * ```
 *
 * @module
 */

import type { KubeObject, ObjectMeta } from "./object.ts";

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
export interface Container {
  /** Container name, unique within the pod. */
  name: string;
  /** Image reference, e.g. `"nginx:1.27"`. */
  image?: string;
  /** Entrypoint override. */
  command?: string[];
  /** Arguments to the entrypoint. */
  args?: string[];
  /** Environment variables. */
  env?: { name: string; value?: string; [field: string]: unknown }[];
  /** Exposed ports. */
  ports?: {
    containerPort: number;
    name?: string;
    protocol?: string;
    [field: string]: unknown;
  }[];
  /** Resource requests and limits, e.g. `{ requests: { cpu: "100m" } }`. */
  resources?: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
  };
  /** Other fields (probes, volumeMounts, ...). */
  [field: string]: unknown;
}

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
export interface ContainerState {
  /** Running since `startedAt` (RFC 3339). */
  running?: { startedAt?: string };
  /** Waiting, e.g. `{ reason: "CrashLoopBackOff" }`. */
  waiting?: { reason?: string; message?: string };
  /** Terminated with an exit code. */
  terminated?: {
    exitCode: number;
    reason?: string;
    message?: string;
    startedAt?: string;
    finishedAt?: string;
    [field: string]: unknown;
  };
}

/**
 * The status of one container of a pod (core/v1 `ContainerStatus`).
 *
 * @example Count restarts
 * ```ts
 * import type { ContainerStatus } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const statuses: ContainerStatus[] = [
 *   { name: "web", ready: true, restartCount: 2 },
 *   { name: "sidecar", ready: true, restartCount: 1 },
 * ];
 * assert.equal(statuses.reduce((n, s) => n + s.restartCount, 0), 3);
 * ```
 */
export interface ContainerStatus {
  /** Container name. */
  name: string;
  /** Whether the readiness probe passes. */
  ready: boolean;
  /** Restarts so far. */
  restartCount: number;
  /** Current state. */
  state?: ContainerState;
  /** Image the container runs. */
  image?: string;
  /** The state of the previous run (its `terminated.finishedAt` dates the last restart). */
  lastState?: ContainerState;
  /** Whether the container has passed its startup probe. */
  started?: boolean;
  /** Other fields. */
  [field: string]: unknown;
}

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
export interface PodTemplateSpec {
  /** Labels and annotations of the created pods. */
  metadata?: ObjectMeta;
  /** The pods' spec. */
  spec?: PodSpec;
}

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
export interface PodSpec {
  /** Node the pod is bound to; unset while pending scheduling. */
  nodeName?: string;
  /** The containers. */
  containers?: Container[];
  /** Containers run to completion before `containers` start. */
  initContainers?: Container[];
  /** `"Always"`, `"OnFailure"` or `"Never"`. */
  restartPolicy?: string;
  /** Service account the pod runs as. */
  serviceAccountName?: string;
  /** Node labels the pod requires. */
  nodeSelector?: Record<string, string>;
  /** Extra conditions the pod's readiness waits for (kubectl's READINESS GATES). */
  readinessGates?: { conditionType: string }[];
  /** Other fields (volumes, tolerations, affinity, ...). */
  [field: string]: unknown;
}

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
export interface PodStatus {
  /** `"Pending"`, `"Running"`, `"Succeeded"`, `"Failed"` or `"Unknown"`. */
  phase?: string;
  /** Conditions such as `Ready` and `PodScheduled`. */
  conditions?: Condition[];
  /** Per-container status. */
  containerStatuses?: ContainerStatus[];
  /** Pod IP address. */
  podIP?: string;
  /** IP address of the node. */
  hostIP?: string;
  /** RFC 3339 time the kubelet acknowledged the pod. */
  startTime?: string;
  /** Short reason of the phase, e.g. `"Evicted"`. */
  reason?: string;
  /** Init containers' statuses, in spec order. */
  initContainerStatuses?: ContainerStatus[];
  /** The node a preemption made room on, before the pod is bound there. */
  nominatedNodeName?: string;
  /** Other fields. */
  [field: string]: unknown;
}

/**
 * core/v1 Pod.
 *
 * @example Pods of a node, from a lister
 * ```ts
 * import { metaNamespaceKeyFunc, newGenericLister, newIndexer, type Pod } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const indexer = newIndexer<Pod>(metaNamespaceKeyFunc, {});
 * indexer.add({ metadata: { name: "web-1", namespace: "default" }, spec: { nodeName: "node-a" }, status: { phase: "Running" } });
 * const onNodeA = newGenericLister(indexer).list().filter((p) => p.spec?.nodeName === "node-a");
 * assert.equal(onNodeA.length, 1);
 * ```
 */
export interface Pod extends KubeObject {
  /** Desired state. */
  spec?: PodSpec;
  /** Observed state. */
  status?: PodStatus;
}

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
export interface ConfigMap extends KubeObject {
  /** UTF-8 entries. */
  data?: Record<string, string>;
  /** Binary entries, base64-encoded. */
  binaryData?: Record<string, string>;
  /** Whether the data can no longer change. */
  immutable?: boolean;
}

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
export interface Secret extends KubeObject {
  /** Secret type, e.g. `"Opaque"` or `"kubernetes.io/tls"`. */
  type?: string;
  /** Entries, base64-encoded. */
  data?: Record<string, string>;
  /** Plain-text entries, write-only (the server merges them into `data`). */
  stringData?: Record<string, string>;
  /** Whether the data can no longer change. */
  immutable?: boolean;
}

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
export interface Service extends KubeObject {
  /** Desired state. */
  spec?: {
    /** `"ClusterIP"`, `"NodePort"`, `"LoadBalancer"` or `"ExternalName"`. */
    type?: string;
    /** Labels of the pods that back the service. */
    selector?: Record<string, string>;
    /** Virtual IP; `"None"` for headless services. */
    clusterIP?: string;
    /** Exposed ports. */
    ports?: {
      port: number;
      name?: string;
      protocol?: string;
      targetPort?: number | string;
      nodePort?: number;
      [field: string]: unknown;
    }[];
    /** The DNS name an `ExternalName` service aliases. */
    externalName?: string;
    /** Extra IPs the service answers on. */
    externalIPs?: string[];
    /** Other fields. */
    [field: string]: unknown;
  };
  /** Observed state (load balancer ingress). */
  status?: {
    /** The load balancer's ingress points, by IP or host name. */
    loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] };
    [field: string]: unknown;
  };
}

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
export interface Namespace extends KubeObject {
  /** Observed state. */
  status?: {
    /** `"Active"` or `"Terminating"`. */
    phase?: string;
    /** Other fields. */
    [field: string]: unknown;
  };
}

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
export interface Node extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Whether new pods may not be scheduled here (cordoned). */
    unschedulable?: boolean;
    /** Pod IP range(s) of the node. */
    podCIDR?: string;
    /** Other fields (taints, providerID, ...). */
    [field: string]: unknown;
  };
  /** Observed state. */
  status?: {
    /** Conditions such as `Ready` and `MemoryPressure`. */
    conditions?: Condition[];
    /** Addresses, e.g. `{ type: "InternalIP", address: "10.0.0.4" }`. */
    addresses?: { type: string; address: string }[];
    /** Versions of the node's software. */
    nodeInfo?: {
      kubeletVersion?: string;
      osImage?: string;
      containerRuntimeVersion?: string;
      architecture?: string;
      operatingSystem?: string;
      [field: string]: unknown;
    };
    /** Resources available for pods, e.g. `{ cpu: "4", pods: "110" }`. */
    allocatable?: Record<string, string>;
    /** Total resources of the node. */
    capacity?: Record<string, string>;
    /** Other fields. */
    [field: string]: unknown;
  };
}

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
 *   spec: { replicas: 3 },
 *   status: { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3 },
 * };
 * assert.equal(rolledOut(web), true);
 * ```
 */
export interface Deployment extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Desired pod count (default 1). */
    replicas?: number;
    /** Selects the pods the deployment owns. */
    selector?: LabelSelector;
    /** Template of the pods. */
    template?: PodTemplateSpec;
    /** Other fields (strategy, minReadySeconds, paused, ...). */
    [field: string]: unknown;
  };
  /** Observed state. */
  status?: {
    /** Pods targeted by the deployment. */
    replicas?: number;
    /** Ready pods. */
    readyReplicas?: number;
    /** Pods of the current template. */
    updatedReplicas?: number;
    /** Pods ready for at least `minReadySeconds`. */
    availableReplicas?: number;
    /** Generation the controller has acted on. */
    observedGeneration?: number;
    /** Conditions such as `Available` and `Progressing`. */
    conditions?: Condition[];
    /** Other fields. */
    [field: string]: unknown;
  };
}

/**
 * apps/v1 ReplicaSet.
 *
 * @example Ready replicas
 * ```ts
 * import type { ReplicaSet } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const rs: ReplicaSet = { metadata: { name: "web-6d4b" }, spec: { replicas: 2 }, status: { replicas: 2, readyReplicas: 1 } };
 * assert.equal(`${rs.status?.readyReplicas ?? 0}/${rs.spec?.replicas}`, "1/2");
 * ```
 */
export interface ReplicaSet extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Desired pod count. */
    replicas?: number;
    /** Selects the pods the replica set owns. */
    selector?: LabelSelector;
    /** Template of the pods. */
    template?: PodTemplateSpec;
    /** Other fields. */
    [field: string]: unknown;
  };
  /** Observed state. */
  status?: {
    /** Current pod count. */
    replicas?: number;
    /** Ready pods. */
    readyReplicas?: number;
    /** Available pods. */
    availableReplicas?: number;
    /** Other fields. */
    [field: string]: unknown;
  };
}

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
 * const db: StatefulSet = { metadata: { name: "db", namespace: "shop" }, spec: { replicas: 2, serviceName: "db-headless" } };
 * assert.deepEqual(podNames(db), ["db-0.db-headless.shop.svc", "db-1.db-headless.shop.svc"]);
 * ```
 */
export interface StatefulSet extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Desired pod count. */
    replicas?: number;
    /** Selects the pods the set owns. */
    selector?: LabelSelector;
    /** Template of the pods. */
    template?: PodTemplateSpec;
    /** Headless service that gives the pods their network identity. */
    serviceName?: string;
    /** Other fields (volumeClaimTemplates, updateStrategy, ...). */
    [field: string]: unknown;
  };
  /** Observed state. */
  status?: {
    /** Current pod count. */
    replicas?: number;
    /** Ready pods. */
    readyReplicas?: number;
    /** Pods of the current revision. */
    updatedReplicas?: number;
    /** Available pods. */
    availableReplicas?: number;
    /** Other fields. */
    [field: string]: unknown;
  };
}

/**
 * apps/v1 DaemonSet.
 *
 * @example Scheduled everywhere?
 * ```ts
 * import type { DaemonSet } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ds: DaemonSet = { metadata: { name: "agent" }, status: { desiredNumberScheduled: 3, numberReady: 3 } };
 * assert.equal(ds.status?.numberReady === ds.status?.desiredNumberScheduled, true);
 * ```
 */
export interface DaemonSet extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Selects the pods the daemon set owns. */
    selector?: LabelSelector;
    /** Template of the pods. */
    template?: PodTemplateSpec;
    /** Other fields. */
    [field: string]: unknown;
  };
  /** Observed state. */
  status?: {
    /** Nodes that should run the pod. */
    desiredNumberScheduled?: number;
    /** Nodes running the pod. */
    currentNumberScheduled?: number;
    /** Nodes whose pod is ready. */
    numberReady?: number;
    /** Nodes running the current template. */
    updatedNumberScheduled?: number;
    /** Other fields. */
    [field: string]: unknown;
  };
}

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
export interface Job extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Successful pods needed to complete. */
    completions?: number;
    /** Pods run at once. */
    parallelism?: number;
    /** Retries before the job fails. */
    backoffLimit?: number;
    /** Template of the pods. */
    template?: PodTemplateSpec;
    /** The pods the job counts as its own. */
    selector?: LabelSelector;
    /** Other fields. */
    [field: string]: unknown;
  };
  /** Observed state. */
  status?: {
    /** Running pods. */
    active?: number;
    /** Pods that succeeded. */
    succeeded?: number;
    /** Pods that failed. */
    failed?: number;
    /** RFC 3339 start time. */
    startTime?: string;
    /** RFC 3339 completion time. */
    completionTime?: string;
    /** Conditions such as `Complete` and `Failed`. */
    conditions?: Condition[];
    /** Other fields. */
    [field: string]: unknown;
  };
}

/**
 * batch/v1 CronJob.
 *
 * @example The cron jobs that will run
 * ```ts
 * import type { CronJob } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const cronJobs: CronJob[] = [
 *   { metadata: { name: "nightly" }, spec: { schedule: "0 3 * * *", suspend: false } },
 *   { metadata: { name: "paused" }, spec: { schedule: "30 2 * * 1", suspend: true } },
 * ];
 * const scheduled = cronJobs.filter((cj) => !cj.spec?.suspend).map((cj) => `${cj.metadata.name}: ${cj.spec?.schedule}`);
 * assert.deepEqual(scheduled, ["nightly: 0 3 * * *"]);
 * ```
 */
export interface CronJob extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Cron schedule, e.g. `"0 * * * *"` (hourly). */
    schedule?: string;
    /** Whether new runs are held back. */
    suspend?: boolean;
    /** Template of the jobs. */
    jobTemplate?: { metadata?: ObjectMeta; spec?: Job["spec"] };
    /** The time zone of `schedule`, e.g. `"Etc/UTC"`; unset: the controller's. */
    timeZone?: string;
    /** Other fields. */
    [field: string]: unknown;
  };
  /** Observed state. */
  status?: {
    /** RFC 3339 time of the last scheduled run. */
    lastScheduleTime?: string;
    /** RFC 3339 time of the last successful run. */
    lastSuccessfulTime?: string;
    /** The jobs running now. */
    active?: { name?: string; namespace?: string; [field: string]: unknown }[];
    /** Other fields. */
    [field: string]: unknown;
  };
}

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
export interface KubeEvent extends KubeObject {
  /** The object the event is about. */
  involvedObject?: {
    kind?: string;
    namespace?: string;
    name?: string;
    uid?: string;
    /** The part of the object the event is about, e.g. `spec.containers{web}`. */
    fieldPath?: string;
    [field: string]: unknown;
  };
  /** Machine-readable reason, e.g. `"BackOff"`. */
  reason?: string;
  /** Human-readable description. */
  message?: string;
  /** `"Normal"` or `"Warning"`. */
  type?: string;
  /** Times this event occurred. */
  count?: number;
  /** RFC 3339 time of the first occurrence. */
  firstTimestamp?: string;
  /** RFC 3339 time of the latest occurrence. */
  lastTimestamp?: string;
  /** Reporting component, e.g. `{ component: "kubelet" }`. */
  source?: { component?: string; host?: string };
  /** events.k8s.io time of the first occurrence (MicroTime), when `firstTimestamp` is unset. */
  eventTime?: string | null;
  /** Controller that reported it (events.k8s.io), when `source` is unset. */
  reportingComponent?: string;
  /** Instance of that controller, e.g. a node name. */
  reportingInstance?: string;
  /** A series of the same event: how many so far and the latest time. */
  series?: { count?: number; lastObservedTime?: string };
}

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
export interface Lease extends KubeObject {
  /** Desired state. */
  spec?: {
    /** Identity of the current holder. */
    holderIdentity?: string;
    /** Seconds the holder's lease lasts after `renewTime`. */
    leaseDurationSeconds?: number;
    /** RFC 3339 (micro) time the lease was acquired. */
    acquireTime?: string;
    /** RFC 3339 (micro) time the holder last renewed. */
    renewTime?: string;
    /** Times the lease changed hands. */
    leaseTransitions?: number;
    /** Other fields. */
    [field: string]: unknown;
  };
}
