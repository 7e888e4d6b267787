/**
 * The pods strategy (kube-apiserver `pkg/registry/core/pod`): defaulting on
 * create (the scheme's pod and container defaults, the two default
 * tolerations, status Pending with its QoS class), graceful deletion (a
 * pod bound to a node gets its termination grace period; an unscheduled
 * or finished one goes at once), `spec.nodeName` immutable on update,
 * `pods/binding` and `pods/status`. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { Container, Pod, PodSpec } from "../api/types.ts";
import type { Toleration } from "../api/core/v1.ts";
import { STATUS } from "./_apiserver_strategy.ts";
import { failure, invalid, statusError } from "./_apiserver_status.ts";
import type { ResourceStrategy, Subresource } from "./_apiserver_types.ts";

const POD_FIELDS = [
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.schedulerName",
  "spec.serviceAccountName",
  "spec.hostNetwork",
  "status.phase",
  "status.podIP",
  "status.nominatedNodeName",
];

/** core/v1 pods. */
export const PODS: ResourceStrategy = {
  fields: POD_FIELDS,
  fieldDefaults: { "spec.hostNetwork": "false" },
  fieldLabels: ["metadata.name", "metadata.namespace", ...POD_FIELDS],
  prepareForCreate(obj) {
    const pod = obj as Pod;
    pod.spec = defaultSpec(pod.spec ?? { containers: [] });
    // The apiserver resets status to Pending: a POST's status is dropped
    // before this runs (status is a subresource). The direct state
    // methods keep a given status (the demo and tests create pods in
    // later phases directly).
    pod.status = {
      phase: "Pending",
      ...pod.status,
      qosClass: pod.status?.qosClass ?? qosClass(pod.spec),
    };
  },
  validateUpdate(next, old) {
    const a = (next as Pod).spec?.nodeName ?? "";
    const b = (old as Pod).spec?.nodeName ?? "";
    if (a !== b) {
      throw invalid("Pod", old.metadata.name!, [{
        field: "spec",
        reason: "FieldValueForbidden",
        message:
          "Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
      }]);
    }
  },
  gracePeriodSeconds(obj, options) {
    const pod = obj as Pod;
    if (options.gracePeriodSeconds !== undefined) {
      return Math.max(0, options.gracePeriodSeconds);
    }
    // Never scheduled, or finished: nothing runs, it goes at once.
    if (!pod.spec?.nodeName) return 0;
    const phase = pod.status?.phase;
    if (phase === "Succeeded" || phase === "Failed") return 0;
    const grace = pod.spec?.terminationGracePeriodSeconds;
    return typeof grace === "number" ? grace : 30;
  },
  gracefulDelete: true,
  deleteReturnsObject: true,
  subresources: { status: STATUS, binding: bindingSubresource() },
  categories: ["all"],
};

function bindingSubresource(): Subresource {
  return {
    discovery: { kind: "Binding" },
    verbs: ["create"],
    post(store, table, old, body) {
      const name = old.name;
      const target = (body as { target?: { name?: unknown } } | null)?.target;
      const node = typeof target?.name === "string" ? target.name : "";
      const current = (old.obj as Pod).spec?.nodeName;
      if (current) {
        throw statusError(failure(
          409,
          "Conflict",
          `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${current}"`,
          { name, kind: "pods/binding" },
        ));
      }
      const next = JSON.parse(JSON.stringify(old.obj)) as Pod;
      next.spec = { ...next.spec, nodeName: node } as PodSpec;
      const conditions = (next.status?.conditions ?? []).filter((c) =>
        c.type !== "PodScheduled"
      );
      next.status = {
        ...next.status,
        conditions: [...conditions, {
          type: "PodScheduled",
          status: "True",
          lastProbeTime: null,
          lastTransitionTime: next.metadata.creationTimestamp,
        }],
      };
      store.update(table, next as KubeObject, { unvalidated: true });
      return {
        status: 201,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          code: 201,
        },
      };
    },
  };
}

function defaultContainer(c: Container): Container {
  const image: string = c.image ?? "";
  const tag = image.includes("@")
    ? "digest"
    : /:[^/]+$/.exec(image)?.[0].slice(1) ?? "latest";
  const out = {
    ...c,
    resources: c.resources ?? {},
    terminationMessagePath: c.terminationMessagePath ??
      "/dev/termination-log",
    terminationMessagePolicy: c.terminationMessagePolicy ?? "File",
    imagePullPolicy: c.imagePullPolicy ??
      (tag === "latest" ? "Always" : "IfNotPresent"),
  };
  if (Array.isArray(c.ports)) {
    out.ports = c.ports.map((p) => ({
      ...p,
      protocol: p.protocol ?? "TCP",
    }));
  }
  return out;
}

const DEFAULT_TOLERATIONS = [
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
];

/** The scheme's pod defaults plus the DefaultTolerationSeconds admission. */
function defaultSpec(spec: PodSpec): PodSpec {
  const tolerations: Toleration[] = [
    ...(spec.tolerations ?? []),
  ];
  for (const key of DEFAULT_TOLERATIONS) {
    if (
      !tolerations.some((t) =>
        t.key === key || (!t.key && t.operator === "Exists")
      )
    ) {
      tolerations.push({
        key,
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      });
    }
  }
  const out: PodSpec = {
    ...spec,
    containers: (spec.containers ?? []).map(defaultContainer),
    restartPolicy: spec.restartPolicy ?? "Always",
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
    dnsPolicy: spec.dnsPolicy ?? "ClusterFirst",
    securityContext: spec.securityContext ?? {},
    schedulerName: spec.schedulerName ?? "default-scheduler",
    tolerations,
    priority: spec.priority ?? 0,
    enableServiceLinks: spec.enableServiceLinks ?? true,
    preemptionPolicy: spec.preemptionPolicy ?? "PreemptLowerPriority",
  };
  if (Array.isArray(spec.initContainers)) {
    out.initContainers = spec.initContainers.map(defaultContainer);
  }
  return out;
}

/** The QoS class (`pkg/apis/core/helper/qos`): BestEffort, Guaranteed or Burstable. */
function qosClass(spec: PodSpec): "BestEffort" | "Guaranteed" | "Burstable" {
  const containers: Container[] = [
    ...(spec.containers ?? []),
    ...(spec.initContainers ?? []),
  ];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const limits = c.resources?.limits ?? {};
    const requests = { ...limits, ...c.resources?.requests };
    if (Object.keys(limits).length || Object.keys(requests).length) any = true;
    for (const r of ["cpu", "memory"]) {
      if (
        limits[r] === undefined || String(requests[r]) !== String(limits[r])
      ) {
        guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}
