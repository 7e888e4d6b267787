/**
 * The schema stage of the fake API server's write path (see
 * `_apiserver_write_chain.ts`): a custom resource is pruned and defaulted
 * against its CustomResourceDefinition's structural schema (as
 * apiextensions-apiserver's decoder does), then validated (its strategy's
 * `Validate`/`ValidateUpdate`): the OpenAPI schema with ratcheting, the
 * list types, then the `x-kubernetes-validations` rules — unless a
 * blocking error (type, required, enum, too long, too many) came first,
 * which adds the `<nil>` cause saying some rules were not checked. All
 * errors of one write come back in one 422 Invalid. Kinds without a schema
 * pass through. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import {
  CelError,
  CelUnsupported,
  type CelValue,
  celValueOf,
  evalCel,
  parseCel,
  usesOldSelf,
} from "./_apiserver_cel.ts";
import type { Write } from "./_apiserver_decode.ts";
import {
  errorBody,
  errorText,
  type FieldError,
} from "./_apiserver_field_error.ts";
import {
  listTypeErrors,
  validateSchemaValue,
} from "./_apiserver_schema_validation.ts";
import { badRequest, invalid } from "./_apiserver_status.ts";
import {
  applyDefaults,
  correlatedItem,
  deepEqual,
  join,
  propertySchema,
  prune,
  type SchemaProps,
  type ValidationRule,
} from "./_apiserver_structural.ts";

type Json = Record<string, unknown>;

function schemaOf(w: Write): SchemaProps | undefined {
  return w.table.strategy.openAPIV3Schema as SchemaProps | undefined;
}

/**
 * Prune the fields the schema does not know (a warning each, or 400 with
 * `fieldValidation=Strict`) and apply its defaults, in `w.object`.
 * @throws {StatusError} 400 for an unknown field under Strict
 */
export function pruneAndDefault(w: Write): void {
  const schema = schemaOf(w);
  if (!schema) return;
  const obj = structuredClone(w.object) as unknown as Json;
  const removed = prune(obj, schema);
  if (removed.length > 0 && w.fieldValidation === "Strict") {
    throw badRequest(
      `strict decoding error: ${
        removed.map((p) => `unknown field ${JSON.stringify(p)}`).join(", ")
      }`,
    );
  }
  if (w.fieldValidation === "Warn") {
    for (const p of removed) w.warnings.push(`unknown field "${p}"`);
  }
  applyDefaults(obj, schema);
  w.object = obj as unknown as KubeObject;
}

/**
 * The object as read from storage: the schema's defaults applied (a
 * default added to the CRD after the object was stored shows on read).
 * @returns the same object when nothing is defaulted
 */
export function defaultedOnRead(
  obj: KubeObject,
  schema: Record<string, unknown> | undefined,
): KubeObject {
  if (!schema) return obj;
  const copy = structuredClone(obj) as unknown as Json;
  applyDefaults(copy, schema as SchemaProps);
  return deepEqual(copy, obj) ? obj : copy as unknown as KubeObject;
}

/**
 * Validate `w.object` against its schema (with `w.oldObject` for
 * transition rules and ratcheting). @throws {StatusError} 422 Invalid
 */
export function validateSchema(w: Write): void {
  const schema = schemaOf(w);
  if (!schema) return;
  const obj = w.object as unknown as Json;
  const old = w.oldObject as unknown as Json | undefined;
  const sub = w.subresource === undefined
    ? undefined
    : w.table.strategy.subresources?.[w.subresource];
  const errs: FieldError[] = [];
  if (sub?.statusOnly) {
    // The status subresource validates status alone, rooted at it.
    const statusSchema = schema.properties?.status;
    if (statusSchema && "status" in obj) {
      const prev = old && "status" in old ? { value: old.status } : undefined;
      errs.push(
        ...validateSchemaValue(obj.status, statusSchema, "status", prev),
      );
    }
  } else {
    errs.push(
      ...validateSchemaValue(obj, schema, "", old ? { value: old } : undefined),
    );
  }
  errs.push(...listTypeErrors(obj, schema));
  const blocking = errs.some((e) =>
    e.type === "NotSupported" || e.type === "Required" ||
    e.type === "TooLong" || e.type === "TooMany" || e.type === "TypeInvalid"
  );
  if (blocking) {
    errs.push({
      type: "Invalid",
      field: "<nil>",
      value: null,
      detail:
        "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    });
  } else {
    const rules = new RuleRun(w.warnings);
    rules.walk(obj, schema, "", old === undefined ? undefined : { value: old });
    errs.push(...rules.errors);
  }
  if (errs.length === 0) return;
  // Go's map order makes the real order random; sorted, it is stable.
  errs.sort((a, b) => errorText(a) < errorText(b) ? -1 : 1);
  throw invalid(
    w.table.type.kind,
    w.object.metadata?.name ?? w.name ?? "",
    errs.map((e) => ({
      field: e.field,
      message: errorBody(e),
      reason: `FieldValue${e.type}`,
    })),
    w.table.type.group,
  );
}

const PARSED = new Map<string, ReturnType<typeof parseCel> | Error>();

function parsed(src: string): ReturnType<typeof parseCel> {
  let p = PARSED.get(src);
  if (p === undefined) {
    try {
      p = parseCel(src);
    } catch (err) {
      p = err as Error;
    }
    PARSED.set(src, p);
  }
  if (p instanceof Error) throw p;
  return p;
}

/** The result of one rule on one value. */
type Outcome =
  | { ok: true }
  | { ok: false; message: string }
  | { unsupported: string };

/**
 * Evaluate one `x-kubernetes-validations` rule with `self` (and `oldSelf`
 * for a transition rule, skipped without an old value).
 */
export function evaluateRule(
  rule: ValidationRule,
  self: unknown,
  s: SchemaProps,
  old: { value: unknown } | undefined,
): Outcome | undefined {
  let expr;
  try {
    expr = parsed(rule.rule);
  } catch (err) {
    return { unsupported: (err as Error).message };
  }
  const transition = usesOldSelf(expr);
  if (transition && !old) return undefined;
  const vars = new Map<string, CelValue>([["self", celValueOf(self, s)]]);
  if (transition) vars.set("oldSelf", celValueOf(old!.value, s));
  let result: CelValue;
  try {
    result = evalCel(expr, vars);
  } catch (err) {
    if (err instanceof CelUnsupported) return { unsupported: err.message };
    if (err instanceof CelError) {
      return {
        ok: false,
        message: `${err.message} evaluating rule: ${rule.rule.trim()}`,
      };
    }
    throw err;
  }
  if (result === true) return { ok: true };
  if (result !== false) {
    return {
      ok: false,
      message: `rule did not evaluate to a bool: ${rule.rule.trim()}`,
    };
  }
  if (rule.message) return { ok: false, message: rule.message };
  if (rule.messageExpression) {
    try {
      const m = evalCel(parsed(rule.messageExpression), vars);
      if (typeof m === "string" && m.trim() !== "") {
        return { ok: false, message: m };
      }
    } catch {
      // kube-apiserver falls back to the rule when the message fails.
    }
  }
  return { ok: false, message: `failed rule: ${rule.rule.trim()}` };
}

/** The CEL rules of a schema run over an object and its old version. */
class RuleRun {
  readonly errors: FieldError[] = [];
  readonly #warnings: string[];

  constructor(warnings: string[]) {
    this.#warnings = warnings;
  }

  walk(
    v: unknown,
    s: SchemaProps,
    path: string,
    old: { value: unknown } | undefined,
  ): void {
    // Ratcheting: an unchanged value keeps whatever its rules say.
    if (old && deepEqual(v, old.value)) return;
    if (v === undefined || v === null) return;
    for (const rule of s["x-kubernetes-validations"] ?? []) {
      this.#check(rule, v, s, path, old);
    }
    if (Array.isArray(v)) {
      if (!s.items) return;
      v.forEach((x, i) => {
        const o = old ? correlatedItem(s, x, old.value) : undefined;
        this.walk(
          x,
          s.items!,
          `${path}[${i}]`,
          o === undefined ? undefined : { value: o },
        );
      });
    } else if (typeof v === "object") {
      const prev = old?.value as Json | undefined;
      for (const [k, x] of Object.entries(v as Json)) {
        const p = propertySchema(s, k);
        if (!p) continue;
        const o = prev && typeof prev === "object" && k in prev
          ? { value: prev[k] }
          : undefined;
        this.walk(x, p, join(path, k), o);
      }
    }
  }

  #check(
    rule: ValidationRule,
    v: unknown,
    s: SchemaProps,
    path: string,
    old: { value: unknown } | undefined,
  ): void {
    const out = evaluateRule(rule, v, s, old);
    if (!out || "ok" in out && out.ok) return;
    if ("unsupported" in out) {
      this.#warnings.push(
        `x-kubernetes-validations rule ${JSON.stringify(rule.rule)} at ${
          path || "<root>"
        } was not checked: FakeApiServer does not evaluate it (${out.unsupported})`,
      );
      return;
    }
    const field = rule.fieldPath
      ? path + (rule.fieldPath.startsWith(".") ? "" : ".") + rule.fieldPath
      : path || "<nil>";
    const type = s["x-kubernetes-int-or-string"] ? "" : s.type ?? "";
    switch (rule.reason) {
      case "FieldValueForbidden":
        this.errors.push({ type: "Forbidden", field, detail: out.message });
        break;
      case "FieldValueRequired":
        this.errors.push({ type: "Required", field, detail: out.message });
        break;
      case "FieldValueDuplicate":
        this.errors.push({
          type: "Duplicate",
          field,
          value: type,
          detail: out.message,
        });
        break;
      default:
        this.errors.push({
          type: "Invalid",
          field,
          value: type,
          detail: out.message,
        });
    }
  }
}

/**
 * A CRD's defaults checked against the `x-kubernetes-validations` rules
 * of their own node, as apiextensions validates a CRD (the default as
 * written, without the defaults below it). @returns the errors, each at
 * `<base>.properties[a].properties[b].default`
 */
export function defaultRuleErrors(
  s: SchemaProps,
  base: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const visit = (node: SchemaProps, path: string) => {
    if (node.default !== undefined) {
      for (const rule of node["x-kubernetes-validations"] ?? []) {
        const out = evaluateRule(rule, node.default, node, undefined);
        if (out && "ok" in out && !out.ok) {
          errs.push({
            type: "Invalid",
            field: `${path}.default`,
            value: node.type ?? "",
            detail: out.message,
          });
        }
      }
    }
    for (const [k, p] of Object.entries(node.properties ?? {})) {
      visit(p, `${path}.properties[${k}]`);
    }
    if (node.items) visit(node.items, `${path}.items`);
    if (typeof node.additionalProperties === "object") {
      visit(node.additionalProperties, `${path}.additionalProperties`);
    }
  };
  visit(s, base);
  return errs;
}
