/**
 * Owner references and finalizers (controller-runtime
 * `pkg/controller/controllerutil`): {@link setControllerReference},
 * {@link addFinalizer}, {@link removeFinalizer}, {@link hasFinalizer}.
 *
 * @module
 */

import type { KubeObject, OwnerReference } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import { checkKubeObject, checkName } from "./_check.ts";

/**
 * Thrown by {@link setControllerReference} when another controller owns
 * the object already (controller-runtime `AlreadyOwnedError`): an object
 * has at most one controller.
 *
 * @example Two controllers cannot own one Secret
 * ```ts
 * import { AlreadyOwnedError, setControllerReference } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const owner = (name: string, uid: string) => ({
 *   apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", uid },
 * });
 * const secret = { metadata: { name: "s", namespace: "default" } };
 * setControllerReference(owner("a", "u1"), secret);
 * assert.throws(() => setControllerReference(owner("b", "u2"), secret), (err) => {
 *   assert.ok(err instanceof AlreadyOwnedError);
 *   assert.equal(err.owner.name, "a");
 *   return true;
 * });
 * ```
 */
export class AlreadyOwnedError extends Error {
  /** The controller reference the object has. */
  readonly owner: OwnerReference;
  /**
   * Make the error.
   * @param obj what the object is, for the message (`Secret default/s`)
   * @param owner its existing controller reference
   */
  constructor(obj: string, owner: OwnerReference) {
    super(
      `Object ${obj} is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = "AlreadyOwnedError";
    this.owner = owner;
  }
}

/** The API group of an apiVersion (`"apps/v1"` → `"apps"`, `"v1"` → `""`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? "" : apiVersion.slice(0, slash);
}

/**
 * Make `owner` the controller of `obj` (controller-runtime
 * `SetControllerReference`): add (or refresh) an `ownerReferences` entry
 * with `controller: true` and `blockOwnerDeletion: true`, so the garbage
 * collector deletes `obj` with its owner and an `owns()` watch maps `obj`'s
 * events to the owner. Other (non-controller) references are kept.
 *
 * @param owner the owning object; needs `apiVersion`, `kind`, `metadata.name` and `metadata.uid` (as read from the server or a cache)
 * @param obj the owned object, changed in place
 * @throws {AlreadyOwnedError} when another object is `obj`'s controller (same group, kind and name is the same owner)
 * @throws {TypeError} when `owner` lacks apiVersion, kind, name or uid, or the namespaces do not allow the reference (a namespaced owner must be in `obj`'s namespace; a cluster-scoped object cannot have a namespaced owner)
 *
 * @example A ConfigMap controls the Secret made from it
 * ```ts
 * import { setControllerReference } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app", namespace: "default", uid: "c1" } };
 * const secret = { metadata: { name: "app-secret", namespace: "default" } };
 * setControllerReference(cm, secret);
 * assert.deepEqual((secret.metadata as { ownerReferences?: unknown }).ownerReferences, [{
 *   apiVersion: "v1", kind: "ConfigMap", name: "app", uid: "c1", controller: true, blockOwnerDeletion: true,
 * }]);
 * ```
 */
export function setControllerReference(
  owner: DeepReadonly<KubeObject>,
  obj: KubeObject,
): void {
  const call = "setControllerReference";
  checkKubeObject(call, "owner", owner);
  checkKubeObject(call, "obj", obj);
  const { apiVersion, kind } = owner;
  const { name, uid, namespace: ownerNs } = owner.metadata;
  for (
    const [field, v] of [
      ["apiVersion", apiVersion],
      ["kind", kind],
      ["metadata.name", name],
      ["metadata.uid", uid],
    ] as const
  ) {
    if (typeof v !== "string" || v === "") {
      throw new TypeError(
        `${call}: owner.${field} must be set (read the owner from the server or a cache), got ${
          v === undefined ? "undefined" : JSON.stringify(v)
        }`,
      );
    }
  }
  const objNs = obj.metadata.namespace ?? "";
  if (ownerNs) {
    if (!objNs) {
      throw new TypeError(
        `${call}: cluster-scoped object ${obj.metadata.name} cannot have a namespace-scoped owner (${kind} ${ownerNs}/${name})`,
      );
    }
    if (objNs !== ownerNs) {
      throw new TypeError(
        `${call}: cross-namespace owner references are disallowed: owner ${kind} ${ownerNs}/${name}, object in namespace ${objNs}`,
      );
    }
  }
  const ref: OwnerReference = {
    apiVersion: apiVersion!,
    kind: kind!,
    name: name!,
    uid: uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
  const refs = obj.metadata.ownerReferences ?? [];
  const same = (r: OwnerReference) =>
    groupOf(r.apiVersion) === groupOf(ref.apiVersion) &&
    r.kind === ref.kind && r.name === ref.name;
  const current = refs.find((r) => r.controller === true);
  if (current && !same(current)) {
    const what = `${objNs ? `${objNs}/` : ""}${obj.metadata.name}`;
    throw new AlreadyOwnedError(what, current);
  }
  const i = refs.findIndex(same);
  obj.metadata.ownerReferences = i === -1
    ? [...refs, ref]
    : refs.map((r, j) => (j === i ? ref : r));
}

/**
 * The owner reference with `controller: true` of `obj`, if any
 * (apimachinery `metav1.GetControllerOf`).
 *
 * @param obj any object
 * @returns its controller reference, or undefined
 * @throws {TypeError} when `obj` is not an object with metadata
 *
 * @example
 * ```ts
 * import { controllerOf } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const pod = { metadata: { name: "p", ownerReferences: [
 *   { apiVersion: "v1", kind: "ConfigMap", name: "other", uid: "1" },
 *   { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-1", uid: "2", controller: true },
 * ] } };
 * assert.equal(controllerOf(pod)?.name, "web-1");
 * ```
 */
export function controllerOf(
  obj: DeepReadonly<KubeObject>,
): DeepReadonly<OwnerReference> | undefined {
  checkKubeObject("controllerOf", "obj", obj);
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/**
 * Add finalizer `name` to `obj` unless it has it (controller-runtime
 * `AddFinalizer`); write `obj` back to have it take effect.
 *
 * @param obj the object, changed in place
 * @param name the finalizer, e.g. `example.com/cleanup`
 * @returns whether it was added (false: it was there)
 *
 * @example
 * ```ts
 * import { addFinalizer, hasFinalizer } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const cm = { metadata: { name: "a" } };
 * assert.equal(addFinalizer(cm, "example.com/cleanup"), true);
 * assert.equal(addFinalizer(cm, "example.com/cleanup"), false);
 * assert.equal(hasFinalizer(cm, "example.com/cleanup"), true);
 * ```
 */
export function addFinalizer(obj: KubeObject, name: string): boolean {
  checkKubeObject("addFinalizer", "obj", obj);
  checkName("addFinalizer", "name", name);
  const list = obj.metadata.finalizers ?? [];
  if (list.includes(name)) return false;
  obj.metadata.finalizers = [...list, name];
  return true;
}

/**
 * Remove finalizer `name` from `obj` (controller-runtime
 * `RemoveFinalizer`); write `obj` back to have it take effect: once an
 * object being deleted has no finalizers left, the server deletes it.
 *
 * @param obj the object, changed in place
 * @param name the finalizer
 * @returns whether it was removed (false: it was not there)
 *
 * @example
 * ```ts
 * import { removeFinalizer } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const cm = { metadata: { name: "a", finalizers: ["a/x", "b/y"] } };
 * assert.equal(removeFinalizer(cm, "a/x"), true);
 * assert.deepEqual(cm.metadata.finalizers, ["b/y"]);
 * assert.equal(removeFinalizer(cm, "a/x"), false);
 * ```
 */
export function removeFinalizer(obj: KubeObject, name: string): boolean {
  checkKubeObject("removeFinalizer", "obj", obj);
  checkName("removeFinalizer", "name", name);
  const list = obj.metadata.finalizers ?? [];
  if (!list.includes(name)) return false;
  obj.metadata.finalizers = list.filter((f) => f !== name);
  return true;
}

/**
 * Whether `obj` has finalizer `name` (controller-runtime
 * `ContainsFinalizer`).
 *
 * @param obj the object (a cached one is fine: it is only read)
 * @param name the finalizer
 * @returns whether it is in `metadata.finalizers`
 *
 * @example
 * ```ts
 * import { hasFinalizer } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * assert.equal(hasFinalizer({ metadata: { name: "a", finalizers: ["a/x"] } }, "a/x"), true);
 * assert.equal(hasFinalizer({ metadata: { name: "a" } }, "a/x"), false);
 * ```
 */
export function hasFinalizer(
  obj: DeepReadonly<KubeObject>,
  name: string,
): boolean {
  checkKubeObject("hasFinalizer", "obj", obj);
  checkName("hasFinalizer", "name", name);
  return obj.metadata.finalizers?.includes(name) ?? false;
}
