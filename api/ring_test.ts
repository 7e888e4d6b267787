import assert from "node:assert/strict";
import { Ring } from "./ring.ts";

Deno.test("Ring keeps FIFO order across wrap-around and growth", () => {
  const ring = new Ring<string>();
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
  assert.equal(ring.shift(), undefined);
});

Deno.test("Ring rounds its capacity up and grows from a wrapped head", () => {
  const ring = new Ring<number>(3); // 4 slots
  for (let i = 0; i < 3; i++) ring.push(i);
  assert.equal(ring.shift(), 0);
  // The tail wraps to slot 0, then the ring grows while wrapped.
  for (let i = 3; i < 40; i++) ring.push(i);
  assert.deepEqual(ring.toArray(), Array.from({ length: 39 }, (_, i) => i + 1));
});

Deno.test("Ring lets go of what it shifted", () => {
  // A shifted slot is cleared: the ring holds only what is waiting.
  const ring = new Ring<{ n: number }>(2);
  const a = { n: 1 };
  ring.push(a);
  ring.push({ n: 2 });
  assert.equal(ring.shift(), a);
  assert.deepEqual(ring.toArray(), [{ n: 2 }]);
});
