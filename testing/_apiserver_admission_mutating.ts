/**
 * The mutating admission stage of the fake API server's write path (see
 * `_apiserver_write_chain.ts`): kube-apiserver's `MutatingAdmissionWebhook`,
 * which may change the proposed object before the schema stage prunes,
 * defaults and validates it. The matching webhooks of the stored
 * MutatingWebhookConfigurations are called one after the other and their
 * JSON patches applied (`_apiserver_admission.ts`). Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import type { ServerContext } from "./_apiserver_context.ts";
import type { Write } from "./_apiserver_decode.ts";
import { attributesOf, runMutatingWebhooks } from "./_apiserver_admission.ts";

/**
 * Run the mutating admission of a write: it may replace `w.object` and
 * add warnings. @throws {StatusError} when admission denies the write
 */
export async function mutatingAdmission(
  ctx: ServerContext,
  w: Write,
): Promise<void> {
  const patched = await runMutatingWebhooks(ctx, attributesOf(w), w.warnings);
  if (patched) w.object = patched;
}
