import assert from "node:assert/strict";
import {
  type BatchWatchIterator,
  hasNextBatch,
  type ObjectList,
  type WatchEvent,
} from "./listwatch.ts";
import {
  listWatch,
  METADATA_LIST_ACCEPT,
  METADATA_WATCH_ACCEPT,
  metadataListWatch,
  type ResourceClient,
  type ResourceRequestOptions,
} from "./resource_client.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { Pods } from "./resources.ts";
import type { KubeObject, PartialObjectMetadata } from "./object.ts";
import { newSharedIndexInformer } from "../cache/shared_informer.ts";
import { stripManagedFields } from "../cache/transform.ts";

/** A ResourceClient that records each call's options and answers from a script. */
function recordingClient(
  list: ObjectList<KubeObject>,
  events: WatchEvent<KubeObject>[] = [],
) {
  const calls: { verb: string; opts: ResourceRequestOptions }[] = [];
  const client: ResourceClient = {
    list: <T extends KubeObject>(
      _t: unknown,
      opts: ResourceRequestOptions = {},
    ) => {
      calls.push({ verb: "list", opts });
      return Promise.resolve(list as ObjectList<T>);
    },
    watch: <T extends KubeObject>(
      _t: unknown,
      opts: ResourceRequestOptions = {},
    ) => {
      calls.push({ verb: "watch", opts });
      const signal = opts.signal;
      return Promise.resolve((async function* () {
        yield* events as WatchEvent<T>[];
        // Then stay open until stopped, as a quiet watch does.
        if (signal && !signal.aborted) {
          await new Promise((r) =>
            signal.addEventListener("abort", r, { once: true })
          );
        }
      })());
    },
  };
  return { client, calls };
}

function meta(name: string, rv: string, labels = {}): PartialObjectMetadata {
  return {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: { name, namespace: "default", resourceVersion: rv, labels },
  };
}

Deno.test("metadataListWatch() lists and watches with the PartialObjectMetadata Accept headers and the filters", async () => {
  const { client, calls } = recordingClient({ metadata: {}, items: [] });
  const lw = metadataListWatch(client, Pods, {
    namespace: "team",
    labelSelector: "app=web",
  });
  await lw.list({ limit: 500 });
  const ac = new AbortController();
  const events = await lw.watch({ resourceVersion: "5" }, ac.signal);
  ac.abort();
  for await (const _ of events) { /* ends on abort */ }
  assert.deepEqual(calls.map((c) => [c.verb, c.opts.accept]), [
    ["list", METADATA_LIST_ACCEPT],
    ["watch", METADATA_WATCH_ACCEPT],
  ]);
  assert.equal(
    METADATA_LIST_ACCEPT,
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
  );
  assert.equal(
    METADATA_WATCH_ACCEPT,
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
  );
  for (const { opts } of calls) {
    assert.equal(opts.namespace, "team");
    assert.equal(opts.labelSelector, "app=web");
  }
  assert.equal(calls[0].opts.limit, 500);
  assert.equal(calls[1].opts.resourceVersion, "5");
});

Deno.test("listWatch() sends no Accept override", async () => {
  const { client, calls } = recordingClient({ metadata: {}, items: [] });
  await listWatch(client, Pods).list({});
  assert.equal(calls[0].opts.accept, undefined);
});

Deno.test("KubeClient.list() and watch() send the accept option as the Accept header", async () => {
  const seen: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      seen.push(req.headers.get("accept") ?? "");
      if (new URL(req.url).searchParams.has("watch")) {
        return new Response("");
      }
      return Response.json({ metadata: {}, items: [] });
    },
  );
  try {
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: `http://127.0.0.1:${server.addr.port}`,
      }),
    );
    const lw = metadataListWatch(client, Pods);
    await lw.list({});
    for await (const _ of await lw.watch({})) { /* empty stream */ }
    await client.list(Pods);
    assert.deepEqual(seen, [
      METADATA_LIST_ACCEPT,
      METADATA_WATCH_ACCEPT,
      "application/json",
    ]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("an informer over metadataListWatch() caches PartialObjectMetadata and tells handlers of changes", async () => {
  const { client } = recordingClient(
    {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "2" },
      items: [meta("a", "1", { app: "web" }), meta("b", "2")],
    },
    [{ type: "MODIFIED", object: meta("b", "3", { app: "web" }) }],
  );
  const informer = newSharedIndexInformer(metadataListWatch(client, Pods), {
    indexers: {
      app: (o) => o.metadata.labels?.app ? [o.metadata.labels.app] : [],
    },
  });
  const updated = Promise.withResolvers<
    { kind?: string; metadata: { resourceVersion?: string } }
  >();
  informer.addEventHandler({ onUpdate: (_old, obj) => updated.resolve(obj) });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  const obj = await updated.promise;
  assert.equal(obj.kind, "PartialObjectMetadata");
  assert.equal(obj.metadata.resourceVersion, "3");
  assert.deepEqual(
    informer.getIndexer().byIndex("app", "web").map((o) => o.metadata.name)
      .sort(),
    ["a", "b"],
  );
  stop.abort();
  await running;
});

Deno.test("listWatch() with a transform passes it to the client as mapItem and applies it to watched objects, not to bookmarks", async () => {
  const strip = (o: KubeObject): KubeObject => ({
    ...o,
    metadata: {
      name: o.metadata.name,
      resourceVersion: o.metadata.resourceVersion,
    },
  });
  const bookmark = {
    type: "BOOKMARK" as const,
    object: { metadata: { resourceVersion: "9", annotations: { a: "b" } } },
  };
  const { client, calls } = recordingClient({ metadata: {}, items: [] }, [
    { type: "MODIFIED", object: meta("a", "8", { app: "web" }) },
    bookmark,
  ]);
  const lw = metadataListWatch(client, Pods, { transform: strip });
  await lw.list({});
  // The transform runs after full objects are reduced to their metadata.
  const item = meta("x", "3", { app: "web" });
  assert.deepEqual(calls[0].opts.mapItem!(item), strip(item));
  const full = { ...item, apiVersion: "v1", kind: "Pod", spec: {} };
  assert.deepEqual(calls[0].opts.mapItem!(full as KubeObject), strip(item));
  const ac = new AbortController();
  const got: WatchEvent<KubeObject>[] = [];
  for await (const ev of await lw.watch({}, ac.signal)) {
    got.push(ev);
    if (got.length === 2) ac.abort();
  }
  assert.deepEqual(got[0], {
    type: "MODIFIED",
    object: {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: { name: "a", resourceVersion: "8" },
    },
  });
  assert.equal(got[1], bookmark);
  assert.equal(calls[1].opts.mapItem, undefined);
});

Deno.test("KubeClient.list() applies mapItem to every item it decodes", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      Response.json({
        metadata: { resourceVersion: "3" },
        items: [meta("a", "1"), meta("b", "2")].map((m) => ({
          ...m,
          metadata: { ...m.metadata, managedFields: [{ manager: "x" }] },
        })),
      }),
  );
  try {
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: `http://127.0.0.1:${server.addr.port}`,
      }),
    );
    const lw = listWatch(client, Pods, { transform: stripManagedFields });
    const list = await lw.list({});
    assert.deepEqual(
      list.items.map((o) => "managedFields" in o.metadata),
      [false, false],
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("listWatch() with a transform forwards the source's nextBatch; a throwing transform ends it after the events before it and closes the source", async () => {
  const batches = [
    [meta("a", "1"), meta("b", "2"), meta("c", "3")],
    [meta("d", "4")],
  ];
  let returned = 0;
  const source = (batched: boolean) => {
    let i = 0;
    const it: AsyncIterator<WatchEvent<KubeObject>> & {
      nextBatch?: () => Promise<IteratorResult<WatchEvent<KubeObject>[]>>;
    } = {
      next: () => Promise.reject(new Error("next() not expected")),
      return: () => {
        returned++;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
    if (batched) {
      it.nextBatch = () =>
        Promise.resolve(
          i < batches.length
            ? {
              done: false,
              value: batches[i++].map((object) => ({
                type: "ADDED" as const,
                object,
              })),
            }
            : { done: true, value: undefined },
        );
    }
    return { [Symbol.asyncIterator]: () => it };
  };
  for (const batched of [true, false]) {
    const client: ResourceClient = {
      list: () => Promise.reject(new Error("no list")),
      watch: <T extends KubeObject>() =>
        Promise.resolve(
          source(batched) as AsyncIterable<WatchEvent<T>>,
        ),
    };
    const lw = listWatch(client, Pods, {
      transform: (o) => {
        if (o.metadata.name === "c") throw new Error("bad c");
        return { ...o, metadata: { name: `t-${o.metadata.name}` } };
      },
    });
    const it = (await lw.watch({}))[Symbol.asyncIterator]();
    assert.equal(hasNextBatch(it), batched);
    if (!batched) continue;
    const b = it as BatchWatchIterator<KubeObject>;
    const first = await b.nextBatch();
    assert.deepEqual(
      (first.value as WatchEvent<KubeObject>[]).map((e) =>
        (e.object as KubeObject).metadata.name
      ),
      ["t-a", "t-b"],
    );
    assert.equal(returned, 0);
    await assert.rejects(b.nextBatch(), /bad c/);
    assert.equal(returned, 1);
    assert.deepEqual(await b.nextBatch(), { done: true, value: undefined });
  }
});
