/**
 * The `scale` subresource (autoscaling/v1 Scale) of deployments,
 * replicasets, statefulsets and replicationcontrollers, which `kubectl
 * scale` reads and patches. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { SUBRESOURCE_VERBS } from "./_apiserver_strategy.ts";
import { badRequest } from "./_apiserver_status.ts";
import type { Entry, Subresource } from "./_apiserver_types.ts";

interface Scalable {
  spec?: {
    replicas?: number;
    selector?:
      | { matchLabels?: Record<string, string> }
      | Record<string, string>;
  };
  status?: { replicas?: number };
}

/** The Scale view of an object. */
export function scaleOf(e: Entry): Record<string, unknown> {
  const o = e.obj as unknown as Scalable;
  const m = e.obj.metadata;
  const sel = o.spec?.selector;
  const labels = (sel && "matchLabels" in sel ? sel.matchLabels : sel) as
    | Record<string, string>
    | undefined;
  const metadata: Record<string, unknown> = { name: m.name };
  if (m.namespace) metadata.namespace = m.namespace;
  metadata.uid = m.uid;
  metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = m.creationTimestamp;
  const status: Record<string, unknown> = { replicas: o.status?.replicas ?? 0 };
  if (labels) {
    status.selector = Object.entries(labels).map(([k, v]) => `${k}=${v}`)
      .join(",");
  }
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata,
    spec: { replicas: o.spec?.replicas ?? 0 },
    status,
  };
}

/** The object with the replicas of a Scale (and its resourceVersion as precondition). */
export function withScale(e: Entry, scale: unknown): KubeObject {
  const s = scale as {
    metadata?: { resourceVersion?: string };
    spec?: { replicas?: number };
  };
  const obj = structuredClone(e.obj) as KubeObject & Scalable;
  obj.spec = { ...obj.spec, replicas: s?.spec?.replicas ?? 0 };
  obj.metadata.resourceVersion = s?.metadata?.resourceVersion;
  return obj;
}

/** The scale subresource of a strategy (autoscaling/v1 Scale). */
export const SCALE: Subresource = {
  discovery: { kind: "Scale", group: "autoscaling", version: "v1" },
  verbs: SUBRESOURCE_VERBS,
  view: scaleOf,
  update(old, body) {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw badRequest("error decoding Scale: not an object");
    }
    return withScale(old, body);
  },
};
