/**
 * Watch pods and print each change.
 *
 *   deno run -A examples/watch_pods.ts            # the cluster of your kubeconfig
 *   deno run -A examples/watch_pods.ts --demo     # an embedded demo cluster
 *
 * @module
 */

import { listWatch, newSharedIndexInformer, type Pod, Pods } from "../mod.ts";
import { connect } from "./_connect.ts";

// --demo: the embedded demo cluster; else your kubeconfig's cluster.
await using connection = await connect(Deno.args);
const { client } = connection;

const informer = newSharedIndexInformer(listWatch(client, Pods));
const phase = (pod: Pod) => pod.status?.phase;
informer.addEventHandler({
  onAdd: (pod, initial) =>
    console.log(
      initial ? "existing" : "added",
      `${pod.metadata.namespace}/${pod.metadata.name}`,
      phase(pod),
    ),
  onUpdate: (old, pod) => {
    if (phase(old) !== phase(pod)) {
      console.log(
        "phase",
        `${pod.metadata.namespace}/${pod.metadata.name}`,
        phase(old),
        "→",
        phase(pod),
      );
    }
  },
  onDelete: (pod) =>
    // A tombstone (DeletedFinalStateUnknown) carries the namespace/name key.
    console.log(
      "deleted",
      "key" in pod ? pod.key : `${pod.metadata.namespace}/${pod.metadata.name}`,
    ),
});

// Run until Ctrl-C.
const stop = new AbortController();
Deno.addSignalListener("SIGINT", () => stop.abort());
await informer.run(stop.signal);
