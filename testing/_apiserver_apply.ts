/**
 * Server-side apply in the fake API server (structured-merge-diff, reduced):
 * each `Apply` manager owns the leaf fields of its last applied
 * configuration, recorded in `metadata.managedFields` (FieldsV1) before the
 * other entries. An apply that sets a field another manager owns to a
 * different value fails with 409 FieldManagerConflict unless `force`, which
 * moves the field to the applier; a field the applier stops applying is
 * removed when no other manager owns it. Lists are atomic (owned whole),
 * and only `Apply` entries take part: fields written by updates are not
 * tracked. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { badRequest, failure, statusError } from "./_apiserver_status.ts";

/** A JSON object: an applied configuration, an object, a map in either. */
type JsonMap = Record<string, unknown>;

/** A managedFields `fieldsV1` set: `f:<field>` keys, a `{}` per leaf. */
interface FieldsV1 {
  [key: string]: FieldsV1;
}

function isMap(v: unknown): v is JsonMap {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** One managedFields entry. */
interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/** Server-set metadata that an applied configuration does not own. */
const SERVER_META = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "generateName",
  "selfLink",
]);

/** Options of one apply. */
export interface ApplyOptions {
  /** `fieldManager`. */
  manager: string;
  /** `force=true`. */
  force: boolean;
  /** The served `apiVersion` and kind the body must name. */
  apiVersion: string;
  /** The name on the URL. */
  name: string;
  /** RFC 3339 time of the managedFields entry. */
  now: string;
}

/**
 * The object after applying `patch` as `opts.manager` to `current`
 * (undefined: the object does not exist, apply creates it).
 * @throws {StatusError} 400 for a wrong apiVersion or name, 409 FieldManagerConflict
 */
export function serverSideApply(
  current: KubeObject | undefined,
  patch: unknown,
  opts: ApplyOptions,
): KubeObject {
  if (!isMap(patch)) {
    throw badRequest("error decoding YAML: the apply patch is not an object");
  }
  if (patch.apiVersion !== opts.apiVersion) {
    throw badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${
        patch.apiVersion ?? ""
      }, expected: ${opts.apiVersion}`,
    );
  }
  const name = isMap(patch.metadata) ? patch.metadata.name : undefined;
  if (name !== undefined && name !== opts.name) {
    throw badRequest(
      `the name of the object (${name}) does not match the name on the URL (${opts.name})`,
    );
  }
  const applied = leaves(patch);
  const entries: ManagedFieldsEntry[] = JSON.parse(
    JSON.stringify(current?.metadata.managedFields ?? []),
  );
  const obj: JsonMap = JSON.parse(JSON.stringify(current ?? {}));
  const owned = new Map<ManagedFieldsEntry, string[][]>();
  for (const e of entries) {
    if (e.operation === "Apply") owned.set(e, fromFieldsV1(e.fieldsV1));
  }
  const conflicts: { manager: string; path: string[] }[] = [];
  for (const [e, paths] of owned) {
    if (e.manager === opts.manager) continue;
    const keep: string[][] = [];
    for (const p of paths) {
      const clash = applied.some((a) => overlaps(a, p)) &&
        JSON.stringify(valueAt(obj, p)) !== JSON.stringify(valueAt(patch, p));
      if (clash) conflicts.push({ manager: e.manager, path: p });
      if (!clash || !opts.force) keep.push(p);
    }
    owned.set(e, keep);
  }
  if (conflicts.length > 0 && !opts.force) throw conflictError(conflicts);
  const mine = entries.find((e) =>
    e.manager === opts.manager && e.operation === "Apply"
  );
  // Fields this manager applied before and no longer applies go, unless
  // another manager owns them too.
  for (const p of (mine && owned.get(mine)) ?? []) {
    if (applied.some((a) => overlaps(a, p))) continue;
    const shared = [...owned].some(([e, ps]) =>
      e !== mine && ps.some((q) => overlaps(q, p))
    );
    if (!shared) removeAt(obj, p);
  }
  merge(obj, patch);
  const entry: ManagedFieldsEntry = {
    manager: opts.manager,
    operation: "Apply",
    apiVersion: opts.apiVersion,
    time: opts.now,
    fieldsType: "FieldsV1",
    fieldsV1: toFieldsV1(applied),
  };
  const applies: ManagedFieldsEntry[] = [];
  for (const [e, paths] of owned) {
    if (e === mine) applies.push(entry);
    else if (paths.length > 0) {
      applies.push({ ...e, fieldsV1: toFieldsV1(paths) });
    }
  }
  if (!mine) applies.push(entry);
  const others = entries.filter((e) => e.operation !== "Apply");
  obj.metadata = {
    ...obj.metadata as JsonMap | undefined,
    managedFields: [...applies, ...others],
  };
  return obj as unknown as KubeObject;
}

function conflictError(conflicts: { manager: string; path: string[] }[]) {
  const field = (p: string[]) => "." + p.join(".");
  const n = conflicts.length;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    byManager.set(c.manager, [
      ...(byManager.get(c.manager) ?? []),
      field(c.path),
    ]);
  }
  const parts = [...byManager].map(([m, fs]) =>
    fs.length === 1
      ? `conflict with "${m}": ${fs[0]}`
      : `conflicts with "${m}":\n${fs.map((f) => `- ${f}`).join("\n")}`
  );
  const s = failure(
    409,
    "Conflict",
    `Apply failed with ${n} conflict${n === 1 ? "" : "s"}: ${parts.join("\n")}`,
    {
      causes: conflicts.map((c) => ({
        reason: "FieldManagerConflict",
        message: `conflict with "${c.manager}"`,
        field: field(c.path),
      })),
    },
  );
  return statusError(s);
}

/** Leaf paths of an applied configuration (lists and scalars are leaves). */
function leaves(patch: JsonMap): string[][] {
  const out: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (isMap(v)) {
      const keys = Object.keys(v);
      if (keys.length === 0 && path.length > 0) out.push(path);
      for (const k of keys) walk(v[k], [...path, k]);
    } else out.push(path);
  };
  for (const [k, v] of Object.entries(patch)) {
    if (k === "apiVersion" || k === "kind") continue;
    if (k === "metadata" && v && typeof v === "object") {
      for (const [mk, mv] of Object.entries(v)) {
        if (!SERVER_META.has(mk)) walk(mv, ["metadata", mk]);
      }
      continue;
    }
    walk(v, [k]);
  }
  return out;
}

/** Whether one path is the other or a prefix of it. */
function overlaps(a: string[], b: string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

function valueAt(obj: unknown, path: string[]): unknown {
  let v = obj;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as JsonMap)[k];
  }
  return v;
}

function removeAt(obj: JsonMap, path: string[]): void {
  const parent = valueAt(obj, path.slice(0, -1));
  if (parent && typeof parent === "object") {
    delete (parent as JsonMap)[path.at(-1)!];
  }
}

/** Maps merge key by key; lists and scalars replace; null removes. */
function merge(into: JsonMap, patch: JsonMap): void {
  for (const [k, v] of Object.entries(patch)) {
    if (k === "metadata" && v && typeof v === "object") {
      const meta = (into.metadata ??= {}) as JsonMap;
      for (const [mk, mv] of Object.entries(v)) {
        if (SERVER_META.has(mk) && mk !== "name") continue;
        if (mk === "name" && meta.name !== undefined) continue;
        setMerged(meta, mk, mv);
      }
      continue;
    }
    setMerged(into, k, v);
  }
}

function setMerged(into: JsonMap, k: string, v: unknown): void {
  const current = into[k];
  if (v === null) {
    delete into[k];
  } else if (isMap(v) && isMap(current)) {
    for (const [kk, vv] of Object.entries(v)) setMerged(current, kk, vv);
  } else into[k] = JSON.parse(JSON.stringify(v));
}

function toFieldsV1(paths: string[][]): FieldsV1 {
  const root: FieldsV1 = {};
  for (const p of paths) {
    let cur = root;
    for (const k of p) cur = cur[`f:${k}`] ??= {};
  }
  return root;
}

function fromFieldsV1(f: FieldsV1 | undefined): string[][] {
  const out: string[][] = [];
  const walk = (node: FieldsV1 | undefined, path: string[]) => {
    const n = node ?? {};
    const keys = Object.keys(n).filter((k) => k.startsWith("f:"));
    if (keys.length === 0 && path.length > 0) out.push(path);
    for (const k of keys) walk(n[k], [...path, k.slice(2)]);
  };
  walk(f, []);
  return out;
}
