/**
 * The return type of the callbacks kubecache awaits when they are async
 * (event handlers, a queue's pop function, workqueue reconciles, a leader's
 * work, `createOrPatch`'s mutate).
 *
 * @module
 */

/**
 * What a callback that may be sync or async returns: anything. A returned
 * promise (any thenable) is awaited, and its rejection counts as the
 * callback's failure; any other value is ignored, so a one-liner such as
 * `(cm) => names.push(cm.metadata.name!)` or `(p, initial) => !initial &&
 * console.log(p)` is a valid callback.
 *
 * Why this union rather than `void | Promise<void>`: TypeScript lets a
 * function with any return value stand for one returning plain `void`, but
 * not for one returning a union, so `void | Promise<void>` refused such
 * one-liners. Why not `unknown`: the `Promise<void>` member keeps
 * `() => new Promise((resolve) => ...resolve())` inferring `Promise<void>`,
 * where `unknown` would demand an argument for `resolve`.
 *
 * @example A sync one-liner and an async callback, both accepted
 * ```ts
 * import type { CallbackResult } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const names: string[] = [];
 * const push: (name: string) => CallbackResult = (name) => names.push(name);
 * const later: (name: string) => CallbackResult = async (name) => {
 *   await Promise.resolve();
 *   names.push(name);
 * };
 * push("a"); // returns a number: nothing to wait for
 * await later("b");
 * assert.deepEqual(names, ["a", "b"]);
 * ```
 */
export type CallbackResult = void | Promise<void> | NonNullable<unknown> | null;
