/**
 * Watch pods and print each change.
 *
 *   deno run -A examples/watch_pods.ts            # the cluster of your kubeconfig
 *   deno run -A examples/watch_pods.ts --demo     # an embedded demo cluster
 *
 * @module
 */

import {
  type DeepReadonly,
  deletionHandlingMetaNamespaceKeyFunc,
  listWatch,
  newSharedIndexInformer,
  type Pod,
  Pods,
} from "../mod.ts";
import { connectOrExit } from "../cli.ts";

// --demo: the embedded demo cluster; else your kubeconfig's cluster.
await using connection = await connectOrExit(Deno.args);
const { client } = connection;

// Runs until Ctrl-C, or until stdout is closed (`| head -3`).
const stop = new AbortController();
Deno.addSignalListener("SIGINT", () => stop.abort());

const encoder = new TextEncoder();
/**
 * Print one line. Once the reader of stdout has gone (`| head -3`), stop
 * the watch and end with exit code 0, as `cli.ts` does: console.log would
 * drop the lines silently and keep watching for nobody.
 */
function print(...words: unknown[]): void {
  if (stop.signal.aborted) return;
  const bytes = encoder.encode(words.join(" ") + "\n");
  try {
    for (let off = 0; off < bytes.length;) {
      off += Deno.stdout.writeSync(bytes.subarray(off));
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
    stop.abort();
  }
}

const informer = newSharedIndexInformer(listWatch(client, Pods));
// Cached objects are typed DeepReadonly: readers take them that way.
const phase = (pod: DeepReadonly<Pod>) => pod.status?.phase;
informer.addEventHandler({
  onAdd: (pod, initial) =>
    print(
      initial ? "existing" : "added",
      `${pod.metadata.namespace}/${pod.metadata.name}`,
      phase(pod),
    ),
  onUpdate: (old, pod) => {
    if (phase(old) !== phase(pod)) {
      print(
        "phase",
        `${pod.metadata.namespace}/${pod.metadata.name}`,
        phase(old),
        "→",
        phase(pod),
      );
    }
  },
  onDelete: (pod) =>
    // namespace/name, of the pod or of a tombstone (DeletedFinalStateUnknown)
    print("deleted", deletionHandlingMetaNamespaceKeyFunc(pod)),
});

await informer.run(stop.signal);
