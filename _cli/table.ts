/**
 * Human-readable columns per kind, as kubectl prints them
 * (`pkg/printers/internalversion/printers.go`), kubectl's age format
 * (apimachinery `duration.HumanDuration`) and a tab-writer-like aligner.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";

/** How one kind is printed: column headers and one row per object. */
export interface Columns {
  /** Headers after NAME (NAME itself and NAMESPACE are added by the caller). */
  headers: string[];
  /** The cells of `obj` for `headers`, at time `nowMs`. */
  cells(obj: KubeObject, nowMs: number): string[];
}

// deno-lint-ignore no-explicit-any
type Loose = any;

/**
 * kubectl's age: `5s`, `2m30s`, `17m`, `4h10m`, `11h`, `3d2h`, `45d`, `2y10d`
 * (apimachinery `duration.HumanDuration`).
 * @param ms elapsed milliseconds
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Age of an RFC 3339 timestamp at `nowMs`, `<unknown>` when absent. */
export function age(timestamp: string | undefined, nowMs: number): string {
  if (!timestamp) return "<unknown>";
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? "<unknown>" : humanDuration(nowMs - at);
}

const AGE_ONLY: Columns = {
  headers: ["AGE"],
  cells: (obj, now) => [age(obj.metadata.creationTimestamp, now)],
};

/** kubectl's pod READY, STATUS, RESTARTS (with "(5m ago)") columns. */
export function podSummary(
  pod: Loose,
  nowMs: number,
): { ready: string; status: string; restarts: string } {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
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
      const podReady = (status.conditions ?? []).some((c: Loose) =>
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
function initReason(spec: Loose, status: Loose): string | undefined {
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

const none = (v: unknown): string =>
  v === undefined || v === null || v === "" ? "<none>" : String(v);

const PODS: Columns = {
  headers: ["READY", "STATUS", "RESTARTS", "AGE"],
  cells: (pod, now) => {
    const s = podSummary(pod, now);
    return [
      s.ready,
      s.status,
      s.restarts,
      age(pod.metadata.creationTimestamp, now),
    ];
  },
};

const PODS_WIDE: Columns = {
  headers: [...PODS.headers, "IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
  cells: (pod: Loose, now) => {
    const gates = pod.spec?.readinessGates ?? [];
    const ok =
      gates.filter((g: Loose) =>
        (pod.status?.conditions ?? []).some((c: Loose) =>
          c.type === g.conditionType && c.status === "True"
        )
      ).length;
    return [
      ...PODS.cells(pod, now),
      none(pod.status?.podIP),
      none(pod.spec?.nodeName),
      none(pod.status?.nominatedNodeName),
      gates.length ? `${ok}/${gates.length}` : "<none>",
    ];
  },
};

const DEPLOYMENTS: Columns = {
  headers: ["READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
  cells: (d: Loose, now) => [
    `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
    String(d.status?.updatedReplicas ?? 0),
    String(d.status?.availableReplicas ?? 0),
    age(d.metadata.creationTimestamp, now),
  ],
};

const containersAndSelector = (obj: Loose): string[] => {
  const containers = obj.spec?.template?.spec?.containers ?? [];
  const labels = obj.spec?.selector?.matchLabels ?? {};
  return [
    containers.map((c: Loose) => c.name).join(","),
    containers.map((c: Loose) => c.image).join(","),
    none(Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(",")),
  ];
};

const DEPLOYMENTS_WIDE: Columns = {
  headers: [...DEPLOYMENTS.headers, "CONTAINERS", "IMAGES", "SELECTOR"],
  cells: (
    d,
    now,
  ) => [...DEPLOYMENTS.cells(d, now), ...containersAndSelector(d)],
};

const REPLICA_SETS: Columns = {
  headers: ["DESIRED", "CURRENT", "READY", "AGE"],
  cells: (rs: Loose, now) => [
    String(rs.spec?.replicas ?? 0),
    String(rs.status?.replicas ?? 0),
    String(rs.status?.readyReplicas ?? 0),
    age(rs.metadata.creationTimestamp, now),
  ],
};

const CONFIG_MAPS: Columns = {
  headers: ["DATA", "AGE"],
  cells: (cm: Loose, now) => [
    String(
      Object.keys(cm.data ?? {}).length +
        Object.keys(cm.binaryData ?? {}).length,
    ),
    age(cm.metadata.creationTimestamp, now),
  ],
};

const NODES: Columns = {
  headers: ["STATUS", "ROLES", "AGE", "VERSION"],
  cells: (node: Loose, now) => {
    const ready = (node.status?.conditions ?? []).find((c: Loose) =>
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
    return [
      status,
      roles.length ? roles.join(",") : "<none>",
      age(node.metadata.creationTimestamp, now),
      node.status?.nodeInfo?.kubeletVersion ?? "",
    ];
  },
};

const NAMESPACES: Columns = {
  headers: ["STATUS", "AGE"],
  cells: (ns: Loose, now) => [
    ns.status?.phase ?? "Active",
    age(ns.metadata.creationTimestamp, now),
  ],
};

/**
 * The columns kubectl shows for a kind: pods (READY, STATUS, RESTARTS, AGE;
 * wide adds IP, NODE, NOMINATED NODE, READINESS GATES), deployments (READY,
 * UP-TO-DATE, AVAILABLE, AGE), replica sets, config maps, nodes,
 * namespaces; every other kind shows AGE.
 * @param kind the object kind, e.g. `"Pod"`
 * @param wide whether `-o wide` was asked for
 */
export function columnsFor(kind: string, wide: boolean): Columns {
  switch (kind) {
    case "Pod":
      return wide ? PODS_WIDE : PODS;
    case "Deployment":
      return wide ? DEPLOYMENTS_WIDE : DEPLOYMENTS;
    case "ReplicaSet":
      return REPLICA_SETS;
    case "ConfigMap":
      return CONFIG_MAPS;
    case "Node":
      return NODES;
    case "Namespace":
      return NAMESPACES;
    default:
      return AGE_ONLY;
  }
}

/**
 * Column widths like kubectl's tab writer (padding 3, minimum cell width
 * 6 with padding): each width covers the widest cell plus the padding.
 * @param rows header and data rows
 */
export function columnWidths(rows: readonly string[][]): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 6, cell.length + 3);
    });
  }
  return widths;
}

/**
 * One aligned line: each cell padded to its width, the last one unpadded.
 * A cell wider than its column pushes the rest right, as kubectl's does.
 * @param cells the cells
 * @param widths widths from {@link columnWidths}
 */
export function alignRow(
  cells: readonly string[],
  widths: readonly number[],
): string {
  let line = "";
  cells.forEach((cell, i) => {
    line += i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0, " ");
    // keep at least one space even when a cell overflows its column
    if (i < cells.length - 1 && cell.length >= (widths[i] ?? 0)) line += " ";
  });
  return line;
}
