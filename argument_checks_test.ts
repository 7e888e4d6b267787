/**
 * Bad arguments from callers without types (plain JavaScript, `any`, a
 * parsed config) throw at the call: a TypeError for a wrong kind of value,
 * a RangeError for a number out of range, the message naming the call, the
 * parameter and the value as given (docs/behaviour.md, Argument checks).
 * One row per check of the client, listWatch, the informers and listers,
 * resourceType, FakeClock, the work queue and leader election; cache/'s stores and queues have theirs in
 * cache/_validate_test.ts.
 */

import assert from "node:assert/strict";
import {
  BucketRateLimiter,
  ConfigMaps,
  defaultControllerRateLimiter,
  DelayingQueue,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  KubeClient,
  KubeConfig,
  listWatch,
  MaxOfRateLimiter,
  metadataListWatch,
  newSharedIndexInformer,
  parseShardSelector,
  Pods,
  RateLimitingQueue,
  resourceType,
  runWorkers,
  shardHash,
  shardRange,
  shardSelector,
  SharedInformerFactory,
  WorkQueue,
} from "@kubecache/core";
import { LeaderElector, LeaseLock } from "@kubecache/core/leaderelection";
import { ShardMembership, shareOf } from "@kubecache/core/controller";
import {
  createOrPatch,
  EndpointServer,
  finalizer,
  jsonPatchOf,
  Manager,
  WebhookBuilder,
  webhookManifests,
  webhookPath,
  WebhookRegistry,
  WebhookServer,
} from "@kubecache/core/controller";
import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";

// deno-lint-ignore no-explicit-any
type Any = any;

type Row = [
  call: () => unknown,
  error: typeof TypeError | typeof RangeError,
  message: string,
];

/** The things the calls are given, made per test so nothing leaks. */
function fixtures() {
  // A client that makes no request: only the checks before one run.
  const client: Any = new KubeClient(
    KubeConfig.fromOptions({ server: "http://127.0.0.1:9" }),
  );
  const queue = new RateLimitingQueue<string>();
  const lock = new LeaseLock({
    client,
    namespace: "default",
    name: "lock",
    identity: "a",
  });
  return {
    client,
    queue,
    lock,
    source: new FakeControllerSource(),
    factory: new SharedInformerFactory(client),
    signal: new AbortController().signal,
    callbacks: { onStartedLeading() {}, onStoppedLeading() {} },
    [Symbol.dispose]() {
      queue.shutDown();
      client.close();
    },
  };
}

/** Each row: the call, the error class, the whole message. */
function rows(
  { client, queue, lock, signal, callbacks, source, factory }: ReturnType<
    typeof fixtures
  >,
): Row[] {
  return [
    // KubeClient verbs (each returns a Promise: a bad argument rejects it)
    [
      () => client.list(Pods, "default"),
      TypeError,
      'KubeClient.list: options must be an object, got "default"',
    ],
    [
      () => client.list("pods"),
      TypeError,
      'KubeClient.list: type must be a ResourceType such as ConfigMaps or resourceType({...}), got "pods"',
    ],
    [
      () => client.watch(Pods, { namespace: ["a", "b"] }),
      TypeError,
      "KubeClient.watch: options.namespace must be a string, got an array",
    ],
    [
      () => client.get(Pods, undefined),
      TypeError,
      "KubeClient.get: name must be a non-empty string, got undefined",
    ],
    [
      () => client.get(Pods, "web", { signal: true }),
      TypeError,
      "KubeClient.get: options.signal must be an AbortSignal, got true",
    ],
    [
      () => client.create("pods", { metadata: { name: "a" } }),
      TypeError,
      'KubeClient.create: type must be a ResourceType such as ConfigMaps or resourceType({...}), got "pods"',
    ],
    [
      () => client.create(ConfigMaps, "a"),
      TypeError,
      'KubeClient.create: obj must be an object, got "a"',
    ],
    [
      () => client.update(ConfigMaps, null),
      TypeError,
      "KubeClient.update: obj must be an object, got null",
    ],
    [
      () => client.patch(ConfigMaps, "a", { data: {} }),
      TypeError,
      "KubeClient.patch: options must be an object with a patchType, got undefined",
    ],
    [
      () =>
        client.patch(ConfigMaps, "a", '{"data":{}}', { patchType: "merge" }),
      TypeError,
      'KubeClient.patch: patch must be an object or an array, got "{\\"data\\":{}}"',
    ],
    [
      () => client.patch(ConfigMaps, "a", {}, { patchType: "toString" }),
      TypeError,
      'KubeClient.patch: options.patchType must be one of "merge", "json", "strategic", "apply", got "toString"',
    ],
    [
      () => client.delete(ConfigMaps, "a", "default"),
      TypeError,
      'KubeClient.delete: options must be an object, got "default"',
    ],
    [
      () => client.list(ConfigMaps, { labelSelector: { app: "web" } }),
      TypeError,
      "KubeClient.list: options.labelSelector must be a string, got an object",
    ],
    [
      () => client.list(ConfigMaps, { labelSelector: ["app=web"] }),
      TypeError,
      "KubeClient.list: options.labelSelector must be a string, got an array",
    ],
    [
      () =>
        client.watch(ConfigMaps, { fieldSelector: { "metadata.name": "a" } }),
      TypeError,
      "KubeClient.watch: options.fieldSelector must be a string, got an object",
    ],
    [
      () =>
        client.patch(ConfigMaps, "a", {}, {
          patchType: "merge",
          subresource: "status/../../x",
        }),
      TypeError,
      'KubeClient.patch: options.subresource must be a subresource name such as "status" or "scale" (letters only), got "status/../../x"',
    ],
    [
      () =>
        client.update(ConfigMaps, { metadata: { name: "a" } }, {
          subresource: "",
        }),
      TypeError,
      'KubeClient.update: options.subresource must be a subresource name such as "status" or "scale" (letters only), got ""',
    ],
    [
      () => client.get(ConfigMaps, "a", { subresource: ["status"] }),
      TypeError,
      'KubeClient.get: options.subresource must be a subresource name such as "status" or "scale" (letters only), got an array',
    ],
    [
      () =>
        client.create(ConfigMaps, { metadata: { name: "a" } }, {
          subresource: 5,
        }),
      TypeError,
      'KubeClient.create: options.subresource must be a subresource name such as "status" or "scale" (letters only), got 5',
    ],
    [
      () =>
        new KubeClient(
          KubeConfig.fromOptions({ server: "http://127.0.0.1:9" }),
          { listWatchTransport: "http1" as Any },
        ),
      RangeError,
      'KubeClient: opts.listWatchTransport must be "socket" or "fetch", got "http1"',
    ],
    [
      () => client.list(ConfigMaps, { shardSelector: 7 as Any }),
      TypeError,
      "KubeClient.list: options.shardSelector must be a string, got 7",
    ],
    // shard membership
    [
      () => new Manager(client, { sharding: "cms" as Any }),
      TypeError,
      'new Manager: opts.sharding must be an object, got "cms"',
    ],
    [
      () =>
        new Manager(client, { sharding: { name: "", namespace: "default" } }),
      TypeError,
      'new Manager: opts.sharding.name must be a non-empty string, got ""',
    ],
    [
      () =>
        new Manager(client, {
          sharding: { name: "w", namespace: "default", identity: "Pod_1" },
        }),
      RangeError,
      "new Manager: opts.sharding: \"<name>-<identity>\" must be a valid Lease name (lowercase letters, digits, '-' and '.'), got \"w-Pod_1\"",
    ],
    [
      () =>
        new Manager(client, {
          leaderElection: {
            name: "l",
            namespace: "default",
            leaseDuration: 5_000,
            renewDeadline: 10_000,
          },
        }),
      RangeError,
      "new Manager: opts.leaderElection: leaseDuration (5000 ms) must be greater than renewDeadline (10000 ms)",
    ],
    [
      () =>
        new Manager(client, {
          leaderElection: { name: "l", namespace: "default", retryPeriod: 0 },
        }),
      RangeError,
      "new Manager: opts.leaderElection.retryPeriod must be a finite number of milliseconds > 0, got 0",
    ],
    [
      () =>
        new ShardMembership(client, {
          name: "w",
          namespace: "default",
          identity: "Pod_1",
        }),
      RangeError,
      "new ShardMembership: \"<name>-<identity>\" must be a valid Lease name (lowercase letters, digits, '-' and '.'), got \"w-Pod_1\"",
    ],
    [
      () =>
        new ShardMembership(client, {
          name: "w",
          namespace: "default",
          leaseDuration: 5_000,
        }),
      RangeError,
      "new ShardMembership: opts.renewDeadline must be below opts.leaseDuration, got 10000 and 5000",
    ],
    [
      () => new ShardMembership(client, { name: "", namespace: "default" }),
      TypeError,
      'new ShardMembership: opts.name must be a non-empty string, got ""',
    ],
    [
      () => shareOf(3, 3),
      RangeError,
      "shareOf: index must be an integer in [0, count), got 3 of 3",
    ],
    [
      () =>
        new LeaseLock({
          client,
          namespace: "default",
          name: "l",
          identity: "a",
          annotations: {} as Any,
        }),
      TypeError,
      "new LeaseLock: opts.annotations must be a function, got an object",
    ],
    [
      () =>
        new LeaseLock({
          client,
          namespace: "default",
          name: "My_Lease",
          identity: "a",
        }),
      RangeError,
      "new LeaseLock: opts.name must be a valid object name (lowercase letters, digits, '-' and '.', at most 253), got \"My_Lease\"",
    ],
    [
      () =>
        new Manager(client, {
          leaderElection: { name: "a..b", namespace: "default" },
        }),
      RangeError,
      "new Manager: opts.leaderElection.name must be a valid object name (lowercase letters, digits, '-' and '.', at most 253), got \"a..b\"",
    ],
    // shard selectors
    [
      () => shardRange("metadata.uid" as Any, 0n, 1n),
      TypeError,
      'shardRange: field must be "object.metadata.uid" or "object.metadata.namespace", got "metadata.uid"',
    ],
    [
      () => shardRange("object.metadata.uid", 0 as Any, 1n),
      TypeError,
      "shardRange: start must be a bigint or a 0x-prefixed hex string, got 0",
    ],
    [
      () => shardRange("object.metadata.uid", 0n, 2n ** 65n),
      RangeError,
      "shardRange: end must be within [0, 2^64], got 36893488147419103232n",
    ],
    [
      () => shardRange("object.metadata.uid", 9n, 2n),
      RangeError,
      "shardRange: start must be less than end, got 0x0000000000000009 and 0x0000000000000002",
    ],
    [
      () => shardSelector(),
      TypeError,
      "shardSelector: terms must name at least one range",
    ],
    [
      () => shardSelector(5 as Any),
      TypeError,
      "shardSelector: terms[0] must be a string, got 5",
    ],
    [
      () => parseShardSelector(undefined as Any),
      TypeError,
      "parseShardSelector: selector must be a string, got undefined",
    ],
    [
      () => shardHash(12 as Any),
      TypeError,
      "shardHash: value must be a string, got 12",
    ],
    [
      () => listWatch(client, Pods, { shardSelector: "uid < 5" }),
      TypeError,
      'listWatch: filters.shardSelector must be a shard selector (unsupported function "_<_"; only shardRange() and || are allowed), got "uid < 5"',
    ],
    [
      () => factory.informerFor(Pods, { shardSelector: 3 as Any }),
      TypeError,
      "SharedInformerFactory.informerFor: opts.shardSelector must be a string, got 3",
    ],
    // listWatch, metadataListWatch
    [
      () => listWatch(client, "pods" as Any),
      TypeError,
      'listWatch: type must be a ResourceType such as ConfigMaps or resourceType({...}), got "pods"',
    ],
    [
      () => listWatch(undefined as Any, Pods),
      TypeError,
      "listWatch: client must be a KubeClient (with list, watch methods), got undefined",
    ],
    [
      () => listWatch(client, Pods, "default" as Any),
      TypeError,
      'listWatch: filters must be an object, got "default"',
    ],
    [
      () => listWatch(client, Pods, { namespace: 5 as Any }),
      TypeError,
      "listWatch: filters.namespace must be a string, got 5",
    ],
    [
      () => metadataListWatch(client, "pods" as Any),
      TypeError,
      'metadataListWatch: type must be a ResourceType such as ConfigMaps or resourceType({...}), got "pods"',
    ],
    [
      () => metadataListWatch(client, Pods, { transform: "strip" as Any }),
      TypeError,
      'metadataListWatch: filters.transform must be a function, got "strip"',
    ],
    [
      () => listWatch(client, Pods, { labelSelector: { app: "web" } as Any }),
      TypeError,
      "listWatch: filters.labelSelector must be a string, got an object",
    ],
    // informers take a ListerWatcher, not a client
    [
      () => newSharedIndexInformer(client),
      TypeError,
      "newSharedIndexInformer: lw must be a ListerWatcher such as listWatch(client, ConfigMaps), got a KubeClient",
    ],
    [
      () => newSharedIndexInformer(undefined as Any),
      TypeError,
      "newSharedIndexInformer: lw must be a ListerWatcher (with list, watch methods), got undefined",
    ],
    [
      () => new SharedInformerFactory("http://localhost" as Any),
      TypeError,
      'new SharedInformerFactory: client must be a KubeClient (with list, watch methods), got "http://localhost"',
    ],
    [
      () =>
        newSharedIndexInformer(source).addEventHandler({ onadd() {} } as Any),
      TypeError,
      'SharedIndexInformer.addEventHandler: handler must be an object with onAdd, onUpdate or onDelete, got an object with none of them as a function (its keys: "onadd")',
    ],
    [
      () => newSharedIndexInformer(source).addEventHandler((() => {}) as Any),
      TypeError,
      "SharedIndexInformer.addEventHandler: handler must be an object with onAdd, onUpdate or onDelete, got a function",
    ],
    [
      () =>
        newSharedIndexInformer(source).addEventHandler({}, { maxPending: 0 }),
      RangeError,
      "SharedIndexInformer.addEventHandler: opts.maxPending must be an integer >= 1, got 0",
    ],
    [
      () =>
        newSharedIndexInformer(source).addEventHandler({}, {
          maxPending: "100",
        } as Any),
      TypeError,
      'SharedIndexInformer.addEventHandler: opts.maxPending must be an integer >= 1, got "100"',
    ],
    [
      () => newSharedIndexInformer(source).addEventHandler({}, { name: "" }),
      TypeError,
      'SharedIndexInformer.addEventHandler: opts.name must be a non-empty string, got ""',
    ],
    // listers
    [
      () => factory.lister(ConfigMaps).get("x"),
      TypeError,
      'GenericLister.get: configmaps are namespaced, so the key needs the namespace: use .namespaced(ns).get("x") or the key "<namespace>/x", got "x"',
    ],
    [
      () => factory.lister(ConfigMaps).namespaced(undefined as Any),
      TypeError,
      'GenericLister.namespaced: namespace must be a string ("" for all), got undefined',
    ],
    [
      () => factory.syncedLister(ConfigMaps, {}, "soon" as Any),
      TypeError,
      'SharedInformerFactory.syncedLister: signal must be an AbortSignal, got "soon"',
    ],
    // Manager
    [
      () => new Manager(client, { cacheSyncTimeout: 0 }),
      RangeError,
      "new Manager: opts.cacheSyncTimeout must be a number > 0, got 0",
    ],
    [
      () =>
        new Manager(client).controller("c", ConfigMaps, {
          cacheSyncTimeout: "2m" as Any,
        }),
      TypeError,
      'Manager.controller: opts.cacheSyncTimeout must be a number > 0, got "2m"',
    ],
    [
      () => new Manager(client).add({ start: "now" } as Any),
      TypeError,
      'Manager.add: runnable.start must be a function, got "now"',
    ],
    [
      () =>
        new Manager(client).add({
          start: () => Promise.resolve(),
          needLeaderElection: "yes" as Any,
        }),
      TypeError,
      'Manager.add: runnable.needLeaderElection must be a boolean, got "yes"',
    ],
    [
      () =>
        new Manager(client, {
          leaderElection: {
            name: "l",
            namespace: "x",
            onStartedLeading: true as Any,
          },
        }),
      TypeError,
      "new Manager: opts.leaderElection.onStartedLeading must be a function, got true",
    ],
    [
      () => new Manager(client, { cache: { byType: [[ConfigMaps]] as Any } }),
      TypeError,
      "new Manager: opts.cache.byType[0] must be a [ResourceType, InformerScope] pair, got an array",
    ],
    [
      () =>
        new Manager(client).controller("c", ConfigMaps).owns(ConfigMaps, {
          scope: { metadataOnly: "yes" as Any },
        }),
      TypeError,
      'ControllerBuilder.owns: opts.scope.metadataOnly must be a boolean, got "yes"',
    ],
    // resource types
    [
      () =>
        resourceType({
          apiVersion: "v1beta1",
          kind: "Foo",
          resource: "foos",
          namespaced: true,
        }),
      RangeError,
      'Cannot describe resource type: apiVersion "v1beta1" has no group, and only the core group\'s "v1" goes without one; give "group/v1beta1" (e.g. "example.com/v1beta1")',
    ],
    // FakeClock (its step returns a Promise: a bad argument rejects it)
    [
      () => new FakeClock(1000).step("100" as Any),
      TypeError,
      'FakeClock.step: ms must be a number of milliseconds, got "100"',
    ],
    [
      () => new FakeClock("1000" as Any),
      TypeError,
      'new FakeClock: startMs must be a finite number of epoch milliseconds, got "1000"',
    ],
    // KubeConfig.fromOptions
    [
      () => KubeConfig.fromOptions("https://h" as Any),
      TypeError,
      'KubeConfig.fromOptions: opts must be an object, got "https://h"',
    ],
    [
      () => KubeConfig.fromOptions({ server: "https://h", token: 42 as Any }),
      TypeError,
      "KubeConfig.fromOptions: token must be a string, got 42",
    ],
    [
      () =>
        KubeConfig.fromOptions({
          server: "https://h",
          insecureSkipTlsVerify: "yes" as Any,
        }),
      TypeError,
      'KubeConfig.fromOptions: insecureSkipTlsVerify must be a boolean, got "yes"',
    ],
    // work queues and rate limiters
    [
      () => new RateLimitingQueue(5 as Any),
      TypeError,
      "new RateLimitingQueue: rateLimiter must be a RateLimiter (with when, forget, numRequeues methods), got 5",
    ],
    [
      () => new RateLimitingQueue(undefined, "q" as Any),
      TypeError,
      'new RateLimitingQueue: opts must be an object, got "q"',
    ],
    [
      () => new WorkQueue({ clock: Date as Any }),
      TypeError,
      "new WorkQueue: opts.clock must be a Clock (with now, sleep methods), got a function",
    ],
    [
      () => new DelayingQueue().addAfter("a", "5" as Any),
      TypeError,
      'DelayingQueue.addAfter: delayMs must be a number of milliseconds, got "5"',
    ],
    [
      () => new ItemExponentialFailureRateLimiter("5" as Any, 1000),
      TypeError,
      'new ItemExponentialFailureRateLimiter: baseDelayMs must be a number of milliseconds, got "5"',
    ],
    [
      () => new ItemExponentialFailureRateLimiter(5, -1),
      RangeError,
      "new ItemExponentialFailureRateLimiter: maxDelayMs must be a finite number of milliseconds >= 0, got -1",
    ],
    [
      () => new ItemFastSlowRateLimiter(1, 10, 1.5),
      RangeError,
      "new ItemFastSlowRateLimiter: maxFastAttempts must be an integer >= 0, got 1.5",
    ],
    [
      () => new BucketRateLimiter("10" as Any, 100),
      TypeError,
      'new BucketRateLimiter: qps must be a number > 0, got "10"',
    ],
    [
      () => new BucketRateLimiter(10, 0),
      RangeError,
      "new BucketRateLimiter: burst must be an integer >= 1, got 0",
    ],
    [
      () => new MaxOfRateLimiter(defaultControllerRateLimiter(), 5 as Any),
      TypeError,
      "new MaxOfRateLimiter: limiters[1] must be a RateLimiter (with when, forget, numRequeues methods), got 5",
    ],
    [
      () => defaultControllerRateLimiter("fast" as Any),
      TypeError,
      'defaultControllerRateLimiter: opts must be an object, got "fast"',
    ],
    // runWorkers rejects (it returns a Promise)
    [
      () => runWorkers(queue, 2, () => {}, undefined as Any),
      TypeError,
      "runWorkers: signal must be an AbortSignal, got undefined",
    ],
    [
      () => runWorkers(queue, "2" as Any, () => {}, signal),
      TypeError,
      'runWorkers: workers must be an integer >= 1, got "2"',
    ],
    [
      () => runWorkers(queue, 0, () => {}, signal),
      RangeError,
      "runWorkers: workers must be an integer >= 1, got 0",
    ],
    [
      () => runWorkers(queue, 1, "reconcile" as Any, signal),
      TypeError,
      'runWorkers: reconcile must be a function, got "reconcile"',
    ],
    [
      () => runWorkers(new WorkQueue() as Any, 1, () => {}, signal),
      TypeError,
      "runWorkers: queue must be a RateLimitingQueue (with get, done, forget, addRateLimited, numRequeues methods), got a WorkQueue",
    ],
    // leader election
    [
      () => new LeaseLock(undefined as Any),
      TypeError,
      "new LeaseLock: opts must be an object, got undefined",
    ],
    [
      () => new LeaseLock({ namespace: "a", name: "b", identity: "c" } as Any),
      TypeError,
      "new LeaseLock: opts.client must be a KubeClient (with get, create, update methods), got undefined",
    ],
    [
      () =>
        new LeaseLock({
          client,
          namespace: "a",
          name: "b",
          identity: 7 as Any,
        }),
      TypeError,
      "new LeaseLock: opts.identity must be a non-empty string, got 7",
    ],
    [
      () => new LeaderElector({} as Any),
      TypeError,
      "new LeaderElector: config.lock must be a LeaseLock (with identity, describe, get methods), got undefined",
    ],
    [
      () =>
        new LeaderElector(
          { lock, callbacks: { onStartedLeading() {} } } as Any,
        ),
      TypeError,
      "new LeaderElector: config.callbacks.onStoppedLeading must be a function, got undefined",
    ],
    [
      () => new LeaderElector({ lock, callbacks, retryPeriod: "2s" as Any }),
      TypeError,
      'new LeaderElector: config.retryPeriod must be a number of milliseconds, got "2s"',
    ],
    [
      () => new LeaderElector({ lock, callbacks, renewDeadline: 0 }),
      RangeError,
      "new LeaderElector: config.renewDeadline must be a finite number of milliseconds > 0, got 0",
    ],
    // Webhooks
    [
      () => webhookPath("mutating" as Any, Pods),
      TypeError,
      'webhookPath: kind must be "mutate" or "validate", got "mutating"',
    ],
    [
      () => new WebhookRegistry().webhook("widgets" as Any),
      TypeError,
      'WebhookRegistry.webhook: type must be a ResourceType such as ConfigMaps or resourceType({...}), got "widgets"',
    ],
    [
      () => new WebhookBuilder(Pods, {} as Any),
      TypeError,
      "new WebhookBuilder: registry must be a WebhookRegistry, got an object",
    ],
    [
      () => new WebhookRegistry().webhook(Pods).defaulter({} as Any),
      TypeError,
      "WebhookBuilder.defaulter: fn must be a function, got an object",
    ],
    [
      () => new WebhookRegistry().webhook(Pods).validator((() => {}) as Any),
      TypeError,
      "WebhookBuilder.validator: validator must be an object, got a function",
    ],
    [
      () => new WebhookRegistry().webhook(Pods).validator({ create: 1 } as Any),
      TypeError,
      "WebhookBuilder.validator: validator.create must be a function, got 1",
    ],
    [
      () => new WebhookRegistry().conversion(Pods, { hub: 1 } as Any),
      TypeError,
      "WebhookRegistry.conversion: opts.hub must be a non-empty string, got 1",
    ],
    [
      () => new WebhookRegistry().conversion(Pods, { hub: "v1" } as Any),
      TypeError,
      "WebhookRegistry.conversion: opts.convert must be a function, got undefined",
    ],
    [
      () => new WebhookRegistry().handle("validate", () => ({} as Any)),
      TypeError,
      'WebhookRegistry.handle: path must start with "/" and not be /convert, got "validate"',
    ],
    [
      () =>
        new WebhookServer({ port: -1, certFile: "c", keyFile: "k" }, {
          registry: new WebhookRegistry(),
        }),
      RangeError,
      "new WebhookServer: opts.port must be a port number 0-65535, got -1",
    ],
    [
      () =>
        new WebhookServer({ port: 0, certFile: "", keyFile: "k" }, {
          registry: new WebhookRegistry(),
        }),
      TypeError,
      'new WebhookServer: opts.certFile must be a non-empty string, got ""',
    ],
    [
      () =>
        new WebhookServer({ port: 0, certFile: "c", keyFile: "k" }, {
          registry: {} as Any,
        }),
      TypeError,
      "new WebhookServer: ctx.registry must be a WebhookRegistry, got an object",
    ],
    [
      () =>
        webhookManifests(new WebhookRegistry(), {
          name: "w",
          namespace: "n",
          selector: {},
          timeoutSeconds: 60,
        }),
      RangeError,
      "webhookManifests: opts.timeoutSeconds must be an integer 1-30, got 60",
    ],
    [
      () => jsonPatchOf(undefined, {}),
      TypeError,
      "jsonPatchOf: from must be a JSON value, got undefined",
    ],
    // health checks, the finalizer flow, createOrPatch
    [
      () => new Manager(client).addHealthzCheck("a/b", () => true),
      TypeError,
      'Manager.addHealthzCheck: name must be a non-empty string without "/", "," or whitespace, got "a/b"',
    ],
    [
      () => new Manager(client).addReadyzCheck("warm", true as Any),
      TypeError,
      "Manager.addReadyzCheck: check must be a function, got true",
    ],
    [
      () => new EndpointServer({ port: 0 }, { checkTimeout: -5 }),
      RangeError,
      "new EndpointServer: endpoints.checkTimeout must be a finite number of milliseconds >= 0, got -5",
    ],
    [
      () =>
        finalizer(
          { client: "kube" as Any, signal: new AbortController().signal },
          ConfigMaps,
          { metadata: { name: "a" } },
          "example.com/x",
          { apply: () => {}, cleanup: () => {} },
        ),
      TypeError,
      'finalizer: ctx.client must be a KubeClient, got "kube"',
    ],
    [
      () =>
        finalizer(
          { client, signal: new AbortController().signal },
          ConfigMaps,
          { metadata: { name: "a" } },
          "example.com/x",
          { apply: () => {} } as Any,
        ),
      TypeError,
      "finalizer: handlers.cleanup must be a function, got undefined",
    ],
    [
      () =>
        createOrPatch(
          client,
          ConfigMaps,
          { metadata: { name: "a" } },
          () => {},
          {
            signal: "stop" as Any,
          },
        ),
      TypeError,
      'createOrPatch: opts.signal must be an AbortSignal, got "stop"',
    ],
  ];
}

Deno.test("public calls throw at the call, naming the call, the parameter and the value", async () => {
  using f = fixtures();
  for (const [call, error, message] of rows(f)) {
    let thrown: unknown;
    try {
      const result = call();
      // A verb that returns a Promise reports a bad argument by rejecting
      // it, never by throwing before the caller has a Promise to catch.
      if (message.startsWith("KubeClient.")) {
        assert.ok(result instanceof Promise, `threw synchronously: ${message}`);
      }
      if (result instanceof Promise) await result;
    } catch (err) {
      thrown = err;
    }
    assert.ok(thrown instanceof Error, `no error for: ${message}`);
    assert.equal(thrown.message, message);
    assert.equal(thrown.constructor, error, message);
  }
});

Deno.test("well-formed arguments pass the same checks", async () => {
  using f = fixtures();
  const { client, queue, lock, callbacks } = f;
  const source = new FakeControllerSource();
  assert.ok(newSharedIndexInformer(source));
  // {} handles nothing, as client-go's empty ResourceEventHandlerFuncs.
  assert.ok(newSharedIndexInformer(source).addEventHandler({}));
  assert.ok(listWatch(client, ConfigMaps, { namespace: "default" }));
  assert.ok(new BucketRateLimiter(Infinity, 1)); // qps Infinity: never waits
  const stop = new AbortController();
  stop.abort();
  await runWorkers(queue, 1, () => {}, stop.signal); // returns at once
  assert.ok(new LeaderElector({ lock, callbacks }));
});
