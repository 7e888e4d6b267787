/**
 * Test aids for code that uses kubecache: {@link FakeApiServer}, a real
 * HTTP server on 127.0.0.1 that speaks the apiserver's protocol (CRUD,
 * paged lists, selectors, watches, 410 Expired, fault injection under
 * `server.faults`) and starts with the namespaces `default`, `kube-system`,
 * `kube-public` and `kube-node-lease`; {@link FakeClock}, which every
 * component with timing accepts as `{ clock }` so a test steps time instead
 * of sleeping; {@link FakeControllerSource}, an in-memory ListerWatcher; and
 * the embedded demo cluster.
 *
 * @example Make the informer's first list fail, then step its backoff
 * ```ts
 * import {
 *   ConfigMaps,
 *   KubeClient,
 *   KubeConfig,
 *   listWatch,
 *   newSharedIndexInformer,
 *   waitForCacheSync,
 * } from "@kubecache/core";
 * import { FakeApiServer, FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.create(ConfigMaps, { metadata: { name: "settings", namespace: "default" } });
 * server.faults.failNext(1, { status: 500 });
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const clock = new FakeClock(Date.now());
 * const informer = newSharedIndexInformer(listWatch(client, ConfigMaps), {
 *   clock,
 *   onStatus: () => {}, // quiet: the failure is the point
 * });
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * await clock.waitForWaiters(1); // backing off after the failed list
 * await clock.step(2_000);
 * assert.equal(await waitForCacheSync(stop.signal, informer.hasSynced), true);
 * assert.deepEqual(informer.getStore().listKeys(), ["default/settings"]);
 * stop.abort();
 * await running;
 * ```
 *
 * @module
 */

export * from "./fake_clock.ts";
export * from "./demo_workload.ts";
export * from "./demo_cluster.ts";
export * from "./fake_controller_source.ts";
export * from "./fake_api_server.ts";
export * from "./tracked_client.ts";
export * from "./read_text.ts";
