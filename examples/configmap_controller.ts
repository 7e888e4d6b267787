/**
 * A small controller: it keeps a `kubecache.dev/data-hash` annotation on
 * every ConfigMap equal to a hash of its data, so pods can roll when their
 * configuration changes. It reacts to ConfigMaps through a
 * SharedInformerFactory and writes with a merge patch; its own patches come
 * back as updates whose hash already matches, so it settles.
 *
 *   deno run -A examples/configmap_controller.ts [--demo]
 *
 * @module
 */

import {
  type ConfigMap,
  ConfigMaps,
  type DeepReadonly,
  SharedInformerFactory,
} from "../mod.ts";
import { connect } from "./_connect.ts";

const ANNOTATION = "kubecache.dev/data-hash";

// --demo: the embedded demo cluster; else your kubeconfig's cluster.
await using connection = await connect(Deno.args);
const { client } = connection;
await using factory = new SharedInformerFactory(client);

// Cached objects are typed DeepReadonly: readers take them that way.
async function hashOf(cm: DeepReadonly<ConfigMap>): Promise<string> {
  const data = JSON.stringify(Object.entries(cm.data ?? {}).sort());
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(data),
  );
  return Array.from(
    new Uint8Array(digest).slice(0, 8),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

async function reconcile(cm: DeepReadonly<ConfigMap>): Promise<void> {
  const hash = await hashOf(cm);
  if (cm.metadata.annotations?.[ANNOTATION] === hash) return;
  const { name, namespace } = cm.metadata;
  await client.patch(ConfigMaps, name!, {
    metadata: { annotations: { [ANNOTATION]: hash } },
  }, {
    namespace,
    patchType: "merge",
  });
  console.log(`annotated ${namespace}/${name} with ${hash}`);
}

// Handlers of one informer run one at a time, in order; log and go on on errors.
const safely = (cm: DeepReadonly<ConfigMap>) =>
  reconcile(cm).catch((err) =>
    console.error(`${cm.metadata.name}: ${err.message}`)
  );
factory.informerFor<ConfigMap>(ConfigMaps).addEventHandler({
  onAdd: safely,
  onUpdate: (_old, cm) => safely(cm),
});

const stop = new AbortController();
Deno.addSignalListener("SIGINT", () => stop.abort());
factory.start(stop.signal);
await factory.waitForCacheSync(stop.signal);
console.log("synced; watching ConfigMaps (Ctrl-C to stop)");
// Until Ctrl-C; rejects (so the script exits 1) if an informer stops on a
// fatal error, such as the mutation detector firing.
await factory.stopped();
