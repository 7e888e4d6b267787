/**
 * What every kind's strategy shares: the discovery verb lists and the
 * status subresource. A strategy (`ResourceStrategy` in
 * `_apiserver_types.ts`) is the counterpart of kube-apiserver's
 * per-resource `rest.RESTCreateStrategy`, `RESTUpdateStrategy`,
 * `RESTDeleteStrategy`, `GetAttrs` and `TableConvertor`
 * (pkg/registry/<group>/<resource>/strategy.go); the generic store
 * (`_apiserver_registry.ts`) and the verb handlers call its hooks and
 * never test a kind's name. Strategies live in the
 * `_apiserver_strategy_*.ts` family files and are looked up in the map of
 * `_apiserver_strategies.ts`. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { ResourceStrategy, Subresource } from "./_apiserver_types.ts";
import { invalid } from "./_apiserver_status.ts";

/** The eight verbs of a plain resource, in discovery order. */
export const ALL_VERBS: readonly string[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** Verbs of a `/status`-like subresource. */
export const SUBRESOURCE_VERBS: readonly string[] = ["get", "patch", "update"];

/** The status subresource: GET the object, PUT/PATCH change only `status`. */
export const STATUS: Subresource = {
  discovery: {},
  verbs: SUBRESOURCE_VERBS,
  view: (e) => JSON.parse(JSON.stringify(e.obj)),
  update: (_old, body) => body as KubeObject,
  statusOnly: true,
};

/**
 * How a write to the object itself (not to `/status`) treats `status`
 * (kube-apiserver's strategies: `PrepareForCreate` resets it and
 * `PrepareForUpdate` copies the stored one back, for every kind with a
 * status subresource): `dropOnCreate` and `keepOnUpdate` are both false
 * for a kind without the subresource, where status is written like any
 * field.
 */
export function mainResourceStatus(strategy: ResourceStrategy): {
  dropOnCreate: boolean;
  keepOnUpdate: boolean;
} {
  const sub = strategy.subresources?.status !== undefined;
  return {
    dropOnCreate: sub && !strategy.statusOnCreate,
    keepOnUpdate: sub,
  };
}

/**
 * The object a write stores as far as `status` goes, as the strategies'
 * `PrepareForCreate`/`PrepareForUpdate` make it before validation: a
 * write through the status subresource (`statusOnly`) keeps everything of
 * the stored object but its status (the request's resourceVersion stays,
 * for the conflict check); a write to the object itself, when status is a
 * subresource, keeps the stored status (update) or none (create).
 */
export function statusPrepared(
  strategy: ResourceStrategy,
  obj: KubeObject,
  old: KubeObject | undefined,
  statusOnly: boolean,
): KubeObject {
  const rec = obj as unknown as Record<string, unknown>;
  if (statusOnly && old) {
    const next = JSON.parse(JSON.stringify(old)) as Record<string, unknown> & {
      metadata: Record<string, unknown>;
    };
    if (rec.status === undefined) delete next.status;
    else next.status = rec.status;
    const rv = obj.metadata?.resourceVersion;
    if (rv === undefined) delete next.metadata.resourceVersion;
    else next.metadata.resourceVersion = rv;
    return next as unknown as KubeObject;
  }
  const status = mainResourceStatus(strategy);
  if (old ? !status.keepOnUpdate : !status.dropOnCreate) return obj;
  const { status: _given, ...rest } = rec;
  const prev = (old as unknown as Record<string, unknown> | undefined)?.status;
  return (prev === undefined
    ? rest
    : { ...rest, status: prev }) as unknown as KubeObject;
}

/**
 * A PUT without `metadata.resourceVersion` of a kind whose strategy does
 * not allow unconditional updates (custom resources): 422 Invalid naming
 * the resource, as genericregistry's `Store.Update` answers.
 * @throws {StatusError} 422
 */
export function checkConditionalUpdate(
  strategy: ResourceStrategy,
  resource: string,
  group: string,
  obj: KubeObject,
): void {
  if (strategy.unconditionalUpdate !== false) return;
  if (obj.metadata?.resourceVersion) return;
  throw invalid(resource, obj.metadata?.name ?? "", [{
    field: "metadata.resourceVersion",
    message: "Invalid value: 0x0: must be specified for an update",
  }], group);
}
