/**
 * The mutating admission stage of the fake API server's write path (see
 * `_apiserver_write_chain.ts`): kube-apiserver's mutating admission
 * plugins and `MutatingAdmissionWebhook`, which may change the proposed
 * object before the schema stage prunes, defaults and validates it. The
 * fake has no mutating plugin yet: the stage passes the write on
 * unchanged. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { ServerContext } from "./_apiserver_context.ts";
import type { Write } from "./_apiserver_decode.ts";

/**
 * Run the mutating admission of a write: it may replace `w.object` and
 * add warnings. @throws {StatusError} when admission denies the write
 */
export function mutatingAdmission(
  _ctx: ServerContext,
  _w: Write,
): Promise<void> | void {
  // The slot of mutating webhooks: nothing registered, nothing changes.
}
