/**
 * Who the client is: a kubeconfig user's entry (clientcmd `api.AuthInfo`),
 * its credentials ({@link AuthConfig}, an exec plugin's {@link ExecConfig})
 * and whom it acts as ({@link ImpersonationConfig}). The kubeconfig parser
 * and `KubeConfig` both take these shapes from here.
 *
 * @module
 */

/**
 * An exec credential plugin (clientcmd `api.ExecConfig`): a command that
 * prints a `client.authentication.k8s.io` `ExecCredential` with a token or
 * a client certificate.
 *
 * @example An exec plugin section
 * ```ts
 * import { type ExecConfig, KubeConfig } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const exec: ExecConfig = {
 *   command: "gke-gcloud-auth-plugin",
 *   args: [],
 *   env: [],
 *   apiVersion: "client.authentication.k8s.io/v1beta1",
 *   provideClusterInfo: true,
 *   interactiveMode: "IfAvailable",
 * };
 * const config = KubeConfig.fromOptions({ server: "https://10.0.0.1", exec });
 * assert.equal(config.auth.exec?.command, "gke-gcloud-auth-plugin");
 * ```
 */
export interface ExecConfig {
  /** Command to run; a relative path with a `/` is resolved against the kubeconfig's directory. */
  command: string;
  /** Arguments. */
  args: string[];
  /** Extra environment variables, added to the process environment. */
  env: { name: string; value: string }[];
  /** `client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`. */
  apiVersion: string;
  /** Shown when the command cannot be found. */
  installHint?: string;
  /** Whether to pass the cluster's server and CA to the plugin in `KUBERNETES_EXEC_INFO`. */
  provideClusterInfo: boolean;
  /** `Never`, `IfAvailable` or `Always`; kubecache never gives the plugin a terminal. */
  interactiveMode?: string;
}

/**
 * How to authenticate; at most one of the token sources is used.
 *
 * @example How a loaded config authenticates
 * ```ts
 * import { type AuthConfig, KubeConfig } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const config = KubeConfig.fromOptions({ server: "https://10.0.0.1:6443", token: "abc" });
 * const auth: AuthConfig = config.auth;
 * assert.equal(auth.token, "abc");
 * assert.equal(auth.exec, undefined);
 * ```
 */
export interface AuthConfig {
  /** A static bearer token. */
  token?: string;
  /** A file holding a bearer token, re-read when it changes (a projected service account token). */
  tokenFile?: string;
  /** Basic-auth user name. */
  username?: string;
  /** Basic-auth password. */
  password?: string;
  /** An exec credential plugin. */
  exec?: ExecConfig;
}

/**
 * Whom to act as (client-go `rest.ImpersonationConfig`, kubectl's `--as`):
 * every request carries `Impersonate-User`, `Impersonate-Uid`, one
 * `Impersonate-Group` per group and `Impersonate-Extra-<key>` per extra
 * value, and the API server authorizes it as that user once it has checked
 * that the real credentials may `impersonate`.
 *
 * @example Act as a service account
 * ```ts
 * import { type ImpersonationConfig, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const impersonate: ImpersonationConfig = {
 *   user: "system:serviceaccount:team-a:deployer",
 *   groups: ["system:serviceaccounts"],
 *   extra: { "scopes.example.com": ["read"] },
 * };
 * const config = KubeConfig.fromOptions({ server: "https://10.0.0.1:6443", token: "admin", impersonate });
 * assert.equal(config.impersonate?.user, "system:serviceaccount:team-a:deployer");
 * ```
 */
export interface ImpersonationConfig {
  /** The user to act as (`Impersonate-User`; the kubeconfig's `as`). */
  user: string;
  /** Their uid (`Impersonate-Uid`; the kubeconfig's `as-uid`). */
  uid?: string;
  /** Their groups, one `Impersonate-Group` header each (`as-groups`). */
  groups?: string[];
  /**
   * Extra fields, one `Impersonate-Extra-<key>` header per value, the key
   * percent-encoded where a header name cannot hold it (`as-user-extra`).
   */
  extra?: Record<string, string[]>;
}
