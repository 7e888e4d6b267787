/**
 * The validating admission stage of the fake API server's write path (see
 * `_apiserver_write_chain.ts`): kube-apiserver's
 * `ValidatingAdmissionWebhook`, whose webhooks see the object as it will
 * be stored (pruned, defaulted, valid against its schema) and may only
 * deny it. The matching webhooks of the stored
 * ValidatingWebhookConfigurations are called at once
 * (`_apiserver_admission.ts`). Internal to `FakeApiServer`.
 *
 * @module
 */

import type { ServerContext } from "./_apiserver_context.ts";
import type { Write } from "./_apiserver_decode.ts";
import { attributesOf, runValidatingWebhooks } from "./_apiserver_admission.ts";

/**
 * Run the validating admission of a write; it never changes `w.object`.
 * @throws {StatusError} when admission denies the write
 */
export async function validatingAdmission(
  ctx: ServerContext,
  w: Write,
): Promise<void> {
  await runValidatingWebhooks(ctx, attributesOf(w), w.warnings);
}
