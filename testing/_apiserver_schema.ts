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
import { RuleRun } from "./_apiserver_schema_rules.ts";
import {
  applyDefaults,
  prune,
  type SchemaProps,
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
    const strict = `strict decoding error: ${
      removed.map((p) => `unknown field ${JSON.stringify(p)}`).join(", ")
    }`;
    // A POST or PUT body fails in the decoder, whose error the handler
    // wraps; a patch fails after it is applied, unwrapped.
    const { kind, version } = w.table.type;
    throw badRequest(
      w.patchType === undefined
        ? `${kind} in version "${version}" cannot be handled as a ${kind}: ${strict}`
        : strict,
    );
  }
  if (w.fieldValidation === "Warn") {
    for (const p of removed) w.warnings.push(`unknown field "${p}"`);
  }
  applyDefaults(obj, schema);
  w.object = obj as unknown as KubeObject;
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
