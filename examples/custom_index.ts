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
  listWatch,
  newSharedIndexInformer,
  Pods,
  waitForCacheSync,
} from "../mod.ts";
import { connectOrExit } from "../cli.ts";

// --demo: the embedded demo cluster; else your kubeconfig's cluster.
await using connection = await connectOrExit(Deno.args);
const { client } = connection;

// The built-in Pods type makes the informer's objects `Pod`s (spec.nodeName typed).
const informer = newSharedIndexInformer(listWatch(client, Pods), {
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
