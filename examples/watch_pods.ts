/**
 * Watch pods and print each change.
 *
 *   deno run -A examples/watch_pods.ts            # the cluster of your kubeconfig
 *   deno run -A examples/watch_pods.ts --demo     # an embedded demo cluster
 *
 * @module
 */

import {
  type KubeObject,
  listWatch,
  newSharedIndexInformer,
  Pods,
} from "../mod.ts";
import { connect } from "./_connect.ts";

// --demo: the embedded demo cluster; else your kubeconfig's cluster.
await using connection = await connect(Deno.args);
const { client } = connection;

type Pod = KubeObject & { status?: { phase?: string } };
const informer = newSharedIndexInformer<Pod>(listWatch(client, Pods));
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
    console.log("deleted", "key" in pod ? pod.key : pod.metadata.name),
});

// Run until Ctrl-C.
const stop = new AbortController();
Deno.addSignalListener("SIGINT", () => stop.abort());
await informer.run(stop.signal);
