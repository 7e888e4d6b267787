/**
 * A store that reports its whole content after every change. Mirrors
 * client-go `tools/cache/undelta_store.go` (`UndeltaStore`,
 * `NewUndeltaStore`).
 *
 * @module
 */

import { checkFunction } from "./_validate.ts";
import type { KeyFunc } from "./keys.ts";
import { newStore, type Store } from "./store.ts";

/**
 * Create a {@link Store} that calls `push` with the full list of objects
 * after each `add`, `update`, `delete` and `replace` (client-go
 * `NewUndeltaStore`). Useful to feed a consumer that wants whole states
 * rather than deltas. `resync` does not push, as in client-go. `push` is
 * called synchronously, after the change is applied, with a fresh array;
 * when the change throws (a `KeyError`), nothing is pushed.
 *
 * @example
 * ```ts
 * import {
 *   newUndeltaStore,
 *   metaNamespaceKeyFunc,
 *   type KubeObject,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const states: number[] = [];
 * const store = newUndeltaStore<KubeObject>((all) => states.push(all.length), metaNamespaceKeyFunc);
 * store.add({ metadata: { name: "a" } });
 * store.add({ metadata: { name: "b" } });
 * store.delete({ metadata: { name: "a" } });
 * assert.deepEqual(states, [1, 2, 1]);
 * ```
 *
 * @typeParam T the object type
 * @param push receives every object after each change
 * @param keyFunc computes each object's key
 * @returns a store that pushes its state
 * @throws {TypeError} when `push` or `keyFunc` is not a function
 */
export function newUndeltaStore<T>(
  push: (all: T[]) => void,
  keyFunc: KeyFunc,
): Store<T> {
  checkFunction("newUndeltaStore", "push", push);
  checkFunction("newUndeltaStore", "keyFunc", keyFunc);
  const store = newStore<T>(keyFunc);
  return {
    add(obj: T): void {
      store.add(obj);
      push(store.list());
    },
    update(obj: T): void {
      store.update(obj);
      push(store.list());
    },
    delete(obj: T): void {
      store.delete(obj);
      push(store.list());
    },
    replace(list: T[], resourceVersion: string): void {
      store.replace(list, resourceVersion);
      push(store.list());
    },
    list: (): T[] => store.list(),
    listKeys: (): string[] => store.listKeys(),
    get: (obj: T): T | undefined => store.get(obj),
    getByKey: (key: string): T | undefined => store.getByKey(key),
    resync: (): void => store.resync(),
  };
}
