/**
 * Startup shared by the examples: a client of the embedded demo cluster
 * (`--demo`) or of your kubeconfig, checked once so that a missing config or
 * an unreachable server ends the script with one line instead of a stack
 * trace or endless retries.
 *
 * @module
 */

import { KubeClient, KubeConfig, StatusError } from "../mod.ts";
import { type DemoCluster, startDemoCluster } from "../testing/mod.ts";
import { describeError } from "../cli.ts";

/** The demo cluster (when `--demo` is given) and a client of the cluster. */
export interface Connection extends AsyncDisposable {
  /** The client; closed on dispose. */
  client: KubeClient;
  /** The embedded demo cluster, stopped on dispose; undefined without `--demo`. */
  demo?: DemoCluster;
}

/**
 * Start the demo cluster if `args` has `--demo`, else load the kubeconfig
 * (KUBECONFIG, ~/.kube/config, then in-cluster), and make one request.
 * On failure, print `error: ...` and exit 1.
 * @param args the script's arguments
 * @returns the connection
 */
export async function connect(args: readonly string[]): Promise<Connection> {
  const demo = args.includes("--demo") ? await startDemoCluster() : undefined;
  let client: KubeClient | undefined;
  try {
    client = new KubeClient(
      demo
        ? KubeConfig.fromOptions({ server: demo.url })
        : await KubeConfig.load(),
    );
    // Any answer, even 401/403, shows the server is there; only a failure
    // to connect (or to configure) ends the script here.
    await client.request("GET", "/version").catch((err) => {
      if (!(err instanceof StatusError)) throw err;
    });
  } catch (err) {
    client?.close();
    await demo?.close();
    // One line, as the CLI words it (e.g. "Cannot reach the API server at ...").
    const why = describeError(err, { server: client?.config.server });
    const hint = "(run with --demo to use the embedded cluster)";
    console.error(`error: ${why}${why.includes("--demo") ? "" : ` ${hint}`}`);
    Deno.exit(1);
  }
  const ready = client;
  return {
    client: ready,
    demo,
    async [Symbol.asyncDispose]() {
      ready.close();
      await demo?.close();
    },
  };
}
