/**
 * Where the API server is and how to authenticate to it: {@link KubeConfig}
 * from kubeconfig files (client-go `tools/clientcmd`: KUBECONFIG merged the
 * way kubectl merges it, then `~/.kube/config`), from inside a pod
 * (`rest.InClusterConfig`), or from explicit options.
 *
 * @module
 */

import {
  checkObject,
  checkOptionalString,
  errorMessage,
  show,
} from "../api/validate.ts";
import { KubeConfigError } from "../api/errors.ts";
import {
  mergeFiles,
  parseFile,
  type RawFile,
  type RawUser,
} from "./_kubeconfig_file.ts";
import type {
  AuthConfig,
  ExecConfig,
  ImpersonationConfig,
} from "./auth_info.ts";

export { KubeConfigError };
export type { AuthConfig, ExecConfig, ImpersonationConfig };

/**
 * TLS settings of a {@link KubeConfig}; all certificate data is PEM text.
 *
 * @example The TLS settings of a config
 * ```ts
 * import { KubeConfig, type TlsConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const tls: TlsConfig = KubeConfig.fromOptions({ server: "https://10.0.0.1" }).tls;
 * assert.equal(tls.insecureSkipTlsVerify, false);
 * assert.equal(tls.caData, undefined); // the system's roots
 * ```
 */
export interface TlsConfig {
  /** PEM CA bundle that verifies the server, in addition to the system roots. */
  caData?: string;
  /** PEM client certificate (chain). */
  certData?: string;
  /** PEM private key of the client certificate. */
  keyData?: string;
  /**
   * The file `certData` was read from (kubeconfig `client-certificate`).
   * When both this and `keyFile` are set, a `KubeClient` re-reads them
   * when they change (looked at most once a second, before a request), so
   * a rotated certificate is used without a restart; the last good pair
   * is kept while the files do not make a matching pair (half-written).
   */
  certFile?: string;
  /** The file `keyData` was read from (kubeconfig `client-key`); see `certFile`. */
  keyFile?: string;
  /**
   * The kubeconfig's `insecure-skip-tls-verify`. Deno cannot turn off
   * verification per client: the process must run with
   * `--unsafely-ignore-certificate-errors=<host>`; kubecache only records
   * the setting and never skips verification on its own.
   */
  insecureSkipTlsVerify: boolean;
}

/**
 * Explicit settings for {@link KubeConfig.fromOptions}.
 *
 * @example A connection without a kubeconfig file
 * ```ts
 * import { KubeConfig, type KubeConfigOptions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const opts: KubeConfigOptions = { server: "https://10.0.0.1:6443", token: "abc", namespace: "team-a" };
 * const config = KubeConfig.fromOptions(opts);
 * assert.equal(config.server, "https://10.0.0.1:6443");
 * assert.equal(config.namespace, "team-a");
 * ```
 */
export interface KubeConfigOptions {
  /** API server URL, e.g. `"https://127.0.0.1:6443"`. */
  server: string;
  /** Bearer token. */
  token?: string;
  /** File with a bearer token, re-read when it changes. */
  tokenFile?: string;
  /** CA certificate: PEM text (base64 of PEM, as in kubeconfig `*-data` fields, is accepted too). */
  caData?: string;
  /** Client certificate: PEM text or base64 of it. */
  certData?: string;
  /** Client key: PEM text or base64 of it. */
  keyData?: string;
  /**
   * Client certificate file (PEM), read now and re-read when it changes
   * (see {@link TlsConfig.certFile}); instead of `certData`.
   */
  certFile?: string;
  /** Client key file (PEM), read with `certFile`; instead of `keyData`. */
  keyFile?: string;
  /** See {@link TlsConfig.insecureSkipTlsVerify}. Default false. */
  insecureSkipTlsVerify?: boolean;
  /** Default namespace. Default `"default"`. */
  namespace?: string;
  /** Basic-auth user name. */
  username?: string;
  /** Basic-auth password. */
  password?: string;
  /** Exec credential plugin. */
  exec?: ExecConfig;
  /** See {@link KubeConfig.proxyUrl}. */
  proxyUrl?: string;
  /** Act as another user: see {@link ImpersonationConfig}. */
  impersonate?: ImpersonationConfig;
}

/**
 * Options of {@link KubeConfig.fromFile} and {@link KubeConfig.fromYaml}.
 *
 * @example Use another context than the current one
 * ```ts
 * import { KubeConfig, type KubeConfigFileOptions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile({ suffix: ".yaml" });
 * await Deno.writeTextFile(path, `apiVersion: v1
 * kind: Config
 * current-context: prod
 * clusters:
 * - {name: prod, cluster: {server: "https://prod:6443"}}
 * - {name: dev, cluster: {server: "https://dev:6443"}}
 * contexts:
 * - {name: prod, context: {cluster: prod, user: me}}
 * - {name: dev, context: {cluster: dev, user: me, namespace: sandbox}}
 * users:
 * - {name: me, user: {token: abc}}
 * `);
 * try {
 *   const opts: KubeConfigFileOptions = { context: "dev" };
 *   const config = KubeConfig.fromFile(path, opts);
 *   assert.equal(config.server, "https://dev:6443");
 *   assert.equal(config.namespace, "sandbox");
 * } finally {
 *   await Deno.remove(path);
 * }
 * ```
 */
export interface KubeConfigFileOptions {
  /** Context to use instead of `current-context`. */
  context?: string;
}

/**
 * Options of {@link KubeConfig.inCluster}; paths default to the service account mount.
 *
 * @example A service account mounted elsewhere
 * ```ts
 * import { type InClusterOptions, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/token`, "sa-token");
 * await Deno.writeTextFile(`${dir}/namespace`, "team-a");
 * const opts: InClusterOptions = { tokenPath: `${dir}/token`, caPath: `${dir}/missing-ca.crt`, namespacePath: `${dir}/namespace` };
 * const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
 * const saved = Object.keys(env).map((k) => [k, Deno.env.get(k)] as const);
 * for (const [k, v] of Object.entries(env)) Deno.env.set(k, v);
 * try {
 *   const config = KubeConfig.inCluster(opts);
 *   assert.equal(config.server, "https://10.96.0.1:443");
 *   assert.equal(config.namespace, "team-a");
 * } finally {
 *   for (const [k, v] of saved) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export interface InClusterOptions {
  /** Default `/var/run/secrets/kubernetes.io/serviceaccount/token`. */
  tokenPath?: string;
  /** Default `/var/run/secrets/kubernetes.io/serviceaccount/ca.crt`. */
  caPath?: string;
  /** Default `/var/run/secrets/kubernetes.io/serviceaccount/namespace`. */
  namespacePath?: string;
}

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Resolved connection settings for one cluster, user and namespace: the
 * counterpart of client-go's `rest.Config`. Build one with
 * {@link KubeConfig.load}, {@link KubeConfig.fromFile},
 * {@link KubeConfig.inCluster} or {@link KubeConfig.fromOptions}, and hand it
 * to `new KubeClient(config)`.
 *
 * @example Explicit options
 * ```ts
 * import { KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const config = KubeConfig.fromOptions({ server: "https://10.0.0.1:6443/", token: "t", namespace: "apps" });
 * assert.equal(config.server, "https://10.0.0.1:6443");
 * assert.equal(config.namespace, "apps");
 * ```
 */
export class KubeConfig {
  /** API server base URL, without a trailing slash. */
  readonly server: string;
  /** Default namespace for namespaced calls that do not name one. */
  readonly namespace: string;
  /** The kubeconfig context this came from, if any. */
  readonly contextName: string | undefined;
  /** The kubeconfig user of that context, if it names one (for messages). */
  readonly userName: string | undefined;
  /** TLS settings. */
  readonly tls: TlsConfig;
  /** Authentication settings. */
  readonly auth: AuthConfig;
  /**
   * The cluster's `proxy-url`: every request goes through this proxy
   * (`http://`, `https://` with HTTP CONNECT for https servers, or
   * `socks5://`, which resolves host names at the proxy as Go does; basic
   * auth as `user:password@` in the URL). Undefined: Deno's own
   * `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY` handling applies, as client-go's
   * `ProxyFromEnvironment` does.
   */
  readonly proxyUrl: string | undefined;
  /**
   * Whom every request acts as (kubeconfig `as`, `as-uid`, `as-groups`,
   * `as-user-extra`; client-go `rest.Config.Impersonate`), or undefined.
   */
  readonly impersonate: ImpersonationConfig | undefined;

  /**
   * Create a config from resolved parts; prefer the static constructors.
   * @param init the resolved settings
   * @throws {KubeConfigError} when the server URL is not http(s), the proxy
   * URL not http, https or socks5, or the TLS settings conflict
   * @throws {TypeError} when `impersonate` has no user or a field of the wrong type
   */
  constructor(init: {
    server: string;
    namespace?: string;
    contextName?: string;
    userName?: string;
    tls?: Partial<TlsConfig>;
    auth?: AuthConfig;
    proxyUrl?: string;
    impersonate?: ImpersonationConfig;
  }) {
    // kubectl takes a bare host:port; kubecache wants the scheme said, and
    // the message says how (`127.0.0.1:8080` is not a URL, `localhost:8080`
    // one with the scheme "localhost:").
    const bare = !init.server.includes("://");
    const hint = bare
      ? `; give the scheme, e.g. "https://${init.server}" ("http://${init.server}" for a plain-HTTP server)`
      : "";
    let url: URL;
    try {
      url = new URL(init.server);
    } catch (cause) {
      throw new KubeConfigError(
        `Cannot use server URL "${init.server}": not a URL${hint}`,
        { cause },
      );
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new KubeConfigError(
        `Cannot use server URL "${init.server}": expected http or https${hint}`,
      );
    }
    this.server = init.server.replace(/\/+$/, "");
    this.namespace = init.namespace || "default";
    this.contextName = init.contextName;
    this.userName = init.userName;
    this.tls = { insecureSkipTlsVerify: false, ...init.tls };
    this.auth = init.auth ?? {};
    this.proxyUrl = init.proxyUrl || undefined;
    if (this.proxyUrl !== undefined) checkProxyUrl(this.proxyUrl);
    try {
      this.impersonate = init.impersonate === undefined
        ? undefined
        : checkImpersonation(init.impersonate);
    } catch (err) {
      throw new TypeError(`KubeConfig: impersonate${(err as Error).message}`);
    }
    if (this.tls.insecureSkipTlsVerify && this.tls.caData) {
      // As kubectl: a CA and "insecure" together are a mistake, not a choice.
      throw new KubeConfigError(
        "Cannot use a certificate authority together with insecure-skip-tls-verify",
      );
    }
    if (Boolean(this.tls.certData) !== Boolean(this.tls.keyData)) {
      throw new KubeConfigError(
        "Cannot use a client certificate without its key, or a key without its certificate",
      );
    }
  }

  /**
   * Build a config from explicit settings (client-go `rest.Config` literal).
   * @param opts server, credentials, TLS and namespace
   * @returns the config
   * @throws {TypeError} when `opts` is not an object, `server` not a
   * string, or `impersonate` not `{ user: string, uid?: string, groups?:
   * string[], extra?: Record<string, string[]> }` with a non-empty user
   * @throws {KubeConfigError} on an invalid server or proxy URL, certificate
   * data that is neither PEM nor base64 of PEM (naming the option), or
   * conflicting TLS settings
   */
  static fromOptions(opts: KubeConfigOptions): KubeConfig {
    const call = "KubeConfig.fromOptions";
    checkObject(call, "opts", opts);
    if (typeof opts.server !== "string") {
      throw new TypeError(
        `${call}: server must be a string, got ${show(opts.server)}`,
      );
    }
    for (
      const key of [
        "token",
        "tokenFile",
        "namespace",
        "username",
        "password",
      ] as const
    ) checkOptionalString(call, key, opts[key]);
    if (
      opts.insecureSkipTlsVerify !== undefined &&
      typeof opts.insecureSkipTlsVerify !== "boolean"
    ) {
      throw new TypeError(
        `${call}: insecureSkipTlsVerify must be a boolean, got ${
          show(opts.insecureSkipTlsVerify)
        }`,
      );
    }
    const data = (key: "caData" | "certData" | "keyData") => {
      try {
        return pem(opts[key]);
      } catch (cause) {
        throw new KubeConfigError(
          `KubeConfig.fromOptions: ${key} must be PEM text or base64 of it, got ${
            show(opts[key])
          }`,
          { cause },
        );
      }
    };
    let impersonate: ImpersonationConfig | undefined;
    if (opts.impersonate !== undefined) {
      try {
        impersonate = checkImpersonation(opts.impersonate);
      } catch (err) {
        throw new TypeError(
          `KubeConfig.fromOptions: impersonate${(err as Error).message}`,
        );
      }
    }
    const file = (key: "certFile" | "keyFile") => {
      const path = opts[key];
      if (path === undefined) return undefined;
      const dataKey = key === "certFile" ? "certData" : "keyData";
      if (opts[dataKey] !== undefined) {
        throw new TypeError(
          `KubeConfig.fromOptions: give ${dataKey} or ${key}, not both`,
        );
      }
      if (typeof path !== "string" || path === "") {
        throw new TypeError(
          `KubeConfig.fromOptions: ${key} must be a non-empty string, got ${
            show(path)
          }`,
        );
      }
      try {
        return Deno.readTextFileSync(path);
      } catch (cause) {
        throw new KubeConfigError(
          `KubeConfig.fromOptions: cannot read ${key} ${path}: ${
            errorMessage(cause)
          }`,
          { path, cause },
        );
      }
    };
    return new KubeConfig({
      server: opts.server,
      namespace: opts.namespace,
      proxyUrl: opts.proxyUrl,
      impersonate,
      tls: {
        caData: data("caData"),
        certData: data("certData") ?? file("certFile"),
        keyData: data("keyData") ?? file("keyFile"),
        certFile: opts.certFile,
        keyFile: opts.keyFile,
        insecureSkipTlsVerify: opts.insecureSkipTlsVerify ?? false,
      },
      auth: {
        token: opts.token,
        tokenFile: opts.tokenFile,
        username: opts.username,
        password: opts.password,
        exec: opts.exec,
      },
    });
  }

  /**
   * Load kubeconfig files and resolve a context (clientcmd's loading
   * rules). With no `path`, the files of `KUBECONFIG` (separated by `:`, or
   * `;` on Windows) are merged as kubectl merges them — the first file to
   * define a cluster, user or context name or `current-context` wins,
   * missing files are skipped (when none exists, the error names them and
   * KUBECONFIG) — else `~/.kube/config` is read. A
   * `KUBECONFIG` that is set but names no file (`":"`) is an error, never
   * a fallback to `~/.kube/config`. Relative paths in a file are resolved
   * against that file's directory.
   *
   * @param path a file, or several to merge; default as above
   * @param opts `context` to use instead of `current-context`
   * @returns the config of the context
   * @throws {KubeConfigError} when no file exists, `KUBECONFIG` names no
   * file, one cannot be read or parsed (YAML errors name line and column),
   * the context is incomplete, or it uses a setting kubecache cannot apply
   * (`tls-server-name` other than the server's host, `auth-provider`)
   */
  static fromFile(
    path?: string | string[],
    opts: KubeConfigFileOptions = {},
  ): KubeConfig {
    const paths = path === undefined
      ? defaultPaths()
      : typeof path === "string"
      ? [path]
      : path;
    // Where the paths came from, so a missing file's message says what to
    // change: the variable, or the path passed (--kubeconfig in the CLI).
    const fromEnv = path === undefined && !!Deno.env.get("KUBECONFIG");
    const fix = fromEnv
      ? " (named by KUBECONFIG); fix KUBECONFIG, or unset it to use ~/.kube/config"
      : "";
    const files: RawFile[] = [];
    for (const p of paths) {
      let text: string;
      try {
        text = Deno.readTextFileSync(p);
      } catch (cause) {
        const missing = cause instanceof Deno.errors.NotFound;
        // kubectl skips missing files of a KUBECONFIG list.
        if (missing && paths.length > 1) continue;
        throw new KubeConfigError(
          `Cannot read kubeconfig ${p}: ${
            missing ? `the file does not exist${fix}` : errorMessage(cause)
          }`,
          { path: p, cause },
        );
      }
      files.push(parseFile(text, p));
    }
    if (files.length === 0) {
      throw new KubeConfigError(
        `Cannot load kubeconfig: none of ${paths.join(", ")} exists${fix}`,
      );
    }
    return resolve(mergeFiles(files), opts.context);
  }

  /**
   * Parse kubeconfig YAML text and resolve a context. Relative paths are
   * resolved against the directory of `opts.path` (default: the working
   * directory).
   * @param text the kubeconfig YAML
   * @param opts `context` to use, and `path` the text came from (for messages and relative paths)
   * @returns the config of the context
   * @throws {KubeConfigError} when the YAML is invalid or the context incomplete
   */
  static fromYaml(
    text: string,
    opts: KubeConfigFileOptions & { path?: string } = {},
  ): KubeConfig {
    return resolve(
      mergeFiles([parseFile(text, opts.path ?? "<kubeconfig>")]),
      opts.context,
    );
  }

  /**
   * The config of a pod's service account (client-go
   * `rest.InClusterConfig`): `KUBERNETES_SERVICE_HOST`/`_PORT`, the mounted
   * token (re-read when it changes, as it is rotated), CA and namespace.
   * @param opts paths of the mounted files
   * @returns the config
   * @throws {KubeConfigError} outside a cluster (variables unset) or when the token file is missing
   */
  static inCluster(opts: InClusterOptions = {}): KubeConfig {
    const host = Deno.env.get("KUBERNETES_SERVICE_HOST");
    const port = Deno.env.get("KUBERNETES_SERVICE_PORT");
    if (!host || !port) {
      throw new KubeConfigError(
        "Cannot load in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set",
      );
    }
    const tokenPath = opts.tokenPath ?? `${SA_DIR}/token`;
    try {
      Deno.statSync(tokenPath);
    } catch (cause) {
      throw new KubeConfigError(
        `Cannot load in-cluster config: cannot read token file ${tokenPath}: ${
          errorMessage(cause)
        }`,
        { path: tokenPath, cause },
      );
    }
    const caData = readOptional(opts.caPath ?? `${SA_DIR}/ca.crt`);
    const namespace = readOptional(opts.namespacePath ?? `${SA_DIR}/namespace`)
      ?.trim();
    const hostPart = host.includes(":") ? `[${host}]` : host;
    return new KubeConfig({
      server: `https://${hostPart}:${port}`,
      namespace,
      tls: { caData },
      auth: { tokenFile: tokenPath },
    });
  }

  /**
   * The first config that applies (clientcmd's deferred loading): the files
   * of `KUBECONFIG` when it is set (naming no file, as `":"`, is an error),
   * else `~/.kube/config` when it exists, else the in-cluster config.
   * @returns the config
   * @throws {KubeConfigError} when none applies, or the one that applies is broken
   */
  static load(): Promise<KubeConfig> {
    try {
      if (Deno.env.get("KUBECONFIG")) {
        return Promise.resolve(KubeConfig.fromFile());
      }
      const home = homeConfig();
      if (home !== undefined && exists(home)) {
        return Promise.resolve(KubeConfig.fromFile(home));
      }
      if (Deno.env.get("KUBERNETES_SERVICE_HOST")) {
        return Promise.resolve(KubeConfig.inCluster());
      }
    } catch (err) {
      return Promise.reject(err);
    }
    return Promise.reject(
      new KubeConfigError(
        "Cannot find a Kubernetes config: KUBECONFIG is unset, ~/.kube/config does not exist and KUBERNETES_SERVICE_HOST is unset",
      ),
    );
  }
}

// ---- files ----

function defaultPaths(): string[] {
  const env = Deno.env.get("KUBECONFIG");
  if (env) {
    const sep = Deno.build.os === "windows" ? ";" : ":";
    const list = [...new Set(env.split(sep).filter((p) => p !== ""))];
    if (list.length > 0) return list;
    // clientcmd takes a set KUBECONFIG as the whole list even when it names
    // no file (and then ends at in-cluster config or localhost:8080); using
    // ~/.kube/config instead would talk to a cluster the user did not name.
    throw new KubeConfigError(
      `Cannot load kubeconfig: KUBECONFIG is set to ${
        JSON.stringify(env)
      }, which names no file; name a kubeconfig file, or unset KUBECONFIG to use ~/.kube/config`,
    );
  }
  const home = homeConfig();
  if (home === undefined) {
    throw new KubeConfigError(
      "Cannot find a kubeconfig: KUBECONFIG and HOME are unset",
    );
  }
  return [home];
}

function homeConfig(): string | undefined {
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  return home ? `${home}/.kube/config` : undefined;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function readOptional(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** PEM text as is; base64 of PEM decoded; anything else rejected. */
function pem(data: unknown): string | undefined {
  if (data === undefined || data === null || data === "") return undefined;
  if (typeof data !== "string") {
    throw new KubeConfigError(
      `Cannot decode certificate data: expected a string, got ${show(data)}`,
    );
  }
  if (data.includes("-----BEGIN")) return data;
  let text: string;
  try {
    text = new TextDecoder().decode(
      Uint8Array.from(atob(data.replace(/\s+/g, "")), (c) => c.charCodeAt(0)),
    );
  } catch (cause) {
    throw new KubeConfigError(
      "Cannot decode certificate data: neither PEM nor base64",
      { cause },
    );
  }
  // Base64 of anything else would only fail at the first connection.
  if (!text.includes("-----BEGIN")) {
    throw new KubeConfigError(
      "Cannot decode certificate data: base64, but not of PEM text",
    );
  }
  return text;
}

/**
 * A copy of an impersonation setting, checked: a non-empty `user`, and
 * strings where strings belong. Throws a TypeError whose message continues
 * the caller's (`impersonate.groups[1] must be a string, got 3`).
 */
function checkImpersonation(value: unknown): ImpersonationConfig {
  const fail = (where: string, expected: string, got: unknown): never => {
    throw new TypeError(`${where} must be ${expected}, got ${show(got)}`);
  };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    fail("", "an object", value);
  }
  const v = value as Record<string, unknown>;
  if (typeof v.user !== "string" || v.user === "") {
    fail(".user", "a non-empty string (the user to act as)", v.user);
  }
  // Every value becomes a header value: a line break would forge headers.
  const text = (where: string, t: string): string =>
    /[\r\n\0]/.test(t)
      ? fail(where, "a string without line breaks or NUL", t)
      : t;
  text(".user", v.user as string);
  const out: ImpersonationConfig = { user: v.user as string };
  if (v.uid !== undefined && v.uid !== "") {
    if (typeof v.uid !== "string") fail(".uid", "a string", v.uid);
    out.uid = text(".uid", v.uid as string);
  }
  const strings = (where: string, list: unknown): string[] => {
    if (!Array.isArray(list)) fail(where, "an array of strings", list);
    return (list as unknown[]).map((g, i) =>
      typeof g === "string"
        ? text(`${where}[${i}]`, g)
        : fail(`${where}[${i}]`, "a string", g)
    );
  };
  if (v.groups !== undefined) {
    const groups = strings(".groups", v.groups);
    if (groups.length > 0) out.groups = groups;
  }
  if (v.extra !== undefined) {
    if (
      v.extra === null || typeof v.extra !== "object" || Array.isArray(v.extra)
    ) fail(".extra", "an object of string arrays", v.extra);
    const extra: Record<string, string[]> = {};
    for (const [key, values] of Object.entries(v.extra as object)) {
      text(".extra key", key);
      extra[key] = strings(`.extra[${JSON.stringify(key)}]`, values);
    }
    if (Object.keys(extra).length > 0) out.extra = extra;
  }
  return out;
}

/** clientcmd's `parseProxyURL` accepts these schemes and no other. */
const PROXY_SCHEMES = new Set(["http:", "https:", "socks5:"]);

function checkProxyUrl(value: unknown): void {
  if (typeof value !== "string") {
    throw new KubeConfigError(
      `Cannot use proxy-url ${show(value)}: expected a string`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new KubeConfigError(
      `Cannot use proxy-url "${redactUrl(value)}": not a URL`,
      { cause },
    );
  }
  if (!PROXY_SCHEMES.has(url.protocol)) {
    throw new KubeConfigError(
      `Cannot use proxy-url "${
        redactUrl(value)
      }": the scheme must be http, https or socks5`,
    );
  }
}

/** The URL with the password of its user info masked, for messages. */
function redactUrl(url: string): string {
  return url.replace(/^([a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, "$1:***@");
}

/**
 * `tls-server-name` asks for the certificate to be verified against another
 * name than the server URL's host. Deno's `fetch` verifies against the URL's
 * host and has no option for another name (`Deno.createHttpClient` has
 * none; its `tcp` proxy transport does not speak TLS), so only a name equal
 * to that host can be honoured; any other fails here rather than at the
 * first handshake with a certificate-name error that does not mention it.
 */
function checkTlsServerName(
  server: string,
  name: string,
  fail: (msg: string) => never,
): void {
  let host: string;
  try {
    host = new URL(server).hostname;
  } catch {
    return; // The server URL's own error is clearer; the constructor gives it.
  }
  if (host.replace(/^\[|\]$/g, "").toLowerCase() === name.toLowerCase()) return;
  const port = new URL(server).port;
  fail(
    `tls-server-name "${name}" is not supported: Deno verifies the server certificate against the server URL's host "${host}" and cannot use another name. ` +
      `Set server to https://${name}${
        port ? `:${port}` : ""
      } and make ${name} resolve to ${host} (e.g. an /etc/hosts entry), or use a server address the certificate names`,
  );
}

function resolve(file: RawFile, contextName?: string): KubeConfig {
  const fail = (msg: string): never => {
    throw new KubeConfigError(`Cannot use kubeconfig ${file.path}: ${msg}`, {
      path: file.path,
    });
  };
  const name = contextName ?? file.currentContext;
  if (!name) fail("current-context is not set and no context was given");
  const ctx = file.contexts.get(name!) ??
    fail(`context "${name}" does not exist`);
  if (!ctx.cluster) fail(`context "${name}" names no cluster`);
  const cluster = file.clusters.get(ctx.cluster!) ??
    fail(`cluster "${ctx.cluster}" of context "${name}" does not exist`);
  if (!cluster.server) fail(`cluster "${ctx.cluster}" has no server`);
  if (cluster.tlsServerName !== undefined) {
    checkTlsServerName(cluster.server!, cluster.tlsServerName, fail);
  }
  let user: RawUser = { auth: {} };
  if (ctx.user) {
    user = file.users.get(ctx.user) ??
      fail(`user "${ctx.user}" of context "${name}" does not exist`);
  }
  if (user.unsupported) {
    fail(
      `user "${ctx.user}" uses ${user.unsupported}, which kubecache does not support`,
    );
  }
  const read = (p: string | undefined, what: string) => {
    if (p === undefined) return undefined;
    try {
      return Deno.readTextFileSync(p);
    } catch (cause) {
      throw new KubeConfigError(
        `Cannot read ${what} ${p} of kubeconfig ${file.path}: ${
          errorMessage(cause)
        }`,
        { path: file.path, cause },
      );
    }
  };
  const decode = (data: string | undefined, what: string) => {
    try {
      return pem(data);
    } catch (cause) {
      throw new KubeConfigError(
        `Cannot decode ${what} of kubeconfig ${file.path}: not base64 of PEM text`,
        { path: file.path, cause },
      );
    }
  };
  try {
    return new KubeConfig({
      server: cluster.server!,
      namespace: ctx.namespace,
      contextName: name,
      proxyUrl: cluster.proxyUrl,
      userName: ctx.user,
      tls: {
        caData: decode(cluster.caData, "certificate-authority-data") ??
          read(cluster.caFile, "certificate-authority"),
        certData: decode(user.certData, "client-certificate-data") ??
          read(user.certFile, "client-certificate"),
        keyData: decode(user.keyData, "client-key-data") ??
          read(user.keyFile, "client-key"),
        // Files re-read on change only as a pair (data fields win).
        ...(!user.certData && !user.keyData &&
            user.certFile !== undefined && user.keyFile !== undefined
          ? { certFile: user.certFile, keyFile: user.keyFile }
          : {}),
        insecureSkipTlsVerify: cluster.insecure,
      },
      auth: user.auth,
      impersonate: user.impersonate,
    });
  } catch (err) {
    if (err instanceof KubeConfigError && err.path === undefined) {
      throw new KubeConfigError(
        `Cannot use context "${name}" of kubeconfig ${file.path}: ${err.message}`,
        { path: file.path, cause: err },
      );
    }
    throw err;
  }
}
