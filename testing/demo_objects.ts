/**
 * Internal builders of realistic Kubernetes objects for the demo workload
 * and the benchmarks: pods shaped like what a real apiserver returns (about
 * 4 KB of JSON with managedFields), deployments, replica sets, nodes,
 * leases, config maps. Not exported from `mod.ts`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { PodStatus } from "../api/types.ts";
import { resourceType } from "../api/resources.ts";
import type { Rng } from "./rng.ts";

/** An RFC 3339 timestamp with second precision, as the apiserver writes it. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(
    ".000Z",
    "Z",
  );
}

/** A container status as the kubelet reports it (the fields the demo uses). */
export interface ContainerStatus {
  name: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  state: Record<string, Record<string, unknown>>;
  lastState: Record<string, Record<string, unknown>>;
  [k: string]: unknown;
}

/** A pod condition (`PodScheduled`, `Ready`, ...). */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
  reason?: string;
  message?: string;
  [k: string]: unknown;
}

/** The pod shape the demo and the benchmarks build. */
export interface Pod extends KubeObject {
  apiVersion?: "v1";
  kind?: "Pod";
  spec: {
    nodeName?: string;
    containers: { name: string; image: string; [k: string]: unknown }[];
    [k: string]: unknown;
  };
  /** core/v1 `PodStatus`, narrowed: the phase is always set; conditions and container statuses have the demo's shapes. */
  status:
    & PodStatus
    & {
      phase: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";
      conditions?: Condition[];
      containerStatuses?: ContainerStatus[];
    };
}

/** What {@link makePod} needs to know. */
export interface PodSpec {
  namespace: string;
  /** Owner (a ReplicaSet or a Job) name; the pod name is `owner-xxxxx`. */
  owner: string;
  ownerKind: "ReplicaSet" | "Job";
  ownerUid: string;
  app: string;
  image: string;
  /** Pod-template-hash label for ReplicaSet pods. */
  hash?: string;
  createdMs: number;
  rng: Rng;
}

const MANAGER_TIME_FIELDS = {
  "f:metadata": {
    "f:generateName": {},
    "f:labels": { ".": {}, "f:app": {}, "f:pod-template-hash": {} },
    "f:ownerReferences": { ".": {}, 'k:{"uid":"owner"}': {} },
  },
  "f:spec": {
    "f:containers": {
      'k:{"name":"main"}': {
        ".": {},
        "f:env": {
          ".": {},
          'k:{"name":"LOG_LEVEL"}': { ".": {}, "f:name": {}, "f:value": {} },
          'k:{"name":"POD_NAME"}': { ".": {}, "f:name": {}, "f:valueFrom": {} },
        },
        "f:image": {},
        "f:imagePullPolicy": {},
        "f:livenessProbe": { ".": {}, "f:httpGet": {}, "f:periodSeconds": {} },
        "f:name": {},
        "f:ports": { ".": {}, 'k:{"containerPort":8080,"protocol":"TCP"}': {} },
        "f:readinessProbe": { ".": {}, "f:httpGet": {}, "f:periodSeconds": {} },
        "f:resources": { ".": {}, "f:limits": {}, "f:requests": {} },
        "f:terminationMessagePath": {},
        "f:terminationMessagePolicy": {},
      },
    },
    "f:dnsPolicy": {},
    "f:enableServiceLinks": {},
    "f:restartPolicy": {},
    "f:schedulerName": {},
    "f:securityContext": {},
    "f:terminationGracePeriodSeconds": {},
  },
};

const KUBELET_FIELDS = {
  "f:status": {
    "f:conditions": {
      'k:{"type":"ContainersReady"}': { ".": {}, "f:status": {}, "f:type": {} },
      'k:{"type":"Initialized"}': { ".": {}, "f:status": {}, "f:type": {} },
      'k:{"type":"Ready"}': { ".": {}, "f:status": {}, "f:type": {} },
    },
    "f:containerStatuses": {},
    "f:hostIP": {},
    "f:phase": {},
    "f:podIP": {},
    "f:startTime": {},
  },
};

/**
 * A pending, unscheduled pod shaped like a real one (about 4 KB of JSON once
 * scheduled and running, managedFields included).
 */
export function makePod(spec: PodSpec): Pod {
  const { rng, namespace } = spec;
  const name = `${spec.owner}-${rng.suffix(5)}`;
  const created = rfc3339(spec.createdMs);
  const labels: Record<string, string> = { app: spec.app };
  if (spec.hash) labels["pod-template-hash"] = spec.hash;
  else labels["batch.kubernetes.io/job-name"] = spec.owner;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      generateName: `${spec.owner}-`,
      namespace,
      uid: rng.uuid(),
      creationTimestamp: created,
      labels,
      annotations: {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
      },
      ownerReferences: [{
        apiVersion: spec.ownerKind === "Job" ? "batch/v1" : "apps/v1",
        kind: spec.ownerKind,
        name: spec.owner,
        uid: spec.ownerUid,
        controller: true,
        blockOwnerDeletion: true,
      }],
      managedFields: [
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "v1",
          time: created,
          fieldsType: "FieldsV1",
          fieldsV1: MANAGER_TIME_FIELDS,
        },
        {
          manager: "kubelet",
          operation: "Update",
          apiVersion: "v1",
          time: created,
          fieldsType: "FieldsV1",
          fieldsV1: KUBELET_FIELDS,
          subresource: "status",
        },
      ],
    },
    spec: {
      containers: [{
        name: "main",
        image: spec.image,
        imagePullPolicy: "IfNotPresent",
        ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
        env: [
          { name: "LOG_LEVEL", value: "info" },
          {
            name: "POD_NAME",
            valueFrom: {
              fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" },
            },
          },
        ],
        resources: {
          limits: { cpu: "500m", memory: "256Mi" },
          requests: { cpu: "100m", memory: "128Mi" },
        },
        livenessProbe: {
          httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" },
          periodSeconds: 10,
          timeoutSeconds: 1,
          successThreshold: 1,
          failureThreshold: 3,
        },
        readinessProbe: {
          httpGet: { path: "/ready", port: 8080, scheme: "HTTP" },
          periodSeconds: 5,
          timeoutSeconds: 1,
          successThreshold: 1,
          failureThreshold: 3,
        },
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
        volumeMounts: [{
          name: `kube-api-access-${rng.suffix(5)}`,
          mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
          readOnly: true,
        }],
      }],
      restartPolicy: spec.ownerKind === "Job" ? "Never" : "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      serviceAccount: "default",
      securityContext: {},
      schedulerName: "default-scheduler",
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    },
    status: { phase: "Pending", qosClass: "Burstable" },
  };
}

/** A deep copy, so the server's stored object is never mutated behind it. */
export function clone<T>(obj: T): T {
  return structuredClone(obj);
}

/** The pod after the scheduler bound it to `node`. */
export function scheduled(pod: Pod, node: string, nowMs: number): Pod {
  const next = clone(pod);
  const now = rfc3339(nowMs);
  next.spec.nodeName = node;
  next.status = {
    ...next.status,
    phase: "Pending",
    hostIP: nodeIP(node),
    startTime: now,
    conditions: [
      condition("PodReadyToStartContainers", "False", now),
      condition("Initialized", "True", now),
      condition("Ready", "False", now, "ContainersNotReady"),
      condition("ContainersReady", "False", now, "ContainersNotReady"),
      condition("PodScheduled", "True", now),
    ],
    containerStatuses: [{
      name: "main",
      ready: false,
      started: false,
      restartCount: 0,
      image: pod.spec.containers[0].image,
      imageID: "",
      state: { waiting: { reason: "ContainerCreating" } },
      lastState: {},
    }],
  };
  return next;
}

/** The pod with its container started; `ready` says whether probes passed. */
export function running(
  pod: Pod,
  opts: { nowMs: number; ready: boolean; rng: Rng },
): Pod {
  const next = clone(pod);
  const now = rfc3339(opts.nowMs);
  const cs = next.status.containerStatuses![0];
  cs.state = { running: { startedAt: now } };
  cs.ready = opts.ready;
  cs.started = true;
  cs.imageID ||= `${cs.image.split(":")[0]}@sha256:${opts.rng.suffix(16)}`;
  cs.containerID = `containerd://${opts.rng.suffix(24)}`;
  next.status.phase = "Running";
  next.status.podIP ??= `10.244.${opts.rng.int(4)}.${2 + opts.rng.int(250)}`;
  setConditions(next, opts.ready, now);
  return next;
}

/** The pod after its container crashed: restart counted, back-off waiting. */
export function crashed(pod: Pod, nowMs: number): Pod {
  const next = clone(pod);
  const now = rfc3339(nowMs);
  const cs = next.status.containerStatuses![0];
  const startedAt = cs.state.running?.startedAt ?? now;
  cs.lastState = {
    terminated: {
      exitCode: 137,
      reason: "Error",
      startedAt,
      finishedAt: now,
      containerID: cs.containerID,
    },
  };
  cs.state = {
    waiting: {
      reason: "CrashLoopBackOff",
      message: "back-off 10s restarting failed container",
    },
  };
  cs.ready = false;
  cs.started = false;
  cs.restartCount += 1;
  setConditions(next, false, now);
  return next;
}

/** The pod after its only container exited: Succeeded or Failed. */
export function finished(pod: Pod, nowMs: number, succeeded: boolean): Pod {
  const next = clone(pod);
  const now = rfc3339(nowMs);
  const cs = next.status.containerStatuses![0];
  cs.state = {
    terminated: {
      exitCode: succeeded ? 0 : 1,
      reason: succeeded ? "Completed" : "Error",
      startedAt: cs.state.running?.startedAt ?? now,
      finishedAt: now,
      containerID: cs.containerID,
    },
  };
  cs.ready = false;
  cs.started = false;
  next.status.phase = succeeded ? "Succeeded" : "Failed";
  setConditions(next, false, now);
  return next;
}

/** The pod with a graceful deletion requested (kubectl shows Terminating). */
export function terminating(pod: Pod, nowMs: number): Pod {
  const next = clone(pod);
  next.metadata.deletionTimestamp = rfc3339(nowMs + 30_000);
  next.metadata.deletionGracePeriodSeconds = 30;
  return next;
}

function setConditions(pod: Pod, ready: boolean, now: string): void {
  for (const c of pod.status.conditions ?? []) {
    if (c.type === "Ready" || c.type === "ContainersReady") {
      const status = ready ? "True" : "False";
      if (c.status !== status) c.lastTransitionTime = now;
      c.status = status;
      if (ready) delete c.reason;
      else c.reason = "ContainersNotReady";
    } else if (c.type === "PodReadyToStartContainers") {
      c.status = "True";
    }
  }
}

function condition(
  type: string,
  status: "True" | "False",
  now: string,
  reason?: string,
): Condition {
  const c: Condition = {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: now,
  };
  if (reason) c.reason = reason;
  return c;
}

/** The host IP the demo gives a node name. */
export function nodeIP(node: string): string {
  const n = Number(node.match(/\d+$/)?.[0] ?? 0);
  return `172.18.0.${2 + n}`;
}

/** A Ready node with kubelet heartbeat conditions. */
export function makeNode(
  name: string,
  createdMs: number,
  rng: Rng,
): KubeObject {
  const now = rfc3339(createdMs);
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      uid: rng.uuid(),
      creationTimestamp: now,
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        // kind's naming: the control-plane node shows ROLES control-plane.
        ...(name.endsWith("control-plane")
          ? { "node-role.kubernetes.io/control-plane": "" }
          : {}),
      },
    },
    spec: { podCIDR: `10.244.${nodeIP(name).split(".")[3]}.0/24` },
    status: {
      conditions: [
        "MemoryPressure",
        "DiskPressure",
        "PIDPressure",
        "Ready",
      ].map((type) => ({
        type,
        status: type === "Ready" ? "True" : "False",
        lastHeartbeatTime: now,
        lastTransitionTime: now,
        reason: type === "Ready" ? "KubeletReady" : `KubeletHasNo${type}`,
      })),
      addresses: [{ type: "InternalIP", address: nodeIP(name) }, {
        type: "Hostname",
        address: name,
      }],
      nodeInfo: {
        kubeletVersion: "v1.33.1",
        kubeProxyVersion: "v1.33.1",
        osImage: "Debian GNU/Linux 12 (bookworm)",
        kernelVersion: "6.8.0-1015-aws",
        containerRuntimeVersion: "containerd://2.1.1",
        operatingSystem: "linux",
        architecture: "amd64",
      },
    },
  } as KubeObject;
}

/** The node with its conditions' heartbeat times refreshed. */
export function heartbeat(node: KubeObject, nowMs: number): KubeObject {
  const next = clone(node) as KubeObject & {
    status: { conditions: Condition[] };
  };
  for (const c of next.status.conditions) c.lastHeartbeatTime = rfc3339(nowMs);
  return next;
}

/** A node lease in kube-node-lease, renewed by the kubelet. */
export function makeLease(node: string, nowMs: number, rng: Rng): KubeObject {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      name: node,
      namespace: "kube-node-lease",
      uid: rng.uuid(),
      creationTimestamp: rfc3339(nowMs),
    },
    spec: {
      holderIdentity: node,
      leaseDurationSeconds: 40,
      renewTime: new Date(nowMs).toISOString(),
    },
  } as KubeObject;
}

/** The lease renewed now. */
export function renewed(lease: KubeObject, nowMs: number): KubeObject {
  const next = clone(lease) as KubeObject & { spec: { renewTime: string } };
  next.spec.renewTime = new Date(nowMs).toISOString();
  return next;
}

/** A deployment's shape as the demo keeps it. */
export interface Deployment extends KubeObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: { containers: { name: string; image: string }[] };
    };
    [k: string]: unknown;
  };
  status: {
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    [k: string]: unknown;
  };
}

/** A deployment with no status yet. */
export function makeDeployment(opts: {
  namespace: string;
  name: string;
  replicas: number;
  image: string;
  createdMs: number;
  rng: Rng;
}): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: opts.name,
      namespace: opts.namespace,
      uid: opts.rng.uuid(),
      generation: 1,
      creationTimestamp: rfc3339(opts.createdMs),
      labels: { app: opts.name },
      annotations: { "deployment.kubernetes.io/revision": "1" },
    },
    spec: {
      replicas: opts.replicas,
      selector: { matchLabels: { app: opts.name } },
      strategy: {
        type: "RollingUpdate",
        rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
      },
      template: {
        metadata: { labels: { app: opts.name } },
        spec: { containers: [{ name: "main", image: opts.image }] },
      },
    },
    status: {},
  };
}

/** A ReplicaSet owned by a deployment, for one pod-template hash. */
export function makeReplicaSet(
  deployment: Deployment,
  opts: { hash: string; replicas: number; createdMs: number; rng: Rng },
): KubeObject {
  const app = deployment.metadata.name!;
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: `${app}-${opts.hash}`,
      namespace: deployment.metadata.namespace,
      uid: opts.rng.uuid(),
      creationTimestamp: rfc3339(opts.createdMs),
      labels: { app, "pod-template-hash": opts.hash },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: app,
        uid: deployment.metadata.uid!,
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: {
      replicas: opts.replicas,
      selector: { matchLabels: { app, "pod-template-hash": opts.hash } },
      template: deployment.spec.template,
    },
    // The workload publishes the counts once its pods exist.
    status: { replicas: 0 },
  } as KubeObject;
}

/** A config map with string data. */
export function makeConfigMap(opts: {
  namespace: string;
  name: string;
  data: Record<string, string>;
  createdMs: number;
  rng: Rng;
}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: opts.name,
      namespace: opts.namespace,
      uid: opts.rng.uuid(),
      creationTimestamp: rfc3339(opts.createdMs),
    },
    data: opts.data,
  } as KubeObject;
}

/** A namespace object. */
export function makeNamespace(name: string, createdMs: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      creationTimestamp: rfc3339(createdMs),
      labels: { "kubernetes.io/metadata.name": name },
    },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  } as KubeObject;
}

/**
 * A namespaced custom resource type (`widgets.example.com`, short name
 * `wd`) for tests of discovery and name resolution.
 */
export const Widgets = resourceType({
  apiVersion: "example.com/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
  shortNames: ["wd"],
});
