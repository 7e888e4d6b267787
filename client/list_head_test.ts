// A list's metadata told before its items (docs/behaviour.md, Reflector: the
// pager requests the next page from it).

import assert from "node:assert/strict";
import { listHead, readList } from "./list_decoder.ts";
import { KubeClient } from "./rest.ts";
import { KubeConfig } from "./config.ts";
import type { ListMeta } from "../api/listwatch.ts";
import { listWatch } from "../api/resource_client.ts";
import { Pods } from "../api/resources.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("listHead() reads the metadata written before the items, and nothing from other shapes", () => {
  assert.deepEqual(
    listHead(enc(
      '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"c1","remainingItemCount":3},"items":[{"metadata"',
    )),
    { resourceVersion: "5", continue: "c1", remainingItemCount: 3 },
  );
  // Spaces, and an "items" key inside metadata, which is not the list's.
  assert.deepEqual(
    listHead(enc(
      '{ "metadata": {"items": 1, "continue": "c2"} ,\n "items" : [',
    )),
    { items: 1, continue: "c2" },
  );
  // Items first (the unstructured encoder), or the head not there yet.
  assert.equal(
    listHead(enc('{"apiVersion":"v1","items":[{"metadata":{}}],"kind"')),
    undefined,
  );
  assert.equal(
    listHead(enc('{"kind":"PodList","metadata":{"resour')),
    undefined,
  );
  // "items" inside a string value.
  assert.equal(
    listHead(enc('{"metadata":{"continue":"a\\",\\"items\\":["}')),
    undefined,
  );
  // A head past the first 4 KiB is not looked for.
  const pad = "x".repeat(5000);
  assert.equal(
    listHead(enc(`{"kind":"${pad}","metadata":{},"items":[`)),
    undefined,
  );
});

/** A body whose chunks are pulled one at a time, recording each pull. */
function pulledBody(
  chunks: string[],
  log: string[],
): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= chunks.length) return c.close();
      log.push(`chunk ${i}`);
      c.enqueue(enc(chunks[i++]));
    },
  }, { highWaterMark: 0 });
}

Deno.test("readList() calls onListMeta once, when the head has arrived and before the rest of the body is read", async (t) => {
  for (const wholeBelow of [1 << 20, 0]) {
    await t.step(wholeBelow ? "whole" : "item by item", async () => {
      const log: string[] = [];
      const list = await readList(
        pulledBody([
          '{"kind":"PodList","metadata":{"resourceVer',
          'sion":"9","continue":"next"},"items":[{"metadata":{"name":"a"}}',
          ',{"metadata":{"name":"b"}}]}',
        ], log),
        {
          wholeBelow,
          onListMeta: (meta) => log.push(`meta ${JSON.stringify(meta)}`),
        },
      ) as { items: unknown[] };
      assert.deepEqual(log, [
        "chunk 0",
        "chunk 1",
        'meta {"resourceVersion":"9","continue":"next"}',
        "chunk 2",
      ]);
      assert.equal(list.items.length, 2);
    });
  }
});

Deno.test("KubeClient.list() through listWatch() tells a page's continue token before the page resolves", async () => {
  const page2 = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      const q = new URL(req.url).searchParams;
      if (q.get("continue")) {
        page2.resolve();
        return Response.json({ metadata: { resourceVersion: "3" }, items: [] });
      }
      // The first page sends its head, then waits for page 2's request.
      const body = new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(enc(
            '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3","continue":"c1"},"items":[',
          ));
          await page2.promise;
          c.enqueue(enc('{"metadata":{"namespace":"ns","name":"a"}}]}'));
          c.close();
        },
      });
      return new Response(body, {
        headers: { "content-type": "application/json" },
      });
    },
  );
  try {
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: `http://127.0.0.1:${server.addr.port}`,
      }),
    );
    const lw = listWatch(client, Pods);
    let second: Promise<{ items: unknown[] }> | undefined;
    const heads: ListMeta[] = [];
    const first = await lw.list({
      limit: 1,
      onListMeta: (meta) => {
        heads.push(meta);
        second = lw.list({ limit: 1, continue: meta.continue });
      },
    });
    assert.deepEqual(heads, [{ resourceVersion: "3", continue: "c1" }]);
    assert.equal(first.items.length, 1);
    assert.deepEqual((await second!).items, []);
  } finally {
    await server.shutdown();
  }
});
