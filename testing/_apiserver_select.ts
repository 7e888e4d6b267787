/**
 * Label and field selectors of list and watch requests, with the field
 * sets kube-apiserver supports per kind (pods: spec.nodeName, status.phase,
 * ...). Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../cache/object.ts";
import { parseSelector, SelectorParseError } from "../cache/labels.ts";
import type { ResourceType } from "../client/resources.ts";
import { badRequest } from "./_apiserver_status.ts";

/** Matches an object; `undefined` stands for "everything". */
export type Matcher = ((obj: KubeObject) => boolean) | undefined;

// Extra selectable fields per "group/kind" (apiserver registry GetAttrs).
const FIELDS: Record<string, string[]> = {
  "/Pod": [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  "/Node": ["spec.unschedulable"],
  "/Secret": ["type"],
  "/Namespace": ["status.phase"],
  "/Event": [
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
  "/ReplicationController": ["status.replicas"],
  "apps/ReplicaSet": ["status.replicas"],
  "batch/Job": ["status.successful"],
  "certificates.k8s.io/CertificateSigningRequest": ["spec.signerName"],
};

/** The fields a kind can be selected by. */
export function selectableFields(type: ResourceType): string[] {
  return [
    "metadata.name",
    "metadata.namespace",
    ...(FIELDS[`${type.group}/${type.kind}`] ?? []),
  ];
}

/** Parse a label selector. @throws {StatusError} 400 BadRequest */
export function labelMatcher(s: string | null): Matcher {
  if (!s) return undefined;
  try {
    const sel = parseSelector(s);
    if (sel.empty()) return undefined;
    return (obj) => sel.matches(obj.metadata.labels);
  } catch (err) {
    if (err instanceof SelectorParseError) {
      throw badRequest(`unable to parse requirement: ${err.message}`);
    }
    throw err;
  }
}

/** Parse a field selector for a type. @throws {StatusError} 400 BadRequest */
export function fieldMatcher(type: ResourceType, s: string | null): Matcher {
  if (!s) return undefined;
  const allowed = selectableFields(type);
  const reqs: { path: string[]; value: string; equal: boolean }[] = [];
  for (const part of s.split(",")) {
    if (part.trim() === "") continue;
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) {
      throw badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    }
    const [, field, op, value] = m;
    if (!allowed.includes(field)) {
      throw badRequest(
        `"${field}" is not a known field selector: only ${
          allowed.map((f) => `"${f}"`).join(", ")
        }`,
      );
    }
    reqs.push({ path: field.split("."), value, equal: op !== "!=" });
  }
  if (reqs.length === 0) return undefined;
  return (obj) =>
    reqs.every((r) => (fieldValue(obj, r.path) === r.value) === r.equal);
}

function fieldValue(obj: KubeObject, path: string[]): string {
  let v: unknown = obj;
  for (const p of path) {
    if (v === null || typeof v !== "object") return "";
    v = (v as Record<string, unknown>)[p];
  }
  if (v === undefined || v === null) {
    // Booleans select as "false" when unset (spec.unschedulable, hostNetwork).
    const last = path[path.length - 1];
    return last === "unschedulable" || last === "hostNetwork" ? "false" : "";
  }
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** Both matchers at once. */
export function both(a: Matcher, b: Matcher): Matcher {
  if (!a) return b;
  if (!b) return a;
  return (obj) => a(obj) && b(obj);
}
