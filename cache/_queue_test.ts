import assert from "node:assert/strict";
import { KeyRing } from "./_queue.ts";

Deno.test("KeyRing keeps FIFO order across wrap-around and growth", () => {
  const ring = new KeyRing();
  const model: string[] = [];
  let next = 0;
  // Interleave pushes and shifts so the head wraps many times and the ring
  // grows while wrapped.
  for (let round = 0; round < 200; round++) {
    const pushes = (round * 7) % 23;
    const shifts = (round * 5) % 19;
    for (let i = 0; i < pushes; i++) {
      const key = `k${next++}`;
      ring.push(key);
      model.push(key);
    }
    for (let i = 0; i < shifts; i++) {
      assert.equal(ring.shift(), model.shift());
    }
    assert.equal(ring.size, model.length);
    assert.deepEqual(ring.toArray(), model);
  }
  while (model.length > 0) assert.equal(ring.shift(), model.shift());
  assert.equal(ring.shift(), undefined);
  assert.equal(ring.size, 0);
  ring.push("a");
  ring.clear();
  assert.deepEqual(ring.toArray(), []);
});
