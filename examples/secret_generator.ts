/**
 * A controller with owned objects, a finalizer and Events: every ConfigMap
 * labelled `kubecache.dev/generate-secret=true` gets a Secret
 * `<name>-generated` holding a random value for each key its `keys` entry
 * lists (`keys: "username,password"`). Values, once made, are kept; keys
 * no longer listed go. The Secret is owned by the ConfigMap (the garbage
 * collector deletes it with it, and editing or deleting the Secret by hand
 * reconciles the ConfigMap again); a finalizer on the ConfigMap makes the
 * controller delete the Secret itself and say so in an Event before the
 * ConfigMap goes, even when it is deleted with `--cascade=orphan`.
 *
 *   deno run -A examples/secret_generator.ts [--demo]
 *   kubectl apply -f - <<EOF
 *   apiVersion: v1
 *   kind: ConfigMap
 *   metadata:
 *     name: db
 *     namespace: default
 *     labels: {kubecache.dev/generate-secret: "true"}
 *   data: {keys: "username,password"}
 *   EOF
 *   kubectl get secret db-generated -o yaml; kubectl get events
 *   kubectl delete configmap db   # the finalizer deletes the Secret first
 *
 * With `--demo` the script prints the demo cluster's address on stderr: add
 * `--server http://127.0.0.1:PORT` to each kubectl command (or start it with
 * `--demo-kubeconfig demo.kubeconfig` and set `KUBECONFIG=demo.kubeconfig`).
 * Use `kubectl apply`: `kubectl create configmap` sends protobuf, which the
 * demo cluster does not speak (it answers 415).
 *
 * @module
 */

import {
  type ConfigMap,
  ConfigMaps,
  deepCopy,
  type DeepReadonly,
  isNotFound,
  type Secret,
  Secrets,
} from "../mod.ts";
import {
  createOrPatch,
  finalizer,
  hasFinalizer,
  Manager,
  type Reconciler,
  removeFinalizer,
  setControllerReference,
} from "../controller/mod.ts";
import { connectOrExit } from "../cli.ts";

/** The label that asks for a Secret. */
export const LABEL = "kubecache.dev/generate-secret";
/** The finalizer the controller keeps on the ConfigMaps it serves. */
export const FINALIZER = "kubecache.dev/generated-secret";

/** The name of the Secret generated for ConfigMap `name`. */
export const secretName = (name: string): string => `${name}-generated`;

/** 24 random bytes, base64: one generated value. */
function randomValue(): string {
  return btoa(
    String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))),
  );
}

/** The reconciler: owned Secret, finalizer, Events. */
export function secretGenerator(manager: Manager): Reconciler {
  const configMaps = manager.factory.lister(ConfigMaps);
  return async ({ namespace, name }, ctx) => {
    const { client, recorder, signal } = ctx;
    const cached = configMaps.namespaced(namespace!).get(name);
    if (!cached) return; // gone: the finalizer already cleaned up

    const deleteSecret = async (cm: DeepReadonly<ConfigMap>) => {
      try {
        await client.delete(Secrets, secretName(name), { namespace, signal });
        recorder.event(
          cm,
          "Normal",
          "SecretDeleted",
          `deleted Secret ${secretName(name)}`,
        );
      } catch (err) {
        if (!isNotFound(err)) throw err; // retried with backoff
      }
    };

    // No longer asking (the label went): delete the Secret, then let go.
    if (cached.metadata.labels?.[LABEL] !== "true") {
      if (!hasFinalizer(cached, FINALIZER)) return;
      await deleteSecret(cached);
      const cm = deepCopy(cached) as ConfigMap;
      removeFinalizer(cm, FINALIZER);
      await client.update(ConfigMaps, cm, { signal });
      return;
    }

    // The finalizer flow: it is added first (and the write brings the
    // ConfigMap back), apply runs while the ConfigMap lives, cleanup once
    // it is being deleted, and then the finalizer goes.
    return await finalizer(ctx, ConfigMaps, cached, FINALIZER, {
      cleanup: deleteSecret,
      apply: async (cm) => {
        const keys = (cm.data?.keys ?? "").split(",").map((k) => k.trim())
          .filter((k) => k !== "");
        const desired: Secret = {
          metadata: { name: secretName(name), namespace },
          type: "Opaque",
        };
        const result = await createOrPatch(
          client,
          Secrets,
          desired,
          (secret) => {
            setControllerReference(cm, secret);
            const data: Record<string, string> = {};
            for (const key of keys) {
              data[key] = secret.data?.[key] ?? randomValue();
            }
            secret.data = data;
          },
          { signal },
        );
        if (result !== "unchanged") {
          recorder.event(
            cm,
            "Normal",
            result === "created" ? "SecretCreated" : "SecretUpdated",
            `Secret ${
              secretName(name)
            } holds ${keys.length} generated value(s)`,
          );
        }
      },
    });
  };
}

/** Add the controller to `manager`. */
export function addSecretGenerator(manager: Manager): void {
  manager.controller("secret-generator", ConfigMaps)
    .owns(Secrets)
    .complete(secretGenerator(manager));
}

if (import.meta.main) {
  // --demo: the embedded demo cluster; else your kubeconfig's cluster.
  await using connection = await connectOrExit(Deno.args);
  await using manager = new Manager(connection.client);
  addSecretGenerator(manager);
  const stop = new AbortController();
  Deno.addSignalListener("SIGINT", () => stop.abort());
  Deno.addSignalListener("SIGTERM", () => stop.abort());
  console.log(`generating Secrets for ConfigMaps labelled ${LABEL}=true`);
  try {
    await manager.run(stop.signal);
  } catch (err) {
    // A fatal informer error: one line and exit 1, not a stack.
    console.error(`error: ${err instanceof Error ? err.message : err}`);
    Deno.exitCode = 1;
  }
}
