/**
 * A custom resource validated against its CRD's OpenAPI v3 schema as
 * apiextensions-apiserver does (kube-openapi's `SchemaValidator` with
 * ratcheting, its errors converted to `field.Error`s by
 * `apiserver/validation`), and the uniqueness of `x-kubernetes-list-type`
 * set and map lists (`schema/listtype`). Internal to `FakeApiServer`'s
 * schema stage.
 *
 * @module
 */

import type { FieldError } from "./_apiserver_field_error.ts";
import { goFloat } from "./_apiserver_field_error.ts";
import {
  correlatedItem,
  deepEqual,
  join,
  propertySchema,
  type SchemaProps,
} from "./_apiserver_structural.ts";

type Json = Record<string, unknown>;

/** Where a value sits: its name in messages and its path in causes. */
interface At {
  /** The name the validator prints (relative to the validated root). */
  name: string;
  /** The cause's field path. */
  field: string;
}

function child(at: At, key: string): At {
  return { name: join(at.name, key), field: join(at.field, key) };
}

function index(at: At, i: number): At {
  return { name: `${at.name}[${i}]`, field: `${at.field}[${i}]` };
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The JSON type of a value as the validator infers it. */
function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v; // string, boolean, object
}

/**
 * Validate `value` against `s`. `root` is the path the validated value
 * has in the object (`""` for the whole object, `status` for a write
 * through the status subresource). A value deep-equal to its correlated
 * old value has its errors dropped (validation ratcheting, on by default
 * since 1.30).
 */
export function validateSchemaValue(
  value: unknown,
  s: SchemaProps,
  root: string,
  old: { value: unknown } | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  validate(value, s, { name: "", field: root }, old, errs);
  return errs;
}

function validate(
  v: unknown,
  s: SchemaProps,
  at: At,
  old: { value: unknown } | undefined,
  errs: FieldError[],
): void {
  if (old && deepEqual(v, old.value)) return;
  const mine: FieldError[] = [];
  const types = s["x-kubernetes-int-or-string"]
    ? ["integer", "string"]
    : s.type
    ? [s.type]
    : [];
  const actual = jsonType(v);
  const where = `${at.name} in body`;
  if (v === null) {
    if (types.length > 0 && !s.nullable) {
      errs.push({
        type: "TypeInvalid",
        field: at.field,
        value: "null",
        detail: `${where} must be of type ${types.join(",")}: "null"`,
      });
    }
    return;
  }
  if (
    types.length > 0 && !types.includes(actual) &&
    !(actual === "integer" && types.includes("number"))
  ) {
    mine.push({
      type: "TypeInvalid",
      field: at.field,
      value: actual,
      detail: `${where} must be of type ${types.join(",")}: "${actual}"`,
    });
  }
  if (typeof v === "string") validateString(v, s, at, mine);
  if (typeof v === "number") validateNumber(v, s, at, mine);
  if (s.enum && !s.enum.some((e) => deepEqual(e, v))) {
    mine.push({
      type: "NotSupported",
      field: at.field,
      value: v,
      detail: "supported values: " +
        s.enum.map((e) =>
          JSON.stringify(typeof e === "string" ? e : JSON.stringify(e))
        ).join(", "),
    });
  }
  if (Array.isArray(v)) validateArray(v, s, at, old, mine);
  if (isObject(v)) validateObject(v, s, at, old, mine);
  errs.push(...mine);
}

function validateString(
  v: string,
  s: SchemaProps,
  at: At,
  errs: FieldError[],
): void {
  const where = `${at.name} in body`;
  if (s.type === "string" && s.format && !formatValid(s.format, v)) {
    errs.push({
      type: "TypeInvalid",
      field: at.field,
      value: v,
      detail: `${where} must be of type ${s.format}: ${JSON.stringify(v)}`,
    });
  }
  // The first failing of maxLength, minLength, pattern (kube-openapi's order).
  const length = [...v].length;
  if (s.maxLength !== undefined && length > s.maxLength) {
    errs.push({
      type: "TooLong",
      field: at.field,
      value: v,
      detail: `may not be more than ${s.maxLength} ${
        s.maxLength === 1 ? "byte" : "bytes"
      }`,
    });
  } else if (s.minLength !== undefined && length < s.minLength) {
    errs.push({
      type: "Invalid",
      field: at.field,
      value: v,
      detail: `${where} should be at least ${s.minLength} chars long`,
    });
  } else if (s.pattern !== undefined && !patternMatches(s.pattern, v)) {
    errs.push({
      type: "Invalid",
      field: at.field,
      value: v,
      detail: `${where} should match '${s.pattern}'`,
    });
  }
}

const PATTERNS = new Map<string, RegExp | null>();

function patternMatches(pattern: string, v: string): boolean {
  let re = PATTERNS.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, "u");
    } catch {
      re = null;
    }
    PATTERNS.set(pattern, re);
  }
  return re === null ? true : re.test(v);
}

function validateNumber(
  v: number,
  s: SchemaProps,
  at: At,
  errs: FieldError[],
): void {
  const where = `${at.name} in body`;
  // An integer is compared with the bound as an int64 (kube-openapi's
  // MinimumNativeType), a float with the float64 bound.
  const bound = (b: number) => goFloat(Number.isInteger(v) ? Math.trunc(b) : b);
  const invalid = (detail: string) =>
    errs.push({ type: "Invalid", field: at.field, value: v, detail });
  if (s.multipleOf !== undefined && s.multipleOf !== 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) {
      invalid(`${where} should be a multiple of ${goFloat(s.multipleOf)}`);
    }
  }
  if (s.minimum !== undefined) {
    const b = Number.isInteger(v) ? Math.trunc(s.minimum) : s.minimum;
    if (s.exclusiveMinimum ? v <= b : v < b) {
      invalid(
        `${where} should be greater than ${
          s.exclusiveMinimum ? "" : "or equal to "
        }${bound(s.minimum)}`,
      );
    }
  }
  if (s.maximum !== undefined) {
    const b = Number.isInteger(v) ? Math.trunc(s.maximum) : s.maximum;
    if (s.exclusiveMaximum ? v >= b : v > b) {
      invalid(
        `${where} should be less than ${
          s.exclusiveMaximum ? "" : "or equal to "
        }${bound(s.maximum)}`,
      );
    }
  }
}

function validateArray(
  v: unknown[],
  s: SchemaProps,
  at: At,
  old: { value: unknown } | undefined,
  errs: FieldError[],
): void {
  const where = `${at.name} in body`;
  if (s.items) {
    v.forEach((x, i) => {
      const o = old ? correlatedItem(s, x, old.value) : undefined;
      validate(
        x,
        s.items!,
        index(at, i),
        o === undefined ? undefined : { value: o },
        errs,
      );
    });
  }
  if (s.minItems !== undefined && v.length < s.minItems) {
    errs.push({
      type: "Invalid",
      field: at.field,
      value: v.length,
      detail: `${where} should have at least ${s.minItems} items`,
    });
  }
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    errs.push({
      type: "TooMany",
      field: at.field,
      value: v.length,
      detail: `must have at most ${s.maxItems} ${
        s.maxItems === 1 ? "item" : "items"
      }`,
    });
  }
  if (
    s.uniqueItems &&
    v.some((x, i) => v.slice(0, i).some((y) => deepEqual(x, y)))
  ) {
    errs.push({
      type: "Invalid",
      field: at.field,
      value: "",
      detail: `${where} shouldn't contain duplicates`,
    });
  }
}

function validateObject(
  v: Json,
  s: SchemaProps,
  at: At,
  old: { value: unknown } | undefined,
  errs: FieldError[],
): void {
  const where = `${at.name} in body`;
  const n = Object.keys(v).length;
  if (s.minProperties !== undefined && n < s.minProperties) {
    errs.push({
      type: "Invalid",
      field: at.field,
      value: n,
      detail: `${where} should have at least ${s.minProperties} properties`,
    });
  }
  if (s.maxProperties !== undefined && n > s.maxProperties) {
    errs.push({
      type: "TooMany",
      field: at.field,
      value: n,
      detail: `must have at most ${s.maxProperties} ${
        s.maxProperties === 1 ? "item" : "items"
      }`,
    });
  }
  const oldObj = old && isObject(old.value) ? old.value : undefined;
  for (const [k, x] of Object.entries(v)) {
    const p = propertySchema(s, k);
    if (!p) continue;
    const o = oldObj && k in oldObj ? { value: oldObj[k] } : undefined;
    validate(x, p, child(at, k), o, errs);
  }
  for (const k of s.required ?? []) {
    if (!(k in v)) {
      errs.push({ type: "Required", field: child(at, k).field });
    }
  }
}

// The formats apiextensions-apiserver validates (others are accepted).
const FORMATS: Record<string, RegExp> = {
  "date-time":
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  datetime:
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid3: /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid4:
    /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  uuid5:
    /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  ipv4:
    /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  mac: /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i,
  byte: /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  hostname:
    /^(?=.{1,255}$)[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\.?$/,
  email: /^[^@\s]+@[^@\s]+$/,
};

function formatValid(format: string, v: string): boolean {
  if (format === "date-time" || format === "datetime" || format === "date") {
    if (!FORMATS[format].test(v)) return false;
    const [y, m, d] = v.slice(0, 10).split("-").map(Number);
    const day = new Date(Date.UTC(y, m - 1, d));
    return day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
  }
  if (format === "ipv6") return ipv6(v);
  if (format === "cidr") {
    const [ip, bits, extra] = v.split("/");
    if (extra !== undefined || !bits || !/^\d+$/.test(bits)) return false;
    return FORMATS.ipv4.test(ip)
      ? Number(bits) <= 32
      : ipv6(ip) && Number(bits) <= 128;
  }
  const re = FORMATS[format];
  return re ? re.test(v) : true;
}

function ipv6(v: string): boolean {
  try {
    return v.includes(":") && new URL(`http://[${v}]/`).hostname !== "";
  } catch {
    return false;
  }
}

/**
 * Duplicates in `x-kubernetes-list-type` set and map lists, anywhere in
 * the object: the second of equal items (set) or of equal keys (map) is a
 * Duplicate at its index.
 */
export function listTypeErrors(
  value: unknown,
  s: SchemaProps | undefined,
  path = "",
): FieldError[] {
  const errs: FieldError[] = [];
  walkLists(value, s, path, errs);
  return errs;
}

function walkLists(
  v: unknown,
  s: SchemaProps | undefined,
  path: string,
  errs: FieldError[],
): void {
  if (!s) return;
  if (Array.isArray(v)) {
    const type = s["x-kubernetes-list-type"];
    if (type === "set") {
      v.forEach((x, i) => {
        const first = v.findIndex((y) => deepEqual(x, y));
        const second = v.findIndex((y, j) => j > first && deepEqual(x, y));
        if (first < i && second === i) {
          errs.push({ type: "Duplicate", field: `${path}[${i}]`, value: x });
        }
      });
    } else if (type === "map") {
      const keys = s["x-kubernetes-list-map-keys"] ?? [];
      const seen: Json[] = [];
      v.forEach((x, i) => {
        if (!isObject(x)) return;
        const key: Json = {};
        for (const k of keys) {
          if (k in x) key[k] = x[k];
          else if (s.items?.properties?.[k]?.default !== undefined) {
            key[k] = s.items.properties[k].default;
          }
        }
        if (seen.some((o) => deepEqual(o, key))) {
          errs.push({ type: "Duplicate", field: `${path}[${i}]`, value: key });
        } else seen.push(key);
      });
    }
    v.forEach((x, i) => walkLists(x, s.items, `${path}[${i}]`, errs));
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      walkLists(x, propertySchema(s, k), join(path, k), errs);
    }
  }
}
