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
import {
  ALL_VERBS,
  type ResourceStrategy,
  STATUS,
  type StoreAccess,
} from "./_apiserver_strategy.ts";
import type { Entry } from "./_apiserver_store.ts";

const ALL = ["all"];

/** core/v1 pods. */
export const PODS: ResourceStrategy = {
  fields: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  fieldDefaults: { "spec.hostNetwork": "false" },
  deleteReturnsObject: true,
  subresources: { status: STATUS },
  categories: ALL,
};

/** core/v1 namespaces: the `kubernetes` finalizer, phase Active, the name label. */
export const NAMESPACES: ResourceStrategy = {
  fields: ["status.phase"],
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
  // Deleting a namespace takes its objects with it (what the namespace
  // controller does in a cluster), and the last state shows Terminating.
  onRemove(store: StoreAccess, entry: Entry, now: string): KubeObject {
    const ns = entry.name;
    for (const t of store.tables) {
      if (!t.type.namespaced) continue;
      for (const e of t.sorted().filter((x) => x.namespace === ns)) {
        store.removeNow(t, e);
      }
    }
    const last = JSON.parse(JSON.stringify(entry.obj));
    last.metadata.deletionTimestamp = now;
    last.status = { phase: "Terminating" };
    return last;
  },
  deleteReturnsObject: true,
  subresources: { status: STATUS },
  verbs: ALL_VERBS.filter((v) => v !== "deletecollection"),
};

/** core/v1 nodes. */
export const NODES: ResourceStrategy = {
  fields: ["spec.unschedulable"],
  fieldDefaults: { "spec.unschedulable": "false" },
  subresources: { status: STATUS },
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
