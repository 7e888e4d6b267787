/**
 * The validating admission stage of the fake API server's write path (see
 * `_apiserver_write_chain.ts`): kube-apiserver's validating admission
 * plugins and `ValidatingAdmissionWebhook`, which see the object as it
 * will be stored (pruned, defaulted, valid against its schema) and may
 * only deny it. The fake has no validating plugin yet: the stage admits
 * every write. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { ServerContext } from "./_apiserver_context.ts";
import type { Write } from "./_apiserver_decode.ts";

/**
 * Run the validating admission of a write; it never changes `w.object`.
 * @throws {StatusError} when admission denies the write
 */
export function validatingAdmission(
  _ctx: ServerContext,
  _w: Write,
): Promise<void> | void {
  // The slot of validating webhooks: nothing registered, all admitted.
}
