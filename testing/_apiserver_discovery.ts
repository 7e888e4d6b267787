/**
 * Discovery documents of the fake API server (/api, /api/v1, /apis,
 * /apis/<group>, /apis/<group>/<version>, /version) built from the
 * registered resource types, in the legacy (unaggregated) format
 * kube-apiserver serves to clients that do not ask for aggregated
 * discovery. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { ResourceType } from "../client/resources.ts";

/** Version reported by /version. */
export const VERSION_INFO = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-kubecache",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2025-01-01T00:00:00Z",
  goVersion: "go1.23.4",
  compiler: "gc",
  platform: "linux/amd64",
};

const VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

function resourceEntry(t: ResourceType): Record<string, unknown> {
  const e: Record<string, unknown> = {
    name: t.resource,
    singularName: t.singular ?? t.kind.toLowerCase(),
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.resource === "namespaces" && t.group === ""
      ? VERBS.filter((v) => v !== "deletecollection")
      : VERBS,
  };
  if (t.shortNames && t.shortNames.length > 0) e.shortNames = t.shortNames;
  return e;
}

/** /api */
export function coreVersions(host: string): unknown {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{
      clientCIDR: "0.0.0.0/0",
      serverAddress: host,
    }],
  };
}

/** /api/v1 or /apis/<group>/<version>; undefined when nothing is served there. */
export function resourceList(
  types: readonly ResourceType[],
  group: string,
  version: string,
): unknown | undefined {
  const served = types.filter((t) =>
    t.group === group && t.version === version
  );
  if (served.length === 0 && group !== "") return undefined;
  if (group === "" && version !== "v1") return undefined;
  const gv = group === "" ? version : `${group}/${version}`;
  const doc: Record<string, unknown> = { kind: "APIResourceList" };
  if (group !== "") doc.apiVersion = "v1";
  doc.groupVersion = gv;
  doc.resources = served.map(resourceEntry);
  return doc;
}

function groupVersions(types: readonly ResourceType[], group: string) {
  const versions = [
    ...new Set(types.filter((t) => t.group === group).map((t) => t.version)),
  ];
  return versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
}

function groupDoc(types: readonly ResourceType[], group: string) {
  const versions = groupVersions(types, group);
  return { name: group, versions, preferredVersion: versions[0] };
}

/** /apis */
export function groupList(types: readonly ResourceType[]): unknown {
  const groups = [
    ...new Set(types.map((t) => t.group).filter((g) => g !== "")),
  ];
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups.map((g) => groupDoc(types, g)),
  };
}

/** /apis/<group>; undefined for an unknown group. */
export function group(
  types: readonly ResourceType[],
  name: string,
): unknown | undefined {
  if (!types.some((t) => t.group === name)) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...groupDoc(types, name) };
}
