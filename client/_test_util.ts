// Helpers shared by the client tests: a rejection catcher. (The throw-away
// PKI they use is testing/pki_test_util.ts's makePki().)

import assert from "node:assert/strict";

/** The error `p` rejects with; fails when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail("expected a rejection");
}
