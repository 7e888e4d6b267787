/**
 * Watch pods and print each change.
 *
 *   deno run -A examples/watch_pods.ts            # the cluster of your kubeconfig
 *   deno run -A examples/watch_pods.ts --demo     # an embedded demo cluster
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
} from "../mod.ts";
import { startDemoCluster } from "../testing/mod.ts";

await using demo = Deno.args.includes("--demo")
  ? await startDemoCluster()
  : undefined;
const config = demo
  ? KubeConfig.fromOptions({ server: demo.url })
  : await KubeConfig.load();
await using client = new KubeClient(config);

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
