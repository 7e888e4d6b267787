/**
 * Bad arguments from untyped callers (plain JavaScript, `any`) throw at the
 * call, naming the call, the parameter and the value: one case per public
 * entry point of cache/.
 */

import assert from "node:assert/strict";
import { show } from "./_validate.ts";
import { SharedInformerFactory } from "./factory.ts";
import { newSharedIndexInformer, waitForCacheSync } from "./shared_informer.ts";
import { Reflector } from "./reflector.ts";
import { newIndexer, newStore } from "./store.ts";
import { newThreadSafeStore } from "./thread_safe_store.ts";
import { FIFO } from "./fifo.ts";
import { DeltaFIFO } from "./delta_fifo.ts";
import { Heap } from "./heap.ts";
import {
  newExpirationStore,
  newTTLStore,
  TTLPolicy,
} from "./expiration_cache.ts";
import { newUndeltaStore } from "./undelta_store.ts";
import {
  Controller,
  FilteringResourceEventHandler,
  newIndexerInformer,
  newInformer,
} from "./controller.ts";
import { listAll, listAllByNamespace, newGenericLister } from "./listers.ts";
import { everything } from "./labels.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import { ConfigMaps } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const client: Any = {
  list: () => Promise.resolve({ metadata: {}, items: [] }),
  watch: () => Promise.resolve((async function* () {})()),
};

/** `fn` throws `type` with exactly `message`, synchronously or as a rejection. */
async function throwsAtCall(
  fn: () => unknown,
  type: typeof TypeError | typeof RangeError,
  message: string,
): Promise<void> {
  let result: unknown;
  try {
    result = fn();
  } catch (err) {
    assert.ok(err instanceof type, `${err}`);
    assert.equal(err.message, message);
    return;
  }
  assert.ok(result instanceof Promise, `no error for: ${message}`);
  await assert.rejects(result as Promise<unknown>, (err) => {
    assert.ok(err instanceof type, `${err}`);
    assert.equal((err as Error).message, message);
    return true;
  });
}

Deno.test("show() names a value as an error message shows it", () => {
  assert.equal(show(undefined), "undefined");
  assert.equal(show(null), "null");
  assert.equal(show("configmaps"), '"configmaps"');
  assert.equal(show(-1), "-1");
  assert.equal(show({}), "an object");
  assert.equal(show([]), "an array");
  assert.equal(show(new Map()), "a Map");
  assert.equal(show(() => 1), "a function");
});

Deno.test("SharedInformerFactory checks its arguments at the call", async () => {
  await throwsAtCall(
    () => new SharedInformerFactory(undefined as Any),
    TypeError,
    "new SharedInformerFactory: client must be a KubeClient (with list, watch methods), got undefined",
  );
  await throwsAtCall(
    () => new SharedInformerFactory(client, "default" as Any),
    TypeError,
    'new SharedInformerFactory: opts must be an object, got "default"',
  );
  await throwsAtCall(
    () => new SharedInformerFactory(client, { resyncPeriod: "30s" as Any }),
    TypeError,
    'new SharedInformerFactory: opts.resyncPeriod must be a number of milliseconds, got "30s"',
  );
  await throwsAtCall(
    () => new SharedInformerFactory(client, { resyncPeriod: -1 }),
    RangeError,
    "new SharedInformerFactory: opts.resyncPeriod must be a finite number of milliseconds >= 0, got -1",
  );
  await using factory = new SharedInformerFactory(client);
  await throwsAtCall(
    () => factory.informerFor("configmaps" as Any),
    TypeError,
    'SharedInformerFactory.informerFor: type must be a ResourceType such as ConfigMaps or resourceType({...}), got "configmaps"',
  );
  await throwsAtCall(
    () => factory.lister(undefined as Any),
    TypeError,
    "SharedInformerFactory.lister: type must be a ResourceType such as ConfigMaps or resourceType({...}), got undefined",
  );
  factory.informerFor(ConfigMaps);
  await throwsAtCall(
    () => (factory.start as Any)(),
    TypeError,
    "SharedInformerFactory.start: signal must be an AbortSignal, got undefined",
  );
  await throwsAtCall(
    () => (factory.waitForCacheSync as Any)(),
    TypeError,
    "SharedInformerFactory.waitForCacheSync: signal must be an AbortSignal, got undefined",
  );
});

Deno.test("waitForCacheSync() and informers check their arguments at the call", async () => {
  await throwsAtCall(
    () => waitForCacheSync(undefined as Any),
    TypeError,
    "waitForCacheSync: signal must be an AbortSignal or { signal, clock? }, got undefined",
  );
  await throwsAtCall(
    () => waitForCacheSync(new AbortController().signal, true as Any),
    TypeError,
    "waitForCacheSync: hasSynced[0] must be a function, got true",
  );
  await throwsAtCall(
    () => newSharedIndexInformer(undefined as Any),
    TypeError,
    "newSharedIndexInformer: lw must be a ListerWatcher (with list, watch methods), got undefined",
  );
  await throwsAtCall(
    () =>
      newSharedIndexInformer(new FakeControllerSource(), { clock: {} as Any }),
    TypeError,
    "newSharedIndexInformer: opts.clock must be a Clock (with now, sleep methods), got an object",
  );
  const informer = newSharedIndexInformer(new FakeControllerSource());
  await throwsAtCall(
    () => informer.run(undefined as Any),
    TypeError,
    "SharedIndexInformer.run: signal must be an AbortSignal, got undefined",
  );
  await throwsAtCall(
    () => informer.addEventHandler(null as Any),
    TypeError,
    "SharedIndexInformer.addEventHandler: handler must be an object with onAdd, onUpdate or onDelete, got null",
  );
  await throwsAtCall(
    () => newInformer(new FakeControllerSource(), undefined as Any),
    TypeError,
    "newInformer: handler must be an object with onAdd, onUpdate or onDelete, got undefined",
  );
  await throwsAtCall(
    () =>
      newIndexerInformer(new FakeControllerSource(), {}, {
        indexers: { byNode: "spec.nodeName" as Any },
      }),
    TypeError,
    'newIndexerInformer: opts.indexers.byNode must be a function, got "spec.nodeName"',
  );
});

Deno.test("Reflector checks its arguments at the call", async () => {
  const source = new FakeControllerSource();
  await throwsAtCall(
    () => new Reflector(source, [] as Any),
    TypeError,
    "new Reflector: store must be a store such as a DeltaFIFO (with add, update, delete, replace, resync methods), got an array",
  );
  await throwsAtCall(
    () => new Reflector(source, new DeltaFIFO(), { shardSelector: 5 as Any }),
    TypeError,
    "new Reflector: opts.shardSelector must be a string, got 5",
  );
  await throwsAtCall(
    () => new Reflector(source, new DeltaFIFO(), { pageSize: -5 }),
    RangeError,
    "new Reflector: opts.pageSize must be a number >= 0, got -5",
  );
  const reflector = new Reflector(source, new DeltaFIFO());
  await throwsAtCall(
    () => reflector.run("stop" as Any),
    TypeError,
    'Reflector.run: signal must be an AbortSignal, got "stop"',
  );
  await throwsAtCall(
    () => reflector.listAndWatch(undefined as Any),
    TypeError,
    "Reflector.listAndWatch: signal must be an AbortSignal, got undefined",
  );
});

Deno.test("stores and queues check their arguments at the call", async () => {
  const cases: [() => unknown, typeof TypeError, string][] = [
    [
      () => newStore(undefined as Any),
      TypeError,
      "newStore: keyFunc must be a function, got undefined",
    ],
    [
      () => newIndexer(metaNamespaceKeyFunc, { byNode: 1 as Any }),
      TypeError,
      "newIndexer: indexers.byNode must be a function, got 1",
    ],
    [
      () => newThreadSafeStore(null as Any),
      TypeError,
      "newThreadSafeStore: indexers must be an object, got null",
    ],
    [
      () => new FIFO("metadata.name" as Any),
      TypeError,
      'new FIFO: keyFunc must be a function, got "metadata.name"',
    ],
    [
      () => new DeltaFIFO({ knownObjects: {} as Any }),
      TypeError,
      "new DeltaFIFO: opts.knownObjects must be a store (with listKeys, getByKey methods), got an object",
    ],
    [
      () => new Heap(metaNamespaceKeyFunc, undefined as Any),
      TypeError,
      "new Heap: lessFunc must be a function, got undefined",
    ],
    [
      () => newTTLStore(metaNamespaceKeyFunc, "1m" as Any),
      TypeError,
      'new TTLPolicy: ttlMs must be a number of milliseconds, got "1m"',
    ],
    [
      () => newTTLStore(undefined as Any, 1000),
      TypeError,
      "newTTLStore: keyFunc must be a function, got undefined",
    ],
    [
      () => new TTLPolicy(1000, { clock: Date as Any }),
      TypeError,
      "new TTLPolicy: options.clock must be a Clock (with now, sleep methods), got a function",
    ],
    [
      () => newExpirationStore(metaNamespaceKeyFunc, {} as Any),
      TypeError,
      "newExpirationStore: policy must be an ExpirationPolicy (with an isExpired method), got an object",
    ],
    [
      () => newUndeltaStore(undefined as Any, metaNamespaceKeyFunc),
      TypeError,
      "newUndeltaStore: push must be a function, got undefined",
    ],
  ];
  for (const [fn, type, message] of cases) {
    await throwsAtCall(fn, type, message);
  }
});

Deno.test("listers and controllers check their arguments at the call", async () => {
  const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
  const cases: [() => unknown, typeof TypeError, string][] = [
    [
      () => listAll(indexer, "app=web" as Any, () => {}),
      TypeError,
      'listAll: selector must be a Selector (with matches, empty methods), got "app=web"',
    ],
    [
      () =>
        listAllByNamespace(indexer, undefined as Any, everything(), () => {}),
      TypeError,
      'listAllByNamespace: namespace must be a string ("" for all), got undefined',
    ],
    [
      () => newGenericLister(undefined as Any),
      TypeError,
      "newGenericLister: indexer must be an Indexer such as informer.getIndexer() (with list, byIndex, getIndexers, getByKey methods), got undefined",
    ],
    [
      () => new FilteringResourceEventHandler(() => true, undefined as Any),
      TypeError,
      "new FilteringResourceEventHandler: handler must be an object with onAdd, onUpdate or onDelete, got undefined",
    ],
    [
      () => new Controller(undefined as Any),
      TypeError,
      "new Controller: config must be a ControllerConfig object, got undefined",
    ],
    [
      () =>
        new Controller({
          queue: new DeltaFIFO<KubeObject>(),
          listerWatcher: new FakeControllerSource(),
          process: "handle" as Any,
        }),
      TypeError,
      'new Controller: config.process must be a function, got "handle"',
    ],
  ];
  for (const [fn, type, message] of cases) {
    await throwsAtCall(fn, type, message);
  }
  const controller = new Controller({
    queue: new DeltaFIFO<KubeObject>(),
    listerWatcher: new FakeControllerSource(),
    process: () => {},
  });
  await throwsAtCall(
    () => controller.run(undefined as Any),
    TypeError,
    "Controller.run: signal must be an AbortSignal, got undefined",
  );
});
