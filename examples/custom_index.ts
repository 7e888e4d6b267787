/**
 * Query the cache by a custom index: pods by node name. Indexes are kept up
 * to date as the informer applies changes, so `byIndex` is a map lookup,
 * not a scan.
 *
 *   deno run -A examples/custom_index.ts [--demo]
 *
 * @module
 */

import {
  KubeClient,
  KubeConfig,
  type KubeObject,
  listWatch,
  newSharedIndexInformer,
  Pods,
  waitForCacheSync,
} from "../mod.ts";
import { startDemoCluster } from "../testing/mod.ts";

type Pod = KubeObject & { spec?: { nodeName?: string } };

await using demo = Deno.args.includes("--demo")
  ? await startDemoCluster()
  : undefined;
const config = demo
  ? KubeConfig.fromOptions({ server: demo.url })
  : await KubeConfig.load();
await using client = new KubeClient(config);

const informer = newSharedIndexInformer<Pod>(listWatch(client, Pods), {
  indexers: {
    // Every pod is indexed under its node; unscheduled pods under none.
    byNode: (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []),
  },
});
const stop = new AbortController();
const running = informer.run(stop.signal);
await waitForCacheSync(stop.signal, () => informer.hasSynced());

const indexer = informer.getIndexer();
for (const node of indexer.listIndexFuncValues("byNode").sort()) {
  const pods = indexer.byIndex("byNode", node);
  console.log(`${node}: ${pods.length} pods`);
  for (const pod of pods) {
    console.log(`  ${pod.metadata.namespace}/${pod.metadata.name}`);
  }
}

stop.abort();
await running;
