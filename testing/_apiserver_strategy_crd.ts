/**
 * CustomResourceDefinitions that come alive, as kube-apiserver's
 * apiextensions server and its controllers make them: a created CRD is
 * defaulted, then NamesAccepted and Established at once, and its
 * resource is served (a table registered with a custom-resource strategy:
 * unstructured JSON, generation, Table with additionalPrinterColumns,
 * discovery with singularName and storageVersionHash). Deleting it goes
 * through Terminating: the `customresourcecleanup.apiextensions.k8s.io`
 * finalizer, its custom resources deleted in key order (finalizers
 * honoured), creates answered 405 and discovery without create, patch and
 * update; once the last one is gone the CRD goes, its open watches end and
 * its paths answer 404. Internal to `FakeApiServer`.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { KubeObject } from "../api/object.ts";
import type { Condition } from "../api/types.ts";
import {
  age,
  NAME_COLUMN,
  type PrinterColumn,
  type TableColumns,
} from "../client/printers.ts";
import { resourceType } from "../api/resources.ts";
import { failure, invalid, statusError } from "./_apiserver_status.ts";
import { defaultRuleErrors } from "./_apiserver_schema_rules.ts";
import { errorBody } from "./_apiserver_field_error.ts";
import { defaultedOnRead, type SchemaProps } from "./_apiserver_structural.ts";
import type {
  Entry,
  ResourceStrategy,
  StoreAccess,
  StoreEvent,
  StoreTable,
} from "./_apiserver_types.ts";
import { STATUS, SUBRESOURCE_VERBS } from "./_apiserver_strategy.ts";
import { SCALE } from "./_apiserver_scale.ts";

const CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

// Discovery verbs of a custom resource, in apiextensions' order.
const CR_VERBS = [
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "create",
  "update",
  "watch",
];
const TERMINATING_VERBS = CR_VERBS.filter((v) =>
  v !== "create" && v !== "patch" && v !== "update"
);

const AGE_DATE: PrinterColumn = {
  name: "Age",
  type: "date",
  format: "",
  description:
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  priority: 0,
};

/** The names of a CRD's resource (apiextensions/v1 `CustomResourceDefinitionNames`). */
interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

/** One version of a CRD (apiextensions/v1 `CustomResourceDefinitionVersion`). */
interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  subresources?: { status?: unknown; scale?: unknown };
  additionalPrinterColumns?: CrdColumn[];
  schema?: { openAPIV3Schema?: Record<string, unknown> };
}

/** apiextensions/v1 `CustomResourceColumnDefinition`. */
interface CrdColumn {
  name: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** A CustomResourceDefinition, the fields the fake reads and writes. */
interface Crd extends KubeObject {
  spec?: {
    group?: string;
    scope?: string;
    names?: CrdNames;
    versions?: CrdVersion[];
    conversion?: { strategy: string };
    [field: string]: unknown;
  };
  status?: {
    conditions?: Condition[] | null;
    acceptedNames?: CrdNames;
    storedVersions?: string[];
    [field: string]: unknown;
  };
}

/** What the fake keeps about one served CRD. */
interface Served {
  table: StoreTable;
  strategy: ResourceStrategy;
  terminating: boolean;
  finishing: boolean;
  /** The version served. */
  version?: string;
}

// Per cluster: CRD name -> what it serves.
const SERVED = new WeakMap<StoreAccess, Map<string, Served>>();

function servedOf(store: StoreAccess): Map<string, Served> {
  let m = SERVED.get(store);
  if (!m) SERVED.set(store, m = new Map());
  return m;
}

/** apiextensions.k8s.io/v1 customresourcedefinitions. */
export const CRDS: ResourceStrategy = {
  generation: true,
  ownDelete: true,
  subresources: { status: STATUS },
  prepareForCreate(obj) {
    const o = obj as Crd;
    o.spec ??= {};
    o.spec.conversion ??= { strategy: "None" };
    const storage = (o.spec.versions ?? []).find((v) => v.storage) ??
      o.spec.versions?.[0];
    o.status = {
      conditions: null,
      acceptedNames: { plural: "", kind: "" },
      storedVersions: storage ? [storage.name] : [],
    };
  },
  validateCreate(obj) {
    validateDefaults(obj as Crd);
  },
  validateUpdate(next) {
    validateDefaults(next as Crd);
  },
  afterCreate(store, table, entry) {
    establish(store, table, entry);
  },
  afterUpdate(store, _table, entry) {
    const s = servedOf(store).get(entry.name);
    if (s) serveSchema(store, s, entry.obj as Crd);
  },
  beforeDelete(obj, _options, now) {
    if (obj.metadata.deletionTimestamp) return;
    const o = obj as Crd;
    if (!served(o)) return;
    obj.metadata.finalizers = [
      ...(obj.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER),
      CLEANUP_FINALIZER,
    ];
    setCondition(o, {
      type: "Terminating",
      status: "True",
      lastTransitionTime: now,
      reason: "InstanceDeletionPending",
      message:
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    });
  },
  afterDelete(store, table, result) {
    if (result.removed) return;
    const s = servedOf(store).get(result.entry.name);
    if (s && !s.terminating) startCleanup(store, table, result.entry, s);
    // Nothing served (a type given at start): nothing to clean up.
    if (!s) dropFinalizer(store, table, result.entry.name);
  },
};

function served(crd: Crd): boolean {
  return crd.spec?.group !== undefined && Boolean(crd.spec?.names?.plural);
}

function setCondition(crd: Crd, cond: Condition): void {
  const rest = (crd.status?.conditions ?? []).filter((c) =>
    c.type !== cond.type
  );
  crd.status = { ...crd.status, conditions: [...rest, cond] };
}

/** NamesAccepted, Established, and its resource served. */
function establish(
  store: StoreAccess,
  crdTable: StoreTable,
  entry: Entry,
): void {
  const crd = entry.obj as Crd;
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const versions = spec.versions ?? [];
  const version = versions.find((v) => v.storage && v.served) ??
    versions.find((v) => v.served);
  const { group } = spec;
  const { plural, kind } = names;
  if (!group || !plural || !kind || !version) return;
  const type = resourceType({
    apiVersion: `${group}/${version.name}`,
    kind,
    resource: plural,
    namespaced: spec.scope !== "Cluster",
    singular: names.singular ?? kind.toLowerCase(),
    shortNames: names.shortNames,
  });
  const s: Served = {
    table: undefined as unknown as StoreTable,
    strategy: customResourceStrategy(group, version, kind, names),
    terminating: false,
    finishing: false,
  };
  s.strategy.validateCreate = () => {
    if (!s.terminating) return;
    throw statusError(
      failure(
        405,
        "MethodNotAllowed",
        "create not allowed while custom resource definition is terminating",
        { group, kind: plural },
      ),
    );
  };
  const table = store.addTable(type, s.strategy);
  if (!table) return; // served already (a resource type given at start)
  s.table = table;
  s.version = version.name;
  s.strategy.openAPIV3Schema = version.schema?.openAPIV3Schema;
  servedOf(store).set(entry.name, s);
  // Its last instance gone while terminating: the CRD can go.
  table.sinks.add({
    event: (ev: StoreEvent) => {
      if (ev.type === "DELETED" && s.terminating) {
        finishSoon(store, crdTable, entry.name);
      }
    },
  });
  const next = JSON.parse(JSON.stringify(crd)) as Crd;
  const at = crd.metadata.creationTimestamp;
  const conditions: Condition[] = [{
    type: "NamesAccepted",
    status: "True",
    lastTransitionTime: at,
    reason: "NoConflicts",
    message: "no conflicts found",
  }, {
    type: "Established",
    status: "True",
    lastTransitionTime: at,
    reason: "InitialNamesAccepted",
    message: "the initial names have been accepted",
  }];
  const acceptedNames: CrdNames = {
    plural,
    singular: names.singular ?? kind.toLowerCase(),
    ...(names.shortNames ? { shortNames: names.shortNames } : {}),
    kind,
    listKind: names.listKind ?? `${kind}List`,
    ...(names.categories ? { categories: names.categories } : {}),
  };
  next.status = { ...next.status, conditions, acceptedNames };
  store.update(crdTable, next, { statusOnly: true });
}

/** The strategy of a CRD's custom resources. */
function customResourceStrategy(
  group: string,
  version: CrdVersion,
  kind: string,
  names: CrdNames,
): ResourceStrategy {
  const subs: Record<string, typeof STATUS> = {};
  if (version.subresources?.status) subs.status = STATUS;
  if (version.subresources?.scale) {
    subs.scale = { ...SCALE, verbs: SUBRESOURCE_VERBS };
  }
  return {
    generation: true,
    unstructured: true,
    unconditionalUpdate: false,
    verbs: CR_VERBS,
    categories: names.categories,
    subresources: subs,
    storageVersionHash: createHash("sha256")
      .update(`${group}/${version.name}/${kind}`)
      .digest()
      .subarray(0, 8)
      .toString("base64"),
    columns: printerColumns(version.additionalPrinterColumns ?? []),
  };
}

/** Name, then the additionalPrinterColumns (or Age when there are none). */
function printerColumns(extra: CrdColumn[]): TableColumns {
  const defs: PrinterColumn[] = [NAME_COLUMN];
  const paths: (string | undefined)[] = [undefined];
  if (extra.length === 0) {
    defs.push(AGE_DATE);
    paths.push(".metadata.creationTimestamp");
  }
  for (const c of extra) {
    defs.push({
      name: c.name,
      type: c.type ?? "string",
      format: c.format ?? "",
      description: c.description ?? "",
      priority: c.priority ?? 0,
    });
    paths.push(c.jsonPath);
  }
  return {
    columns: defs,
    cells: (obj, now) =>
      defs.map((d, i) => {
        if (i === 0) return obj.metadata.name ?? "";
        const v = at(obj, paths[i]!);
        if (d.type === "date" && typeof v === "string") return age(v, now);
        if (v === undefined) return null as unknown as string;
        return typeof v === "object" ? JSON.stringify(v) : v as string;
      }),
  };
}

/** The value at a simple JSONPath (`.spec.size`, `{.status.phase}`). */
function at(obj: KubeObject, path: string): unknown {
  let v: unknown = obj;
  const p = path.replace(/^\{|\}$/g, "").replace(/^\$?\./, "");
  for (const part of p.split(".")) {
    if (part === "") continue;
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Terminating: instance deletion in progress, every custom resource deleted. */
function startCleanup(
  store: StoreAccess,
  crdTable: StoreTable,
  crd: Entry,
  s: Served,
): void {
  s.terminating = true;
  s.strategy.verbs = TERMINATING_VERBS;
  const next = JSON.parse(JSON.stringify(crd.obj)) as Crd;
  setCondition(next, {
    type: "Terminating",
    status: "True",
    lastTransitionTime: crd.obj.metadata.deletionTimestamp!,
    reason: "InstanceDeletionInProgress",
    message: "CustomResource deletion is in progress",
  });
  store.update(crdTable, next, { statusOnly: true });
  for (const e of [...s.table.sorted()]) {
    if (!e.obj.metadata.deletionTimestamp) {
      store.delete(s.table, e.namespace, e.name);
    }
  }
  if (s.table.size === 0) finishSoon(store, crdTable, crd.name);
}

// After the write in progress has reached every watcher: the CRD's
// finalizer goes (so the CRD is deleted), then its resource stops being
// served and its watches end. kube-apiserver checks every 5 s; the fake
// finishes as soon as the last instance is gone.
function finishSoon(
  store: StoreAccess,
  crdTable: StoreTable,
  name: string,
): void {
  const s = servedOf(store).get(name);
  if (!s || s.finishing || s.table.size > 0) return;
  s.finishing = true;
  queueMicrotask(() => {
    dropFinalizer(store, crdTable, name);
    servedOf(store).delete(name);
    store.removeTable(s.table);
  });
}

/** Remove the cleanup finalizer: the CRD is deleted unless others remain. */
function dropFinalizer(
  store: StoreAccess,
  crdTable: StoreTable,
  name: string,
): void {
  const current = crdTable.get(name);
  if (!current?.obj.metadata.finalizers?.includes(CLEANUP_FINALIZER)) return;
  const next = JSON.parse(JSON.stringify(current.obj)) as KubeObject;
  next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) =>
    f !== CLEANUP_FINALIZER
  );
  delete next.metadata.resourceVersion;
  store.update(crdTable, next);
}

/**
 * A CRD changed: its served version's schema is the one custom resources
 * are now pruned, defaulted and validated against, and the stored ones
 * read with its defaults (kube-apiserver defaults what it reads from
 * etcd; the fake writes that back without a new resourceVersion).
 */
function serveSchema(store: StoreAccess, s: Served, crd: Crd): void {
  const version = crd.spec?.versions?.find((v) => v.name === s.version);
  const schema = version?.schema?.openAPIV3Schema;
  if (s.strategy.openAPIV3Schema === schema) return;
  s.strategy.openAPIV3Schema = schema;
  for (const e of [...s.table.sorted()]) {
    const obj = defaultedOnRead(e.obj, schema);
    if (obj !== e.obj) store.restore(s.table, e, obj);
  }
}

/**
 * apiextensions' CRD validation of defaults against the rules of their
 * node: 422 Invalid naming the default (`spec.validation...` when every
 * version has the same schema, as the internal API hoists it).
 */
function validateDefaults(crd: Crd): void {
  const versions = crd.spec?.versions ?? [];
  const same = versions.every((v) =>
    JSON.stringify(v.schema) === JSON.stringify(versions[0]?.schema)
  );
  const errs = versions.flatMap((v, i) => {
    const schema = v.schema?.openAPIV3Schema as SchemaProps | undefined;
    if (!schema || (same && i > 0)) return [];
    const base = same
      ? "spec.validation.openAPIV3Schema"
      : `spec.versions[${i}].schema.openAPIV3Schema`;
    return defaultRuleErrors(schema, base);
  });
  if (errs.length === 0) return;
  throw invalid(
    "CustomResourceDefinition",
    crd.metadata.name ?? "",
    errs.map((e) => ({
      field: e.field,
      message: errorBody(e),
      reason: `FieldValue${e.type}`,
    })),
    "apiextensions.k8s.io",
  );
}
