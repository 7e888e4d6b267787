/**
 * kubectl's printers, shared by the CLI and `testing/FakeApiServer`: the
 * Table columns kube-apiserver's `TableConvertor`s produce for the
 * built-in kinds (kubernetes `pkg/printers/internalversion/printers.go`),
 * with the cells of one object, and kubectl's age format (apimachinery
 * `duration.HumanDuration`). One implementation: the fake server answers
 * `as=Table` with these columns and the CLI prints them.
 *
 * @module
 */

import {
  age,
  AGE_COLUMN,
  ageOf,
  col,
  containerCells,
  CONTAINERS,
  humanDuration,
  IMAGES,
  NAME_COLUMN,
  none,
  type TableColumns,
} from "./printer_columns.ts";
import { formatLabelSelector, labelSelectorString } from "./printer_columns.ts";
import { CRON_JOBS, JOBS } from "./_printers_batch.ts";
import type {
  ConfigMap,
  Deployment,
  KubeEvent,
  Lease,
  Namespace,
  Node,
  Pod,
  PodSpec,
  PodStatus,
  ReplicaSet,
  Secret,
  Service,
} from "../api/types.ts";
import type { NodeSystemInfo } from "../api/core/v1.ts";

export {
  age,
  AGE_COLUMN,
  humanDuration,
  NAME_COLUMN,
  type PrinterColumn,
  type TableColumns,
} from "./printer_columns.ts";

/**
 * kubectl's pod READY, STATUS, RESTARTS (with "(5m ago)") columns.
 *
 * @example kubectl's pod columns
 * ```ts
 * import { podSummary } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * const pod = {
 *   metadata: { name: "web-1" },
 *   spec: { containers: [{ name: "web" }] },
 *   status: {
 *     phase: "Running",
 *     containerStatuses: [{ name: "web", ready: true, restartCount: 0, state: { running: {} } }],
 *   },
 * };
 * assert.deepEqual(podSummary(pod, Date.now()), { ready: "1/1", status: "Running", restarts: "0" });
 * ```
 */
export function podSummary(
  obj: unknown,
  nowMs: number,
): { ready: string; status: string; restarts: string } {
  const pod = obj as Pod;
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const status: PodStatus = pod.status ?? {};
  const total = (spec.containers ?? []).length;
  let reason: string = status.reason || status.phase || "Unknown";
  for (const c of status.conditions ?? []) {
    if (c.type === "PodScheduled" && c.reason === "SchedulingGated") {
      reason = "SchedulingGated";
    }
  }
  const init = initReason(spec, status);
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  if (init !== undefined) reason = init;
  else {
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      restarts += c.restartCount ?? 0;
      const finished = Date.parse(c.lastState?.terminated?.finishedAt ?? "");
      if (finished > lastRestart) lastRestart = finished;
      const { waiting, terminated, running } = c.state ?? {};
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) {
        reason = terminated.signal
          ? `Signal:${terminated.signal}`
          : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (c.ready && running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed" && hasRunning) {
      const podReady = (status.conditions ?? []).some((c) =>
        c.type === "Ready" && c.status === "True"
      );
      reason = podReady ? "Running" : "NotReady";
    }
  }
  const terminal = status.phase === "Succeeded" || status.phase === "Failed";
  if (pod.metadata?.deletionTimestamp) {
    if (status.reason === "NodeLost") reason = "Unknown";
    else if (!terminal) reason = "Terminating";
  }
  const restartsText = restarts !== 0 && lastRestart > 0
    ? `${restarts} (${humanDuration(nowMs - lastRestart)} ago)`
    : String(restarts);
  return { ready: `${ready}/${total}`, status: reason, restarts: restartsText };
}

/** `Init:1/3`, `Init:CrashLoopBackOff`, ... while init containers run. */
function initReason(spec: PodSpec, status: PodStatus): string | undefined {
  const inits = status.initContainerStatuses ?? [];
  const total = (spec.initContainers ?? []).length;
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    const { waiting, terminated } = c.state ?? {};
    if (terminated?.exitCode === 0) continue;
    if (c.started && spec.initContainers?.[i]?.restartPolicy === "Always") {
      continue; // a running sidecar does not hold the pod in Init
    }
    if (terminated) {
      return terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
        ? `Init:Signal:${terminated.signal}`
        : `Init:ExitCode:${terminated.exitCode}`;
    }
    if (waiting?.reason && waiting.reason !== "PodInitializing") {
      return `Init:${waiting.reason}`;
    }
    return `Init:${i}/${total}`;
  }
  return undefined;
}

const PODS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Ready",
      "The aggregate readiness state of this pod for accepting traffic.",
    ),
    col("Status", "The aggregate status of the containers in this pod."),
    col(
      "Restarts",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE_COLUMN,
    col(
      "IP",
      "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
      1,
    ),
    col(
      "Node",
      "NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements.",
      1,
    ),
    col(
      "Nominated Node",
      "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
      1,
    ),
    col(
      "Readiness Gates",
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      1,
    ),
  ],
  cells: (pod: Pod, now) => {
    const s = podSummary(pod, now);
    const gates = pod.spec?.readinessGates ?? [];
    const ok =
      gates.filter((g) =>
        (pod.status?.conditions ?? []).some((c) =>
          c.type === g.conditionType && c.status === "True"
        )
      ).length;
    return [
      pod.metadata.name ?? "",
      s.ready,
      s.status,
      s.restarts,
      ageOf(pod, now),
      none(pod.status?.podIP),
      none(pod.spec?.nodeName),
      none(pod.status?.nominatedNodeName),
      gates.length ? `${ok}/${gates.length}` : "<none>",
    ];
  },
};

const DEPLOYMENTS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Ready", "Number of the pod with ready state"),
    col(
      "Up-to-date",
      "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
    ),
    col(
      "Available",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
    ),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    col(
      "Selector",
      "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
      1,
    ),
  ],
  cells: (d: Deployment, now) => [
    d.metadata.name ?? "",
    `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
    d.status?.updatedReplicas ?? 0,
    d.status?.availableReplicas ?? 0,
    ageOf(d, now),
    ...containerCells(d.spec?.template),
    // printDeployment writes the selector's String(): "" when empty.
    labelSelectorString(d.spec?.selector) ?? "<invalid>",
  ],
};

const REPLICA_SETS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Desired",
      "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
      0,
      "integer",
    ),
    col(
      "Current",
      "Replicas is the most recently oberved number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
      0,
      "integer",
    ),
    col(
      "Ready",
      "The number of ready replicas for this replica set.",
      0,
      "integer",
    ),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    col(
      "Selector",
      "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      1,
    ),
  ],
  cells: (rs: ReplicaSet, now) => [
    rs.metadata.name ?? "",
    rs.spec?.replicas ?? 0,
    rs.status?.replicas ?? 0,
    rs.status?.readyReplicas ?? 0,
    ageOf(rs, now),
    ...containerCells(rs.spec?.template),
    formatLabelSelector(rs.spec?.selector),
  ],
};

const CONFIG_MAPS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Data",
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    AGE_COLUMN,
  ],
  cells: (cm: ConfigMap, now) => [
    cm.metadata.name ?? "",
    Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length,
    ageOf(cm, now),
  ],
};

const SECRETS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Type", "The type of the secret."),
    col("Data", "The number of entries in the secret."),
    AGE_COLUMN,
  ],
  cells: (s: Secret, now) => [
    s.metadata.name ?? "",
    s.type ?? "",
    Object.keys(s.data ?? {}).length,
    ageOf(s, now),
  ],
};

function address(node: Node, type: string): string {
  const a = (node.status?.addresses ?? []).find((x) => x.type === type);
  return none(a?.address);
}

const unknown = (v: unknown): string =>
  v === undefined || v === null || v === "" ? "<unknown>" : String(v);

const NODES: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "The status of the node"),
    col("Roles", "The roles of the node"),
    AGE_COLUMN,
    col("Version", "Kubelet Version reported by the node."),
    col("Internal-IP", "List of internal IPs in the node.", 1),
    col("External-IP", "List of external IPs in the node.", 1),
    col(
      "OS-Image",
      "OS image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
      1,
    ),
    col(
      "Kernel-Version",
      "Kernel version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    col(
      "Container-Runtime",
      "Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
      1,
    ),
  ],
  cells: (node: Node, now) => {
    const ready = (node.status?.conditions ?? []).find((c) =>
      c.type === "Ready"
    );
    let status = ready?.status === "True"
      ? "Ready"
      : ready
      ? "NotReady"
      : "Unknown";
    if (node.spec?.unschedulable) status += ",SchedulingDisabled";
    const roles = Object.keys(node.metadata.labels ?? {})
      .filter((k) => k.startsWith("node-role.kubernetes.io/"))
      .map((k) => k.slice("node-role.kubernetes.io/".length))
      .sort();
    const info: Partial<NodeSystemInfo> = node.status?.nodeInfo ?? {};
    return [
      node.metadata.name ?? "",
      status,
      roles.length ? roles.join(",") : "<none>",
      ageOf(node, now),
      info.kubeletVersion ?? "",
      address(node, "InternalIP"),
      address(node, "ExternalIP"),
      unknown(info.osImage),
      unknown(info.kernelVersion),
      unknown(info.containerRuntimeVersion),
    ];
  },
};

const NAMESPACES: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "The status of the namespace"),
    AGE_COLUMN,
  ],
  cells: (ns: Namespace, now) => [
    ns.metadata.name ?? "",
    ns.status?.phase ?? "Active",
    ageOf(ns, now),
  ],
};

const SERVICES: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Type", "The type of service."),
    col("Cluster-IP", "The cluster IP."),
    col("External-IP", "The external IP."),
    col("Port(s)", "The ports of the service."),
    AGE_COLUMN,
    col(
      "Selector",
      "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
      1,
    ),
  ],
  cells: (svc: Service, now) => {
    const spec = svc.spec ?? {};
    const type = spec.type ?? "ClusterIP";
    const ingress = (svc.status?.loadBalancer?.ingress ?? []).map((i) =>
      i.ip ?? i.hostname
    ).filter(Boolean);
    const external = type === "ExternalName"
      ? spec.externalName ?? "<none>"
      : [...(spec.externalIPs ?? []), ...ingress].join(",") ||
        (type === "LoadBalancer" ? "<pending>" : "<none>");
    const ports = (spec.ports ?? []).map((p) =>
      `${p.port}${p.nodePort ? `:${p.nodePort}` : ""}/${p.protocol ?? "TCP"}`
    ).join(",");
    const selector = Object.entries(spec.selector ?? {}).map(([k, v]) =>
      `${k}=${v}`
    ).join(",");
    return [
      svc.metadata.name ?? "",
      type,
      none(spec.clusterIP),
      external,
      ports || "<none>",
      ageOf(svc, now),
      none(selector),
    ];
  },
};

const LEASES: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Holder",
      "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
    ),
    AGE_COLUMN,
  ],
  cells: (lease: Lease, now) => [
    lease.metadata.name ?? "",
    lease.spec?.holderIdentity ?? "",
    ageOf(lease, now),
  ],
};

/** An event's Source cell: component (or reporting controller), then host (or instance). */
function eventSource(ev: KubeEvent): string {
  const component = ev.source?.component || ev.reportingComponent || "";
  const host = ev.source?.host || ev.reportingInstance || "";
  return host ? `${component}, ${host}` : component;
}

// Events have no Name column up front: kubectl shows it only with -o wide,
// last, after First Seen and Count.
const EVENTS: TableColumns = {
  columns: [
    col(
      "Last Seen",
      "The time at which the most recent occurrence of this event was recorded.",
    ),
    col(
      "Type",
      "Type of this event (Normal, Warning), new types could be added in the future",
    ),
    col(
      "Reason",
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col("Object", "The object that this event is about."),
    col(
      "Subobject",
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
      1,
    ),
    col(
      "Source",
      "The component reporting this event. Should be a short machine understandable string.",
      1,
    ),
    col(
      "Message",
      "A human-readable description of the status of this operation.",
    ),
    col(
      "First Seen",
      "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
      1,
    ),
    col("Count", "The number of times this event has occurred.", 1),
    { ...NAME_COLUMN, priority: 1 },
  ],
  cells: (ev: KubeEvent, now) => {
    // firstTimestamp, else eventTime (events.k8s.io); lastTimestamp, else
    // the first; a series' last observation and count win.
    const first = ev.firstTimestamp
      ? age(ev.firstTimestamp, now)
      : age(ev.eventTime ?? undefined, now);
    let last = ev.lastTimestamp ? age(ev.lastTimestamp, now) : first;
    let count: number = ev.count || 1;
    if (ev.series) {
      last = age(ev.series.lastObservedTime ?? undefined, now);
      count = ev.series.count ?? 0;
    }
    const kind = String(ev.involvedObject?.kind ?? "").toLowerCase();
    const name = ev.involvedObject?.name;
    return [
      last,
      ev.type ?? "",
      ev.reason ?? "",
      name ? `${kind}/${name}` : kind,
      ev.involvedObject?.fieldPath ?? "",
      eventSource(ev),
      String(ev.message ?? "").trim(),
      first,
      count,
      ev.metadata.name ?? "",
    ];
  },
};

const PRINTERS: Readonly<Record<string, TableColumns>> = {
  "/Pod": PODS,
  "/ConfigMap": CONFIG_MAPS,
  "/Secret": SECRETS,
  "/Node": NODES,
  "/Namespace": NAMESPACES,
  "/Service": SERVICES,
  "/Event": EVENTS,
  "apps/Deployment": DEPLOYMENTS,
  "apps/ReplicaSet": REPLICA_SETS,
  "batch/Job": JOBS,
  "batch/CronJob": CRON_JOBS,
  "coordination.k8s.io/Lease": LEASES,
};

/**
 * The Table columns kube-apiserver prints for a built-in kind: pods (Name,
 * Ready, Status, Restarts, Age; IP, Node, Nominated Node, Readiness Gates
 * at priority 1), configmaps (Name, Data, Age), secrets, services, nodes
 * (wide: Internal-IP, External-IP, OS-Image, Kernel-Version,
 * Container-Runtime), namespaces, deployments, replicasets, jobs (Name,
 * Status, Completions, Duration, Age), cronjobs (Name, Schedule, Timezone,
 * Suspend, Active, Last Schedule, Age), leases (Name, Holder, Age) and
 * events (Last Seen, Type, Reason, Object, Message; Name only at priority
 * 1, last).
 * @param group the API group, `""` for core
 * @param kind the kind, e.g. `"Pod"`
 * @returns the columns, or undefined for a kind without a printer (the
 *   apiserver then prints Name and Created At)
 * @example Pod columns
 * ```ts
 * import { printerFor } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * const pods = printerFor("", "Pod")!;
 * assert.deepEqual(
 *   pods.columns.filter((c) => c.priority === 0).map((c) => c.name),
 *   ["Name", "Ready", "Status", "Restarts", "Age"],
 * );
 * const cells = pods.cells({
 *   metadata: { name: "p", creationTimestamp: "2025-01-01T00:00:00Z" },
 *   spec: { containers: [{ name: "c" }] },
 *   status: { phase: "Pending" },
 * } as never, Date.UTC(2025, 0, 1, 0, 0, 5));
 * assert.deepEqual(cells.slice(0, 5), ["p", "0/1", "Pending", "0", "5s"]);
 * ```
 * @example Event columns (no Name up front)
 * ```ts
 * import { printerFor } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * const events = printerFor("", "Event")!;
 * assert.deepEqual(
 *   events.columns.filter((c) => c.priority === 0).map((c) => c.name),
 *   ["Last Seen", "Type", "Reason", "Object", "Message"],
 * );
 * ```
 */
export function printerFor(
  group: string,
  kind: string,
): TableColumns | undefined {
  return PRINTERS[`${group}/${kind}`];
}

/**
 * Name and Age, the columns of a kind without its own printer as kubectl
 * shows them (custom resources without additionalPrinterColumns).
 * @example
 * ```ts
 * import { AGE_ONLY } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(AGE_ONLY.columns.map((c) => c.name), ["Name", "Age"]);
 * ```
 */
export const AGE_ONLY: TableColumns = {
  columns: [NAME_COLUMN, AGE_COLUMN],
  cells: (obj, now) => [obj.metadata.name ?? "", ageOf(obj, now)],
};
