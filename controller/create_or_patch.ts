/**
 * {@link createOrPatch}: make an object on the server match what a
 * function says, creating it or patching only what changed
 * (controller-runtime `controllerutil.CreateOrPatch`).
 *
 * @module
 */

import { isNotFound } from "../api/errors.ts";
import type { CallbackResult } from "../api/callback.ts";
import type { KubeObject } from "../api/object.ts";
import { deepCopy, type DeepReadonly } from "../api/readonly.ts";
import type { ResourceType } from "../api/resources.ts";
import type { KubeClient } from "../client/rest.ts";
import {
  checkFunction,
  checkKubeObject,
  checkOptionalString,
  checkOptions,
  checkType,
  show,
} from "./_check.ts";

/**
 * What {@link createOrPatch} did (controller-runtime `OperationResult`).
 *
 * @example
 * ```ts
 * import type { OperationResult } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const log = (r: OperationResult) => r === "unchanged" ? "" : `secret ${r}`;
 * assert.equal(log("created"), "secret created");
 * ```
 */
export type OperationResult = "created" | "patched" | "unchanged";

/**
 * Options of {@link createOrPatch}.
 *
 * @example Cancelled with the reconcile
 * ```ts
 * import type { CreateOrPatchOptions, ReconcileContext } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const opts = (ctx: Pick<ReconcileContext, "signal">): CreateOrPatchOptions => ({
 *   signal: ctx.signal,
 *   fieldManager: "secret-controller",
 * });
 * assert.equal(opts({ signal: new AbortController().signal }).fieldManager, "secret-controller");
 * ```
 */
export interface CreateOrPatchOptions {
  /**
   * Cancels the GET and the write (pass the reconcile's `ctx.signal`):
   * the promise rejects with the signal's reason, and nothing is written
   * after it aborted.
   */
  signal?: AbortSignal;
  /** `fieldManager` of the create or patch: the name the server records for the fields written. */
  fieldManager?: string;
}

/**
 * Create `obj`, or bring the existing object of its name to what `mutate`
 * makes of it (controller-runtime `CreateOrPatch`):
 *
 * - GET the object named by `obj.metadata` (name, namespace);
 * - absent (404): `mutate` a copy of `obj`, then create it → `"created"`;
 * - present: `mutate(current)` on a copy of the server's object; when
 *   nothing changed, no request is sent → `"unchanged"`; else the
 *   difference is sent as a JSON merge patch (RFC 7386) → `"patched"`.
 *
 * `mutate` sets the fields this controller owns (data, labels, owner
 * reference…) and leaves the others as it finds them; it is called once,
 * on a copy, and must not change the name or namespace. The caller's `obj`
 * is never changed, so a cached object or a shared template may be passed. A conflicting writer between
 * the GET and the PATCH is not detected (a merge patch carries no
 * resourceVersion): fields set by `mutate` win, other fields are kept.
 *
 * @typeParam T the object type
 * @param client the client to write with
 * @param type the resource type
 * @param obj the object to create, naming the one to patch (its `metadata.name`, and `metadata.namespace` for a namespaced type)
 * @param mutate sets the desired state on the object it is given; a returned promise is awaited, any other return value ignored
 * @param opts `signal` cancels it, `fieldManager` names the writer
 * @returns what was done
 * @throws {TypeError} when an argument is of the wrong kind, or `mutate` changed the name or namespace
 * @throws {StatusError} when the server refuses (403, 409 on create after a race, 422…)
 * @throws the signal's reason when `opts.signal` aborts
 *
 * @example Keep a generated Secret's data
 * ```ts
 * import { createOrPatch } from "@kubecache/core/controller";
 * import { KubeClient, KubeConfig, Secrets, type Secret } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const desired = (): Secret => ({ metadata: { name: "db", namespace: "default" } });
 * const mutate = (s: Secret) => {
 *   s.stringData = undefined;
 *   s.data = { ...s.data, password: btoa("hunter2") };
 * };
 * assert.equal(await createOrPatch(client, Secrets, desired(), mutate), "created");
 * assert.equal(await createOrPatch(client, Secrets, desired(), mutate), "unchanged");
 * const patches = server.requests.filter((r) => r.method === "PATCH").length;
 * assert.equal(patches, 0);
 * ```
 */
export async function createOrPatch<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType<T>,
  obj: T | DeepReadonly<T>,
  mutate: (current: T) => CallbackResult,
  opts: CreateOrPatchOptions = {},
): Promise<OperationResult> {
  const call = "createOrPatch";
  if (typeof client?.get !== "function") {
    throw new TypeError(
      `${call}: client must be a KubeClient, got ${show(client)}`,
    );
  }
  checkType(call, "type", type);
  checkKubeObject(call, "obj", obj);
  checkFunction(call, "mutate", mutate);
  checkOptions(call, "opts", opts);
  const { signal, fieldManager } = opts;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(
      `${call}: opts.signal must be an AbortSignal, got ${show(signal)}`,
    );
  }
  checkOptionalString(call, "opts.fieldManager", fieldManager);
  const { name, namespace } = obj.metadata;
  if (typeof name !== "string" || name === "") {
    throw new TypeError(
      `${call}: obj.metadata.name must be set, got ${show(name)}`,
    );
  }
  signal?.throwIfAborted();
  let current: T;
  try {
    current = await client.get(type, name, { namespace, signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const desired = deepCopy(obj) as T;
    await mutate(desired);
    checkKey(desired, name, namespace);
    signal?.throwIfAborted();
    await client.create(type, desired, { namespace, signal, fieldManager });
    return "created";
  }
  const before = deepCopy(current) as T;
  const changed = deepCopy(current) as T;
  await mutate(changed);
  checkKey(changed, name, current.metadata.namespace);
  const patch = mergePatch(before, changed);
  if (patch === undefined) return "unchanged";
  signal?.throwIfAborted();
  await client.patch(type, name, patch, {
    namespace: current.metadata.namespace ?? namespace,
    patchType: "merge",
    signal,
    fieldManager,
  });
  return "patched";
}

function checkKey(obj: KubeObject, name: string, ns: string | undefined) {
  if (
    obj.metadata?.name !== name || (obj.metadata.namespace ?? "") !== (ns ?? "")
  ) {
    throw new TypeError(
      `createOrPatch: mutate must not change the name or namespace (${
        ns ? `${ns}/` : ""
      }${name})`,
    );
  }
}

/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`, or
 * undefined when they are equal. Objects are compared key by key (a key
 * gone becomes `null`); anything else is replaced whole.
 */
function mergePatch(from: unknown, to: unknown): unknown {
  if (isPlainObject(from) && isPlainObject(to)) {
    const out: Record<string, unknown> = {};
    let any = false;
    for (const [k, v] of Object.entries(to)) {
      if (v === undefined) continue;
      const d = k in from ? mergePatch(from[k], v) : v;
      if (d !== undefined) {
        out[k] = d;
        any = true;
      }
    }
    for (const k of Object.keys(from)) {
      if (from[k] !== undefined && (!(k in to) || to[k] === undefined)) {
        out[k] = null;
        any = true;
      }
    }
    return any ? out : undefined;
  }
  return JSON.stringify(from) === JSON.stringify(to) ? undefined : to;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
