import assert from "node:assert/strict";
import { decodeListStream } from "./_list_stream.ts";

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    pull(c) {
      if (off >= bytes.length) c.close();
      else c.enqueue(bytes.subarray(off, off += size));
    },
  });
}

Deno.test("decodeListStream() decodes a list however its bytes are split", async () => {
  const list = {
    kind: "PodList",
    apiVersion: "v1",
    metadata: { resourceVersion: "42", continue: "x" },
    items: [
      {
        metadata: { name: "a", annotations: { x: '}{][\\"\\\\' } },
        spec: { l: [1, [2, {}]] },
      },
      { metadata: { name: "é漢字😀" }, data: { s: 'a\\\\"b\\\\' } },
      {},
    ],
  };
  const bytes = new TextEncoder().encode(JSON.stringify(list));
  for (let size = 1; size <= bytes.length; size++) {
    const seen: unknown[] = [];
    const got = await decodeListStream(
      chunked(bytes, size),
      (i) => seen.push(i),
    );
    assert.deepEqual(got, list, `chunks of ${size} bytes`);
    assert.deepEqual(seen, list.items);
  }
});

Deno.test("decodeListStream() handles an empty list and fields after the items", async () => {
  const list = {
    kind: "PodList",
    items: [],
    metadata: { resourceVersion: "1" },
  };
  const got = await decodeListStream(new Response(JSON.stringify(list)).body!);
  assert.deepEqual(got, list);
});
