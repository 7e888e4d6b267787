/**
 * The write path of the fake API server, kube-apiserver's chain, called
 * in order from here and only here:
 *
 * 1. decode (`_apiserver_decode.ts`, run by the verb handlers): the body
 *    read, a patch applied, the {@link Write} made;
 * 2. mutating admission (`_apiserver_admission_mutating.ts`);
 * 3. schema (`_apiserver_schema.ts`): a custom resource pruned and
 *    defaulted, then — once the strategy's status rule has decided which
 *    status the write stores (`PrepareForCreate`/`PrepareForUpdate` run
 *    before validation in kube-apiserver too) — validated;
 * 4. validating admission (`_apiserver_admission_validating.ts`);
 * 5. strategy and storage: the generic registry (`_apiserver_registry.ts`)
 *    runs the kind's strategy (`_apiserver_strategy*.ts`) and stores the
 *    object (`_apiserver_store.ts`: resourceVersion, history, watch
 *    fan-out).
 *
 * No stage imports a later one. The direct state methods of
 * `FakeApiServer` (no HTTP, synchronous) take {@link storeDirect}: schema,
 * strategy and storage, without admission (which calls out over HTTP) and
 * with status written as given (a controller with storage access).
 * Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { ServerContext } from "./_apiserver_context.ts";
import type { Write } from "./_apiserver_decode.ts";
import { mutatingAdmission } from "./_apiserver_admission_mutating.ts";
import { pruneAndDefault, validateSchema } from "./_apiserver_schema.ts";
import { validatingAdmission } from "./_apiserver_admission_validating.ts";
import {
  checkConditionalUpdate,
  statusPrepared,
} from "./_apiserver_strategy.ts";
import type { Cluster } from "./_apiserver_registry.ts";
import type { Table } from "./_apiserver_store.ts";
import type { Entry } from "./_apiserver_types.ts";

/**
 * Admit a decoded write and store it: every stage after decoding, in
 * order. @returns the stored entry (for a dry run, the would-be one)
 * @throws {StatusError} from any stage
 */
export async function admitAndStore(
  ctx: ServerContext,
  w: Write,
): Promise<Entry> {
  await mutatingAdmission(ctx, w);
  if (w.operation === "UPDATE") {
    const { type, strategy } = w.table;
    checkConditionalUpdate(strategy, type.resource, type.group, w.object);
  }
  pruneAndDefault(w);
  prepareStatus(w);
  validateSchema(w);
  await validatingAdmission(ctx, w);
  return store(ctx.cluster, w);
}

/**
 * A write of the direct state methods (`server.create`, `server.update`):
 * schema, strategy and storage. `unvalidated`: skip the kind's update
 * validation (a controller with storage access).
 */
export function storeDirect(
  cluster: Cluster,
  table: Table,
  operation: Write["operation"],
  obj: KubeObject,
  opts: { unvalidated?: boolean } = {},
): Entry {
  const ns = table.type.namespaced
    ? (obj.metadata?.namespace || "default")
    : "";
  const name = obj.metadata?.name;
  const old = operation === "UPDATE" && name !== undefined
    ? table.get(ns === "" ? name : `${ns}/${name}`)?.obj
    : undefined;
  const w: Write = {
    operation,
    table,
    namespace: ns,
    name,
    object: obj,
    oldObject: old,
    dryRun: false,
    fieldValidation: "Ignore",
    warnings: [],
  };
  pruneAndDefault(w);
  validateSchema(w);
  return store(cluster, w, opts);
}

/**
 * The strategy's rule for `status` (see `statusPrepared`), applied before
 * validation as kube-apiserver's `PrepareForCreate`/`PrepareForUpdate` are.
 */
function prepareStatus(w: Write): void {
  const sub = w.subresource === undefined
    ? undefined
    : w.table.strategy.subresources?.[w.subresource];
  if (!sub || sub.statusOnly) {
    w.object = statusPrepared(
      w.table.strategy,
      w.object,
      w.oldObject,
      sub?.statusOnly ?? false,
    );
  }
}

/** The registry's create or update: the kind's strategy, then storage. */
function store(
  cluster: Cluster,
  w: Write,
  opts: { unvalidated?: boolean } = {},
): Entry {
  if (w.operation === "CREATE") {
    return cluster.create(w.table, w.object, w.namespace, {
      dryRun: w.dryRun,
    });
  }
  return cluster.update(w.table, w.object, {
    namespace: w.namespace,
    name: w.name,
    unvalidated: opts.unvalidated,
  });
}
