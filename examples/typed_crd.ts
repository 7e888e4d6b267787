/**
 * Typed custom resources: the types in `examples/kube_types/` were
 * generated from the CustomResourceDefinition manifest
 * `examples/widget-crd.json` by
 *
 *   deno run -A cli.ts gen --crd examples/widget-crd.json \
 *     --out examples/kube_types --import-from ../../../mod.ts
 *
 * (in a project of your own: `--out kube_types`, and the modules import
 * `@kubecache/core`). This example starts a FakeApiServer, creates the CRD
 * on it, watches Widgets through a typed informer and creates one with a
 * typed client call; a misspelt field would not type-check.
 *
 *   deno run -A examples/typed_crd.ts
 *
 * @module
 */

import {
  CustomResourceDefinitions,
  KubeClient,
  KubeConfig,
  SharedInformerFactory,
} from "../mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { type Widget, Widgets } from "./kube_types/example.com/v1.ts";

const crd = JSON.parse(
  await Deno.readTextFile(new URL("./widget-crd.json", import.meta.url)),
);
await using server = await FakeApiServer.start();
server.create(CustomResourceDefinitions, crd);
await using client = new KubeClient(
  KubeConfig.fromOptions({ server: server.url }),
);
await using factory = new SharedInformerFactory(client);

const added = Promise.withResolvers<void>();
factory.informerFor(Widgets).addEventHandler({
  // `widget` is a Widget: spec.size is "small" | "medium" | "large".
  onAdd: (widget) => {
    const parts = widget.spec?.parts?.map((p) => p.name).join(",") ?? "";
    console.log(
      `added ${widget.metadata.name}: ${widget.spec?.size} [${parts}]`,
    );
    if (widget.metadata.name === "w1") added.resolve();
  },
});
const stop = new AbortController();
factory.start(stop.signal);
await factory.waitForCacheSync(stop.signal);

const w1: Widget = {
  metadata: { name: "w1", namespace: "default" },
  spec: {
    size: "medium",
    replicas: 2,
    port: "http", // int-or-string
    parts: [{ name: "gear", weight: 1.5 }],
    config: { anything: { goes: [1, 2] } }, // preserve-unknown-fields
  },
};
await client.create(Widgets, w1);
await added.promise;
const cached = factory.lister(Widgets).namespaced("default").get("w1");
console.log(`cached w1: ${cached?.spec?.replicas} replicas`);
stop.abort();

/** Never called: `deno check` fails unless the marked line is an error. */
function _misspelt(): Promise<Widget> {
  return client.create(Widgets, {
    metadata: { name: "w2", namespace: "default" },
    // @ts-expect-error WidgetSpec has `replicas`, not `replica`
    spec: { size: "small", replica: 2 },
  });
}
