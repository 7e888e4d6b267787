/**
 * apimachinery's `field.Error` as the fake API server's validation builds
 * and prints it: a type (the Status cause's `FieldValue…` reason), a field
 * path, the bad value printed as Go's `%v`/`%q`/`%#v` print it, and a
 * detail. Internal to `FakeApiServer`.
 *
 * @module
 */

/** `field.ErrorType`: its cause reason and its text. */
export const FIELD_ERROR_TYPES = {
  Required: ["FieldValueRequired", "Required value"],
  Invalid: ["FieldValueInvalid", "Invalid value"],
  NotSupported: ["FieldValueNotSupported", "Unsupported value"],
  TypeInvalid: ["FieldValueTypeInvalid", "Invalid value"],
  TooLong: ["FieldValueTooLong", "Too long"],
  TooMany: ["FieldValueTooMany", "Too many"],
  Duplicate: ["FieldValueDuplicate", "Duplicate value"],
  Forbidden: ["FieldValueForbidden", "Forbidden"],
} as const;

/** A validation error at a field. */
export interface FieldError {
  type: keyof typeof FIELD_ERROR_TYPES;
  /** The path, `<nil>` for none (`spec.endpoints[0].name`). */
  field: string;
  /** The bad value (not printed for Required, Forbidden, TooLong). */
  value?: unknown;
  detail?: string;
  /** A Go int (not int64): printed with `%#v` like any other value. */
  intValue?: boolean;
}

/** `field.Error.ErrorBody()`: the text after `<field>: `. */
export function errorBody(e: FieldError): string {
  const [, text] = FIELD_ERROR_TYPES[e.type];
  let s: string = text;
  if (
    e.type !== "Required" && e.type !== "Forbidden" && e.type !== "TooLong"
  ) {
    s = `${text}: ${goValue(e.value)}`;
  }
  return e.detail ? `${s}: ${e.detail}` : s;
}

/** `field.Error.Error()`. */
export function errorText(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/**
 * A bad value as `ErrorBody` prints it: numbers and booleans with `%v`,
 * strings with `%q`, null as `"null"`, anything else with `%#v`.
 */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '"null"';
  if (typeof v === "number") return goFloat(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  return goSharpV(v);
}

/** A JSON number as Go's `%v` prints an int64 or a float64 (`1e+06`). */
export function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) {
    return BigInt(n).toString();
  }
  return goG(n);
}

/** Go's `%v` of a float64: shortest digits, an exponent below 1e-4 and from 1e6. */
function goG(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN";
  const [mant, expText] = n.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : `${Math.abs(exp)}`;
    return `${mant}e${exp < 0 ? "-" : "+"}${e}`;
  }
  return String(n);
}

/** Go's `%#v` of a value decoded from JSON into `interface{}`. */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return "interface {}(nil)";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return goFloat(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) {
    return `[]interface {}{${v.map(goSharpV).join(", ")}}`;
  }
  const o = v as Record<string, unknown>;
  const parts = Object.keys(o).sort().map((k) =>
    `${JSON.stringify(k)}:${goSharpV(o[k])}`
  );
  return `map[string]interface {}{${parts.join(", ")}}`;
}
