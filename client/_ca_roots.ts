/**
 * Whether the cluster's CA is the only root a connection trusts. client-go
 * builds a pool of the kubeconfig's CA alone (`transport.rootCertPool`);
 * Deno adds a CA given to `Deno.createHttpClient` or `Deno.connectTls`
 * (`caCerts`) to its root store instead, and offers no way, per client,
 * to leave the store out or to see the certificate the server presented.
 * The one way is the process's: `DENO_TLS_CA_STORE` set to nothing (an
 * empty list of stores), which leaves only `caCerts` (and `DENO_CERT`, a
 * file the user named). Internal module.
 *
 * @module
 */

import type { TlsConfig } from "./config.ts";

/** The variable naming Deno's root stores (`mozilla`, `system`). */
export const CA_STORE_VAR = "DENO_TLS_CA_STORE";

/**
 * Whether Deno's root store is empty, so `caCerts` are the only roots:
 * `DENO_TLS_CA_STORE` is set and names no store. False when it is unset
 * (Deno then trusts its bundled roots) or the program may not read it
 * (asked with `querySync`: no permission prompt).
 * @param read reads a variable (the process's environment by default)
 */
export function rootStoreIsEmpty(
  read: (name: string) => string | undefined = readEnv,
): boolean {
  const value = read(CA_STORE_VAR);
  return value !== undefined &&
    value.split(",").every((store) => store.trim() === "");
}

function readEnv(name: string): string | undefined {
  try {
    const { state } = Deno.permissions.querySync({
      name: "env",
      variable: name,
    });
    return state === "granted" ? Deno.env.get(name) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The warning for a client of `server` with `tls`, when its CA is trusted
 * beside Deno's root store rather than alone; undefined when there is none
 * to give (no CA set, plain HTTP, verification off, or the store is empty).
 * @param server the API server's URL
 * @param tls the config's TLS settings
 * @param storeEmpty whether Deno's root store is empty
 */
export function extraRootsWarning(
  server: string,
  tls: TlsConfig,
  storeEmpty: boolean,
): string | undefined {
  if (!tls.caData || tls.insecureSkipTlsVerify || storeEmpty) return undefined;
  if (!server.startsWith("https:")) return undefined;
  return `kubecache: the kubeconfig's certificate-authority is trusted beside Deno's root store, not instead of it, so a certificate for ${server} from any CA in that store is accepted too (client-go trusts the kubeconfig's CA alone); Deno has no way to narrow it per client: run the program with ${CA_STORE_VAR}= (empty, and --allow-env to let kubecache see it) to trust only the configured CA`;
}

let warned = false;

/**
 * Give {@link extraRootsWarning}'s warning to `warn`, once per process:
 * every client of the process shares the one root store.
 */
export function warnOfExtraRoots(
  server: string,
  tls: TlsConfig,
  warn: (message: string) => void,
): void {
  if (warned) return;
  const message = extraRootsWarning(server, tls, rootStoreIsEmpty());
  if (message === undefined) return;
  warned = true;
  warn(message);
}
