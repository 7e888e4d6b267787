// The close rules every queue shares (client-go `Queue.Close`): pops
// waiting at close reject with FIFOClosedError, items queued before close
// still pop (oldest, or smallest, first), then pop rejects. One table for
// FIFO, DeltaFIFO and Heap instead of the same two tests in each file.

import assert from "node:assert/strict";
import { DeltaFIFO } from "./delta_fifo.ts";
import { FIFO, FIFOClosedError } from "./fifo.ts";
import { Heap } from "./heap.ts";

interface Obj {
  name: string;
  val: number;
}
const byName = (o: unknown): string => (o as Obj).name;

/** A queue seen through the calls these rules use; pop gives the value. */
interface Closable {
  add(name: string, val: number): void;
  pop(): Promise<number>;
  close(): void;
  isClosed(): boolean;
}

const QUEUES: [string, () => Closable][] = [
  ["FIFO", () => {
    const q = new FIFO<Obj>(byName);
    return {
      add: (name, val) => q.add({ name, val }),
      pop: async () => (await q.pop(() => {})).val,
      close: () => q.close(),
      isClosed: () => q.isClosed(),
    };
  }],
  ["DeltaFIFO", () => {
    const q = new DeltaFIFO<Obj>({ keyFunction: byName });
    return {
      add: (name, val) => q.add({ name, val }),
      pop: async () => {
        const deltas = await q.pop(() => {});
        return (deltas[deltas.length - 1].object as Obj).val;
      },
      close: () => q.close(),
      isClosed: () => q.isClosed(),
    };
  }],
  ["Heap", () => {
    const q = new Heap<Obj>(byName, (a, b) => a.val < b.val);
    return {
      add: (name, val) => q.add({ name, val }),
      pop: async () => (await q.pop()).val,
      close: () => q.close(),
      isClosed: () => q.isClosed(),
    };
  }],
];

for (const [name, make] of QUEUES) {
  Deno.test(`${name}.close() rejects every waiting pop, and later pops, with FIFOClosedError`, async () => {
    const q = make();
    const waiting = Array.from({ length: 10 }, () => q.pop());
    assert.equal(q.isClosed(), false);
    q.close();
    assert.equal(q.isClosed(), true);
    for (const p of waiting) await assert.rejects(p, FIFOClosedError);
    await assert.rejects(q.pop(), FIFOClosedError);
  });

  Deno.test(`${name}.pop() drains what was queued before close, then rejects`, async () => {
    const q = make();
    q.add("a", 1);
    q.add("b", 2);
    q.close();
    assert.deepEqual([await q.pop(), await q.pop()], [1, 2]);
    await assert.rejects(q.pop(), FIFOClosedError);
  });
}
