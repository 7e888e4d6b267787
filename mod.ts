/**
 * kubecache: the informer machinery of Kubernetes client-go for Deno, with
 * the controller's work queue. This root entry point holds what a script or
 * a controller uses: {@link KubeConfig} and {@link KubeClient} to reach a
 * cluster, the resource descriptors (`Pods`, `ConfigMaps`, ...) and their
 * object types, {@link SharedInformerFactory} with its informers and
 * listers (everything of `@kubecache/core/cache`), the errors the server
 * answers ({@link StatusError} and its predicates), and the work queue
 * (everything of `@kubecache/core/workqueue`). Leader election, the
 * controller runtime, test aids, the CLI and the typed-resource generator
 * have their own entry points (`./leaderelection`, `./controller`,
 * `./testing`, `./cli`, `./gen`); discovery and authentication plumbing are
 * in `./client`.
 *
 * @example Watch config maps through a shared informer, reconcile from the lister
 * ```ts
 * import {
 *   ConfigMaps,
 *   KubeClient,
 *   KubeConfig,
 *   metaNamespaceKeyFunc,
 *   RateLimitingQueue,
 *   SharedInformerFactory,
 * } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start(); // yours: await KubeConfig.load()
 * server.create(ConfigMaps, { metadata: { name: "settings", namespace: "default" } });
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * await using factory = new SharedInformerFactory(client);
 *
 * const queue = new RateLimitingQueue<string>();
 * factory.informerFor(ConfigMaps).addEventHandler({
 *   onAdd: (cm) => queue.add(metaNamespaceKeyFunc(cm)),
 * });
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal);
 *
 * const key = await queue.get(); // a worker takes a key...
 * const cm = factory.lister(ConfigMaps).get(key!); // ...and reads the cache
 * assert.equal(cm?.metadata.name, "settings");
 * queue.done(key!);
 * queue.shutDown();
 * stop.abort();
 * ```
 *
 * @module
 */

export * from "./cache/mod.ts";
export * from "./workqueue/mod.ts";
// From the client: the resource descriptors and object types, the errors,
// the config and the client with their options. Discovery, authentication
// plumbing and the watch decoder stay in `@kubecache/core/client`.
export * from "./api/resources.ts";
export * from "./api/types.ts";
export * from "./api/errors.ts";
export {
  type AuthConfig,
  type Authenticator,
  AuthError,
  type CallOptions,
  type Credentials,
  type DeleteOptions,
  type ExecConfig,
  type GetOptions,
  type ImpersonationConfig,
  type InClusterOptions,
  KubeClient,
  type KubeClientOptions,
  KubeConfig,
  KubeConfigError,
  type KubeConfigFileOptions,
  type KubeConfigOptions,
  type ListCallOptions,
  type PatchOptions,
  type PatchType,
  type RawRequestOptions,
  type RequestObservation,
  RequestTimeoutError,
  type TlsConfig,
  WatchDecodeError,
  type WatchDecodeErrorKind,
  type WriteOptions,
} from "./client/mod.ts";
