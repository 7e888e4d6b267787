/**
 * The KubeConfig of the CLI's command line: the kubeconfig found as kubectl
 * finds it, with the connection flags (`--server`, `--token`,
 * `--certificate-authority`, `--insecure-skip-tls-verify`, `--as`) laid over it as
 * kubectl lays its overrides (clientcmd `ConfigOverrides`). With `--server`
 * and no kubeconfig file at all, the flags alone make the config, so a
 * script or a fake server needs no kubeconfig written.
 *
 * @module
 */

import { KubeConfig, KubeConfigError } from "../client/config.ts";
import type { ConnectionArgs } from "./args.ts";

/** Where the environment is read (tests pass their own). */
export interface ConnectEnv {
  /** An environment variable. Default: `Deno.env.get`. */
  get(name: string): string | undefined;
  /** Whether a file exists. Default: `Deno.statSync` succeeds. */
  exists(path: string): boolean;
}

const DENO_ENV: ConnectEnv = {
  get: (name) => Deno.env.get(name),
  exists: (path) => {
    try {
      Deno.statSync(path);
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * Resolve the config of a command line.
 *
 * Without `--server`: `--kubeconfig`/`--context` as given, else
 * `KubeConfig.load()` (KUBECONFIG, `~/.kube/config`, in-cluster). With
 * `--server`: the same kubeconfig when one exists (its user's credentials
 * are kept, as kubectl keeps them), else nothing but the flags. Then the
 * flags override: `--server` the URL, `--token` the user's credentials
 * (token, token file, basic auth and exec plugin; a client certificate
 * stays), `--certificate-authority` or `--insecure-skip-tls-verify` both TLS
 * settings (a kubeconfig CA is dropped when either is given, as kubectl
 * drops it), `--as` (with `--as-uid`, `--as-group`) the impersonation.
 * @param args the parsed command line
 * @param env where KUBECONFIG and HOME are read
 * @returns the config, and whether the flags alone made it
 * @throws {KubeConfigError} when no config applies, a kubeconfig is broken
 * or the CA file cannot be read
 */
export async function loadConfig(
  args: ConnectionArgs,
  env: ConnectEnv = DENO_ENV,
): Promise<{ config: KubeConfig; flagsOnly: boolean }> {
  const explicit = args.kubeconfig !== undefined || args.context !== undefined;
  let base: KubeConfig | undefined;
  if (explicit) {
    base = KubeConfig.fromFile(args.kubeconfig, { context: args.context });
  } else if (args.server === undefined || hasKubeconfig(env)) {
    base = await KubeConfig.load();
  }
  const overridesTls = args.certificateAuthority !== undefined ||
    args.insecureSkipTlsVerify !== undefined;
  const tls = overridesTls
    ? {
      ...base?.tls,
      caData: args.certificateAuthority === undefined
        ? undefined
        : readCa(args.certificateAuthority),
      insecureSkipTlsVerify: args.insecureSkipTlsVerify ?? false,
    }
    : base?.tls;
  const auth = args.token === undefined ? base?.auth : { token: args.token };
  return {
    config: new KubeConfig({
      // Without --server, a base was loaded (or load() threw).
      server: args.server ?? base!.server,
      namespace: base?.namespace,
      contextName: base?.contextName,
      userName: base?.userName,
      tls,
      auth,
      proxyUrl: base?.proxyUrl,
      // --as replaces the kubeconfig's impersonation (kubectl's override).
      impersonate: args.as !== undefined
        ? {
          user: args.as,
          ...(args.asUid !== undefined ? { uid: args.asUid } : {}),
          ...(args.asGroups !== undefined ? { groups: args.asGroups } : {}),
        }
        : base?.impersonate,
    }),
    flagsOnly: base === undefined,
  };
}

/** Whether kubectl would read a kubeconfig file: KUBECONFIG set, or ~/.kube/config present. */
function hasKubeconfig(env: ConnectEnv): boolean {
  if (env.get("KUBECONFIG")) return true;
  const home = env.get("HOME") ?? env.get("USERPROFILE");
  return home !== undefined && env.exists(`${home}/.kube/config`);
}

function readCa(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (cause) {
    throw new KubeConfigError(
      `Cannot read certificate authority file ${path}: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { path, cause },
    );
  }
}
