import assert from "node:assert/strict";
import { readList } from "./list_decoder.ts";

function body(text: string, chunk = 7): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at += chunk));
    },
  });
}

const LIST = JSON.stringify({
  kind: "PodList",
  metadata: { resourceVersion: "9" },
  items: [1, 2, 3].map((i) => ({
    metadata: { name: `p${i}`, managedFields: [{ manager: "m" }] },
  })),
});

const strip = (item: unknown) => {
  const { managedFields: _, ...metadata } =
    (item as { metadata: Record<string, unknown> }).metadata;
  return { metadata };
};

Deno.test("readList() applies mapItem to each item, whether the body is parsed whole or item by item", async (t) => {
  for (const wholeBelow of [1 << 20, 0]) {
    await t.step(wholeBelow ? "whole" : "item by item", async () => {
      const seen: string[] = [];
      const list = await readList(body(LIST), {
        wholeBelow,
        mapItem: (item) => {
          seen.push((item as { metadata: { name: string } }).metadata.name);
          return strip(item);
        },
      }) as { metadata: unknown; items: unknown[] };
      assert.deepEqual(seen, ["p1", "p2", "p3"]);
      assert.deepEqual(list.items, [
        { metadata: { name: "p1" } },
        { metadata: { name: "p2" } },
        { metadata: { name: "p3" } },
      ]);
      assert.deepEqual(list.metadata, { resourceVersion: "9" });
    });
  }
});
