/**
 * Discovery documents of the fake API server (/api, /api/v1, /apis,
 * /apis/<group>, /apis/<group>/<version>, /version) built from the
 * registered resource types, in the legacy (unaggregated) format
 * kube-apiserver serves to clients that do not ask for aggregated
 * discovery. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { ResourceType } from "../api/resources.ts";
import type { Table } from "./_apiserver_store.ts";
import { ALL_VERBS } from "./_apiserver_strategy.ts";

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

function resourceEntries(t: Table): Record<string, unknown>[] {
  const out = [resourceEntry(t)];
  const subs = t.strategy.subresources ?? {};
  for (const [name, sub] of Object.entries(subs)) {
    const e: Record<string, unknown> = {
      name: `${t.type.resource}/${name}`,
      singularName: "",
      namespaced: t.type.namespaced,
    };
    if (sub.discovery.group !== undefined) e.group = sub.discovery.group;
    if (sub.discovery.version !== undefined) e.version = sub.discovery.version;
    e.kind = sub.discovery.kind ?? t.type.kind;
    e.verbs = sub.verbs;
    out.push(e);
  }
  return out;
}

function resourceEntry(table: Table): Record<string, unknown> {
  const t = table.type;
  const e: Record<string, unknown> = {
    name: t.resource,
    singularName: t.singular ?? t.kind.toLowerCase(),
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: table.strategy.verbs ?? ALL_VERBS,
  };
  if (t.shortNames && t.shortNames.length > 0) e.shortNames = t.shortNames;
  const categories = table.strategy.categories;
  if (categories && categories.length > 0) e.categories = categories;
  const hash = table.strategy.storageVersionHash;
  if (hash !== undefined) e.storageVersionHash = hash;
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
  tables: readonly Table[],
  group: string,
  version: string,
): unknown | undefined {
  const served = tables.filter((t) =>
    t.type.group === group && t.type.version === version
  );
  if (served.length === 0 && group !== "") return undefined;
  if (group === "" && version !== "v1") return undefined;
  const gv = group === "" ? version : `${group}/${version}`;
  const doc: Record<string, unknown> = { kind: "APIResourceList" };
  if (group !== "") doc.apiVersion = "v1";
  doc.groupVersion = gv;
  doc.resources = served.flatMap(resourceEntries);
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
