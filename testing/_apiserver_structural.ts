/**
 * A CustomResourceDefinition's structural schema as apiextensions-apiserver
 * applies it to a custom resource when decoding it: pruning of the fields
 * the schema does not specify (`schema/pruning`), dropping nulls of
 * non-nullable fields without a default, and defaulting (`schema/defaulting`).
 * Internal to `FakeApiServer`'s schema stage.
 *
 * @module
 */

/** apiextensions/v1 `JSONSchemaProps`, the members the fake reads. */
export interface SchemaProps {
  type?: string;
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  default?: unknown;
  required?: string[];
  properties?: Record<string, SchemaProps>;
  additionalProperties?: SchemaProps | boolean;
  items?: SchemaProps;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-validations"?: ValidationRule[];
}

/** apiextensions/v1 `ValidationRule` (an `x-kubernetes-validations` entry). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

type Json = Record<string, unknown>;

/** ObjectMeta's fields: what the real server keeps of `metadata`. */
const OBJECT_META = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The schema of a property of an object node, if the schema specifies one. */
export function propertySchema(
  s: SchemaProps | undefined,
  key: string,
): SchemaProps | undefined {
  const p = s?.properties?.[key];
  if (p) return p;
  const ap = s?.additionalProperties;
  return typeof ap === "object" ? ap : undefined;
}

/**
 * Remove, in place, every field the schema does not specify, below
 * `x-kubernetes-preserve-unknown-fields` only the specified ones are
 * visited; `apiVersion`, `kind` and `metadata` of the object (and of an
 * `x-kubernetes-embedded-resource`) are kept, `metadata` pruned to
 * ObjectMeta. @returns the paths removed (`spec.endpoints[0].bogus`)
 */
export function prune(obj: Json, schema: SchemaProps): string[] {
  const removed: string[] = [];
  pruneResource(obj, schema, "", removed);
  return removed;
}

function pruneResource(
  obj: Json,
  s: SchemaProps,
  path: string,
  removed: string[],
): void {
  const meta = obj.metadata;
  if (isObject(meta)) {
    for (const k of Object.keys(meta)) {
      if (!OBJECT_META.has(k)) {
        delete meta[k];
        removed.push(join(join(path, "metadata"), k));
      }
    }
  }
  pruneObject(obj, s, path, removed, true);
}

function pruneObject(
  obj: Json,
  s: SchemaProps,
  path: string,
  removed: string[],
  resource: boolean,
): void {
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  for (const k of Object.keys(obj)) {
    if (
      resource && (k === "apiVersion" || k === "kind" || k === "metadata")
    ) continue;
    const p = propertySchema(s, k);
    if (p) pruneValue(obj[k], p, join(path, k), removed);
    else if (s.additionalProperties === true || preserve) continue;
    else {
      delete obj[k];
      removed.push(join(path, k));
    }
  }
}

function pruneValue(
  v: unknown,
  s: SchemaProps,
  path: string,
  removed: string[],
): void {
  if (Array.isArray(v)) {
    if (!s.items) return;
    v.forEach((x, i) => pruneValue(x, s.items!, `${path}[${i}]`, removed));
  } else if (isObject(v)) {
    if (s["x-kubernetes-embedded-resource"]) {
      pruneResource(v, s, path, removed);
    } else pruneObject(v, s, path, removed, false);
  }
}

/**
 * Apply the schema's defaults in place, as structural defaulting does: a
 * property missing (or null and not nullable) takes its default, then
 * every property is visited, so a defaulted `{}` gets its own defaults. A
 * null of a non-nullable property without a default is dropped.
 */
export function applyDefaults(v: unknown, s: SchemaProps | undefined): void {
  if (!s) return;
  if (Array.isArray(v)) {
    for (const x of v) applyDefaults(x, s.items);
    return;
  }
  if (!isObject(v)) return;
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if (p.default === undefined) continue;
    if (!(k in v) || (v[k] === null && !p.nullable)) {
      v[k] = structuredClone(p.default);
    }
  }
  for (const k of Object.keys(v)) {
    const p = propertySchema(s, k);
    if (!p) continue;
    if (v[k] === null && !p.nullable && p.default === undefined) {
      delete v[k];
      continue;
    }
    applyDefaults(v[k], p);
  }
}

/** A field path as apimachinery's `field.Path` prints it. */
export function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** JSON deep equality (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The old value that corresponds to `items[i]` of a new list, for
 * ratcheting and transition rules: by key for `x-kubernetes-list-type:
 * map`, by value for `set`; atomic lists correlate no items.
 */
export function correlatedItem(
  s: SchemaProps,
  item: unknown,
  old: unknown,
): unknown {
  if (!Array.isArray(old)) return undefined;
  const type = s["x-kubernetes-list-type"];
  if (type === "set") return old.find((o) => deepEqual(o, item));
  if (type === "map" && isObject(item)) {
    const keys = s["x-kubernetes-list-map-keys"] ?? [];
    return old.find((o) =>
      isObject(o) && keys.every((k) => deepEqual(o[k], item[k]))
    );
  }
  return undefined;
}

/**
 * What structured-merge-diff refuses when it types an apply patch against
 * the schema (`failed to create typed patch object`): a field the schema
 * does not declare (outside `x-kubernetes-preserve-unknown-fields`), or
 * two items of a map list with the same keys. @returns the first, as SMD
 * words it (`.spec.bogus: field not declared in schema`), or undefined
 */
export function typedPatchError(
  patch: unknown,
  schema: SchemaProps,
): string | undefined {
  const visit = (
    v: unknown,
    s: SchemaProps,
    path: string,
    resource: boolean,
  ): string | undefined => {
    if (Array.isArray(v)) {
      if (!s.items) return undefined;
      if (s["x-kubernetes-list-type"] === "map") {
        const keys = s["x-kubernetes-list-map-keys"] ?? [];
        const seen: string[] = [];
        for (const x of v) {
          if (!isObject(x)) continue;
          const key = keys.map((k) => `${k}=${JSON.stringify(x[k])}`)
            .join(",");
          if (seen.includes(key)) {
            return `${path}: duplicate entries for key [${key}]`;
          }
          seen.push(key);
        }
      }
      for (const x of v) {
        const err = visit(x, s.items, path, false);
        if (err) return err;
      }
      return undefined;
    }
    if (!isObject(v)) return undefined;
    const embedded = resource || s["x-kubernetes-embedded-resource"] === true;
    for (const [k, x] of Object.entries(v)) {
      if (
        embedded && (k === "apiVersion" || k === "kind" || k === "metadata")
      ) {
        continue;
      }
      const p = propertySchema(s, k);
      if (!p) {
        if (
          s["x-kubernetes-preserve-unknown-fields"] ||
          s.additionalProperties === true
        ) continue;
        return `${path}.${k}: field not declared in schema`;
      }
      const err = visit(x, p, `${path}.${k}`, false);
      if (err) return err;
    }
    return undefined;
  };
  return visit(patch, schema, "", true);
}

/**
 * The object as read from storage: the schema's defaults applied (a
 * default added to the CRD after the object was stored shows on read).
 * @returns the same object when nothing is defaulted
 */
export function defaultedOnRead<T extends object>(
  obj: T,
  schema: Record<string, unknown> | undefined,
): T {
  if (!schema) return obj;
  const copy = structuredClone(obj) as unknown as Json;
  applyDefaults(copy, schema as SchemaProps);
  return deepEqual(copy, obj) ? obj : copy as unknown as T;
}
