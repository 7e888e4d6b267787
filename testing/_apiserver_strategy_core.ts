/**
 * Strategies of the core (`""`) group's kinds: pods, namespaces, nodes,
 * services, secrets, events, replication controllers, persistent volumes
 * and claims (kube-apiserver `pkg/registry/core/<resource>/strategy.go`).
 * ConfigMaps, endpoints and service accounts use the default strategy.
 * Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { SCALE } from "./_apiserver_scale.ts";
import { PODS } from "./_apiserver_strategy_pods.ts";
import { ALL_VERBS, STATUS } from "./_apiserver_strategy.ts";
import type { ResourceStrategy, Subresource } from "./_apiserver_types.ts";

const ALL = ["all"];

/** A namespace's `spec.finalizers`. */
export function namespaceFinalizers(obj: KubeObject): string[] {
  return (obj as unknown as { spec?: { finalizers?: string[] } }).spec
    ?.finalizers ?? [];
}

/** namespaces/finalize: PUT sets `spec.finalizers` only. */
const FINALIZE: Subresource = {
  discovery: {},
  verbs: ["update"],
  update(old, body) {
    const next = JSON.parse(JSON.stringify(old.obj));
    const wanted = (body as { spec?: { finalizers?: string[] } })?.spec
      ?.finalizers;
    if (wanted?.length) next.spec = { ...next.spec, finalizers: wanted };
    else if (next.spec) delete next.spec.finalizers;
    return next;
  },
};

/** core/v1 namespaces: the `kubernetes` finalizer, phase Active, the name label. */
export const NAMESPACES: ResourceStrategy = {
  fields: ["status.phase"],
  fieldLabels: ["metadata.name", "status.phase"],
  prepareForCreate(obj) {
    const name = obj.metadata.name!;
    const o = obj as unknown as {
      spec?: { finalizers?: string[] };
      status?: { phase?: string };
    };
    obj.metadata.labels = {
      ...obj.metadata.labels,
      "kubernetes.io/metadata.name": name,
    };
    o.spec = { finalizers: ["kubernetes"], ...o.spec };
    o.status = { phase: "Active", ...o.status };
  },
  // The namespace registry's own Delete: phase Terminating, held by
  // `spec.finalizers` until the namespace controller (or a PUT of
  // /finalize) empties them.
  beforeDelete(obj) {
    if (obj.metadata.deletionTimestamp) return;
    const o = obj as unknown as { status?: { phase?: string } };
    o.status = { ...o.status, phase: "Terminating" };
  },
  holdsDeletion: (obj) => namespaceFinalizers(obj).length > 0,
  ownDelete: true,
  deleteReturnsObject: true,
  subresources: { status: STATUS, finalize: FINALIZE },
  verbs: ALL_VERBS.filter((v) => v !== "deletecollection"),
};

/** core/v1 nodes. */
export const NODES: ResourceStrategy = {
  fields: ["spec.unschedulable"],
  fieldDefaults: { "spec.unschedulable": "false" },
  subresources: { status: STATUS },
  // The node strategy's PrepareForCreate keeps a status given on create
  // (a kubelet registers its node with it); updates keep the stored one.
  statusOnCreate: true,
};

/** core/v1 services. */
export const SERVICES: ResourceStrategy = {
  subresources: { status: STATUS },
  categories: ALL,
};

/** core/v1 secrets. */
export const SECRETS: ResourceStrategy = { fields: ["type"] };

/** core/v1 events. */
export const EVENTS: ResourceStrategy = {
  fields: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  // kube-apiserver's ToSelectableFields: `source` is the legacy
  // `source.component`, or the reporting controller when that is empty.
  fieldValues: {
    source: (obj) => {
      const e = obj as unknown as {
        source?: { component?: string };
        reportingComponent?: string;
      };
      return e.source?.component || e.reportingComponent || "";
    },
  },
};

/** core/v1 replicationcontrollers. */
export const REPLICATION_CONTROLLERS: ResourceStrategy = {
  fields: ["status.replicas"],
  subresources: { status: STATUS, scale: SCALE },
  categories: ALL,
};

/** core/v1 persistentvolumes and persistentvolumeclaims. */
export const WITH_STATUS: ResourceStrategy = {
  subresources: { status: STATUS },
};

/** The core group's strategies by resource. */
export const CORE: Readonly<Record<string, ResourceStrategy>> = {
  pods: PODS,
  namespaces: NAMESPACES,
  nodes: NODES,
  services: SERVICES,
  secrets: SECRETS,
  events: EVENTS,
  replicationcontrollers: REPLICATION_CONTROLLERS,
  persistentvolumes: WITH_STATUS,
  persistentvolumeclaims: WITH_STATUS,
};
