/**
 * The `x-kubernetes-validations` rules of a CRD's schema run over a custom
 * resource (and its old version) as apiextensions-apiserver's CEL
 * validator runs them: every rule of every node present, transition rules
 * (`oldSelf`) only with an old value, unchanged values ratcheted, the
 * failure's message from `message`, `messageExpression` or the rule; and
 * a CRD's defaults checked against the rules of their node. Rules the CEL
 * subset cannot evaluate are reported as warnings, never skipped silently.
 * Internal to `FakeApiServer`'s schema stage.
 *
 * @module
 */

import {
  CelError,
  CelUnsupported,
  type CelValue,
  celValueOf,
  evalCel,
  parseCel,
  usesOldSelf,
} from "./_apiserver_cel.ts";
import type { FieldError } from "./_apiserver_field_error.ts";
import {
  correlatedItem,
  deepEqual,
  join,
  propertySchema,
  type SchemaProps,
  type ValidationRule,
} from "./_apiserver_structural.ts";

type Json = Record<string, unknown>;

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
export class RuleRun {
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
        // apiextensions' field.Duplicate carries the value, no message.
        this.errors.push({ type: "Duplicate", field, value: type });
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
