/**
 * The root entry point (`@kubecache/core`) holds what a script or a
 * controller uses: cache/, the config and client with their options, the
 * resource descriptors and object types, the errors, workqueue/. The
 * kubectl printers belong to `@kubecache/core/cli`, the HTTP transport is
 * internal, test aids are in `@kubecache/core/testing` and leader election in
 * `@kubecache/core/leaderelection` (docs/architecture.md, Entry points).
 *
 * The list is pinned: a name added to or removed from the root is a change
 * of the public surface, made here on purpose.
 */

import assert from "node:assert/strict";

const ROOT = new URL("./", import.meta.url);

/** The exported names of one module, types included, as `deno doc` lists them. */
async function exportedNames(path: string): Promise<string[]> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", path],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const doc = JSON.parse(new TextDecoder().decode(stdout));
  const names = new Set<string>();
  for (
    const node of Object.values(doc.nodes) as { symbols: { name: string }[] }[]
  ) {
    for (const symbol of node.symbols) names.add(symbol.name);
  }
  return [...names].sort();
}

/** Every name `@kubecache/core` exports, sorted. */
const ROOT_EXPORTS = [
  "AddEventHandlerOptions",
  "AuthConfig",
  "AuthError",
  "Authenticator",
  "BUILTIN_RESOURCE_TYPES",
  "BackoffPolicy",
  "BatchWatchIterator",
  "BucketRateLimiter",
  "CacheMutationDetector",
  "CacheMutationError",
  "CallOptions",
  "CallbackResult",
  "Clock",
  "Condition",
  "ConfigMap",
  "ConfigMaps",
  "Container",
  "ContainerState",
  "ContainerStatus",
  "Controller",
  "ControllerConfig",
  "Credentials",
  "CronJob",
  "CronJobs",
  "CustomResourceDefinitions",
  "DaemonSet",
  "DaemonSets",
  "DeepMutable",
  "DeepReadonly",
  "DelayingQueue",
  "DeleteOptions",
  "DeletedFinalStateUnknown",
  "Delta",
  "DeltaFIFO",
  "DeltaFIFOOptions",
  "DeltaType",
  "Deltas",
  "Deployment",
  "Deployments",
  "DurationSummary",
  "EndpointSlices",
  "Endpoints",
  "ErrorHandler",
  "Events",
  "ExecConfig",
  "ExpectedType",
  "ExpirationOptions",
  "ExpirationPolicy",
  "ExplicitKey",
  "FIFO",
  "FIFOClosedError",
  "FilteringResourceEventHandler",
  "GenericLister",
  "GenericNamespaceLister",
  "GetOptions",
  "Heap",
  "ImpersonationConfig",
  "InClusterOptions",
  "IndexFunc",
  "IndexFunctionError",
  "Indexer",
  "Indexers",
  "InformerErrorContext",
  "InformerForOptions",
  "InformerOptions",
  "Ingresses",
  "ItemExponentialFailureRateLimiter",
  "ItemFastSlowRateLimiter",
  "Job",
  "Jobs",
  "KeyError",
  "KeyFunc",
  "KeyListerGetter",
  "KubeClient",
  "KubeClientOptions",
  "KubeConfig",
  "KubeConfigError",
  "KubeConfigFileOptions",
  "KubeConfigOptions",
  "KubeEvent",
  "KubeObject",
  "LabelSelector",
  "LabelledObject",
  "Labels",
  "Lease",
  "Leases",
  "ListCallOptions",
  "ListMeta",
  "ListOptions",
  "ListWatchOptions",
  "Lister",
  "ListerWatcher",
  "METADATA_LIST_ACCEPT",
  "METADATA_WATCH_ACCEPT",
  "MUTATION_DETECTOR_ENV",
  "MaxOfRateLimiter",
  "MutationCache",
  "MutationCacheOptions",
  "MutationDetector",
  "MutationDetectorOptions",
  "NAMESPACE_INDEX",
  "Namespace",
  "Namespaces",
  "Node",
  "Nodes",
  "ObjectList",
  "ObjectMeta",
  "Operator",
  "OwnerReference",
  "PartialObjectMetadata",
  "PatchOptions",
  "PatchType",
  "PersistentVolumeClaims",
  "PersistentVolumes",
  "Pod",
  "PodSpec",
  "PodStatus",
  "PodTemplateSpec",
  "Pods",
  "PopProcessFunc",
  "Queue",
  "QueueGetOptions",
  "RateLimiter",
  "RateLimitingQueue",
  "RawRequestOptions",
  "ReadonlyIndexer",
  "ReadonlyStore",
  "RealClock",
  "Reconcile",
  "Reflector",
  "ReflectorHealth",
  "ReflectorOptions",
  "ReflectorStatus",
  "ReflectorStatusListener",
  "ReflectorStore",
  "ReplicaSet",
  "ReplicaSets",
  "RequestObservation",
  "RequestTimeoutError",
  "RequeueError",
  "Requirement",
  "ResourceClient",
  "ResourceEventHandler",
  "ResourceEventHandlerRegistration",
  "ResourceRequestOptions",
  "ResourceType",
  "ResourceTypeOptions",
  "RunWorkersOptions",
  "Secret",
  "Secrets",
  "Selector",
  "SelectorParseError",
  "Service",
  "ServiceAccounts",
  "Services",
  "SharedIndexInformer",
  "SharedIndexInformerOptions",
  "SharedInformerFactory",
  "SharedInformerFactoryOptions",
  "StatefulSet",
  "StatefulSets",
  "Status",
  "StatusCause",
  "StatusDetails",
  "StatusError",
  "Store",
  "TTLPolicy",
  "ThreadSafeStore",
  "ThreadSafeStoreOptions",
  "TimestampedEntry",
  "TlsConfig",
  "WaitForCondition",
  "WatchDecodeError",
  "WatchDecodeErrorKind",
  "WatchErrorHandler",
  "WatchEvent",
  "WatchEventType",
  "WorkQueue",
  "WorkQueueMetrics",
  "WorkQueueOptions",
  "WriteOptions",
  "apiVersionOf",
  "computeKey",
  "deepCopy",
  "defaultControllerRateLimiter",
  "deletionHandlingMetaNamespaceKeyFunc",
  "everything",
  "hasNextBatch",
  "isAlreadyExists",
  "isBadRequest",
  "isCacheMutationDetectorEnabled",
  "isConflict",
  "isExpired",
  "isForbidden",
  "isGone",
  "isInvalid",
  "isNotFound",
  "isServerError",
  "isTimeout",
  "isTooLargeResourceVersion",
  "isTooManyRequests",
  "isUnauthorized",
  "listAll",
  "listAllByNamespace",
  "listWatch",
  "logReflectorStatus",
  "metaNamespaceIndexFunc",
  "metaNamespaceKeyFunc",
  "metadataListWatch",
  "newCacheMutationDetector",
  "newExpirationStore",
  "newGenericLister",
  "newIndexer",
  "newIndexerInformer",
  "newInformer",
  "newIntegerResourceVersionMutationCache",
  "newSharedIndexInformer",
  "newStore",
  "newTTLStore",
  "newThreadSafeStore",
  "newUndeltaStore",
  "parseSelector",
  "readonlyIndexer",
  "realClock",
  "resourceType",
  "runWorkers",
  "selectorFromSet",
  "splitMetaNamespaceKey",
  "stripManagedFields",
  "waitForCacheSync",
];

Deno.test("mod.ts exports exactly the pinned list of names", async () => {
  assert.deepEqual(await exportedNames("mod.ts"), ROOT_EXPORTS);
});

Deno.test("mod.ts exports no kubectl printer, transport helper, test aid or leader election", async () => {
  const root = new Set(await exportedNames("mod.ts"));
  for (
    const path of [
      "client/printers.ts",
      "client/transport.ts",
      "testing/mod.ts",
      "leaderelection/mod.ts",
    ]
  ) {
    const leaked = (await exportedNames(path)).filter((n) => root.has(n));
    assert.deepEqual(leaked, [], `mod.ts exports names of ${path}`);
  }
});

Deno.test("the printers are exported by @kubecache/core/cli, not by ./client", async () => {
  const printers = await exportedNames("client/printers.ts");
  assert.ok(printers.includes("printerFor") && printers.includes("age"));
  const cli = new Set(await exportedNames("cli.ts"));
  assert.deepEqual(printers.filter((n) => !cli.has(n)), []);
  const client = new Set(await exportedNames("client/mod.ts"));
  assert.deepEqual(printers.filter((n) => client.has(n)), []);
  const transport = await exportedNames("client/transport.ts");
  assert.deepEqual(transport.filter((n) => client.has(n) || cli.has(n)), []);
});
