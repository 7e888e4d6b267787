/**
 * Credentials for requests: bearer tokens (static, or from a file re-read
 * when it changes), basic auth, client certificates and exec credential
 * plugins (client-go `plugin/pkg/client/auth/exec`,
 * `client.authentication.k8s.io/v1` and `v1beta1`). The CA and client
 * certificate travel in the `Deno.HttpClient` of `transport.ts`.
 *
 * Tokens never appear in error messages.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import type { ExecConfig } from "./auth_info.ts";
import type { KubeConfig, TlsConfig } from "./config.ts";
import { errorMessage } from "../api/validate.ts";

/**
 * What one request authenticates with.
 *
 * @example What an authenticator hands the client
 * ```ts
 * import type { Credentials } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const bearer: Credentials = { authorization: "Bearer abc" };
 * assert.match(bearer.authorization!, /^Bearer /);
 * ```
 */
export interface Credentials {
  /** Value of the `Authorization` header, if any. */
  authorization?: string;
  /** A client certificate to present (from an exec plugin); overrides the config's. */
  clientCert?: { cert: string; key: string };
}

/**
 * Produces the credentials of each request (client-go's auth round
 * trippers). `KubeClient` asks before every request and reports a 401.
 *
 * @example A fixed header of your own
 * ```ts
 * import { type Authenticator, KubeClient, KubeConfig, Namespaces } from "@kubecache/core/client";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start({ token: "from-vault" });
 * let unauthorized = 0;
 * const authenticator: Authenticator = {
 *   credentials: () => Promise.resolve({ authorization: "Bearer from-vault" }),
 *   unauthorized: () => void unauthorized++,
 * };
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }), { authenticator });
 * assert.equal((await client.list(Namespaces)).items.length, 4);
 * assert.equal(unauthorized, 0);
 * ```
 */
export interface Authenticator {
  /** Credentials for the next request; may run a plugin or read a file. */
  credentials(signal?: AbortSignal): Promise<Credentials>;
  /** The server answered 401: drop cached credentials so the next request gets fresh ones. */
  unauthorized(): void;
}

/**
 * An exec plugin or token source that failed. Never contains the token or
 * the plugin's standard output.
 *
 * @example An exec plugin kubecache refuses to run
 * ```ts
 * import { AuthError, ExecAuthenticator } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const plugin = new ExecAuthenticator({
 *   command: "kubelogin",
 *   args: [],
 *   env: [],
 *   apiVersion: "client.authentication.k8s.io/v1",
 *   provideClusterInfo: false,
 *   interactiveMode: "Always", // needs a terminal, which a plugin never gets
 * });
 * await assert.rejects(plugin.credentials(), AuthError);
 * ```
 */
export class AuthError extends Error {
  /**
   * Create an error.
   * @param message what failed
   * @param opts the underlying `cause`
   */
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(
      message,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.name = "AuthError";
  }
}

/**
 * Options of {@link newAuthenticator}.
 *
 * @example Warnings to your own log
 * ```ts
 * import { type AuthenticatorOptions, KubeConfig, newAuthenticator } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const warnings: string[] = [];
 * const opts: AuthenticatorOptions = { onWarning: (m) => void warnings.push(m) };
 * const auth = newAuthenticator(KubeConfig.fromOptions({ server: "https://10.0.0.1", token: "t" }), opts);
 * assert.deepEqual(await auth.credentials(), { authorization: "Bearer t" });
 * assert.deepEqual(warnings, []);
 * ```
 */
export interface AuthenticatorOptions {
  /** Clock for exec credential expiry. Default the real clock. */
  clock?: Clock;
  /** See {@link TokenFileOptions.onWarning}. Default `console.warn`. */
  onWarning?: (message: string) => void;
}

/**
 * The authenticator a config asks for: exec plugin, token file, token,
 * basic auth, or none (certificates travel in the HTTP client).
 * @param config the connection settings
 * @param opts `clock` for credential expiry, `onWarning` for a token file
 * that cannot be re-read
 * @returns the authenticator
 *
 * @example The credentials a config sends
 * ```ts
 * import { KubeConfig, newAuthenticator } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const config = KubeConfig.fromOptions({ server: "https://10.0.0.1:6443", token: "abc" });
 * const auth = newAuthenticator(config);
 * assert.deepEqual(await auth.credentials(), { authorization: "Bearer abc" });
 * ```
 */
export function newAuthenticator(
  config: KubeConfig,
  opts: AuthenticatorOptions = {},
): Authenticator {
  const { auth } = config;
  if (auth.exec) {
    return new ExecAuthenticator(auth.exec, {
      clock: opts.clock,
      cluster: {
        server: config.server,
        tls: config.tls,
        proxyUrl: config.proxyUrl,
      },
    });
  }
  if (auth.tokenFile) {
    return new TokenFileAuthenticator(auth.tokenFile, {
      onWarning: opts.onWarning,
    });
  }
  if (auth.token) return fixed({ authorization: `Bearer ${auth.token}` });
  if (auth.username !== undefined || auth.password !== undefined) {
    const basic = btoa(
      String.fromCharCode(
        ...new TextEncoder().encode(
          `${auth.username ?? ""}:${auth.password ?? ""}`,
        ),
      ),
    );
    return fixed({ authorization: `Basic ${basic}` });
  }
  return fixed({});
}

function fixed(creds: Credentials): Authenticator {
  return {
    credentials: () => Promise.resolve(creds),
    unauthorized: () => {},
  };
}

/**
 * Options of {@link TokenFileAuthenticator}.
 *
 * @example Hear when a rotated token cannot be read
 * ```ts
 * import { TokenFileAuthenticator, type TokenFileOptions } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "token-1\n");
 * const warnings: string[] = [];
 * const opts: TokenFileOptions = { onWarning: (m) => void warnings.push(m) };
 * const auth = new TokenFileAuthenticator(path, opts);
 * assert.deepEqual(await auth.credentials(), { authorization: "Bearer token-1" });
 * await Deno.remove(path);
 * ```
 */
export interface TokenFileOptions {
  /**
   * Called once when the file cannot be re-read and the last token read is
   * used instead (again only after a successful read). Default
   * `console.warn`. Never given the token.
   */
  onWarning?: (message: string) => void;
}

/**
 * A bearer token read from a file and re-read whenever the file's
 * modification time, size or inode changes (projected service account
 * tokens are rotated by replacing the file), or after a 401.
 *
 * Like client-go's cached file token source, a file that cannot be re-read
 * (removed, unreadable, or blank in the middle of a rotation) does not end
 * the session: the last token read is used, the file is read again at its
 * next change or after a 401, and `onWarning` is told once. Only when no
 * token was ever read does the request fail.
 *
 * @example A token rotated by replacing the file
 * ```ts
 * import { TokenFileAuthenticator } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "first\n");
 * const warnings: string[] = [];
 * const auth = new TokenFileAuthenticator(path, { onWarning: (m) => warnings.push(m) });
 * assert.equal((await auth.credentials()).authorization, "Bearer first");
 * await Deno.remove(path); // mid-rotation: the last token is kept
 * assert.equal((await auth.credentials()).authorization, "Bearer first");
 * await Deno.writeTextFile(path, "second\n");
 * assert.equal((await auth.credentials()).authorization, "Bearer second");
 * assert.equal(warnings.length, 1);
 * await Deno.remove(path);
 * ```
 */
export class TokenFileAuthenticator implements Authenticator {
  #path: string;
  /** The last token read successfully. */
  #token: string | undefined;
  /** Identity of the file version last read (or last found unusable). */
  #stamp = "";
  /** A 401 asked for the file to be read again even if unchanged. */
  #reread = false;
  #warned = false;
  #onWarning: (message: string) => void;

  /**
   * Read tokens from `path`.
   * @param path the token file
   * @param opts `onWarning` for a file that cannot be re-read
   */
  constructor(path: string, opts: TokenFileOptions = {}) {
    this.#path = path;
    this.#onWarning = opts.onWarning ?? ((m) => console.warn(m));
  }

  /**
   * The current token as an `Authorization` header.
   * @returns the credentials
   * @throws {AuthError} when the file cannot be read or is empty and no
   * token was read before
   */
  async credentials(): Promise<Credentials> {
    let stamp: string | undefined;
    let failure: AuthError;
    try {
      const info = await Deno.stat(this.#path);
      stamp = `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
      if (
        stamp === this.#stamp && !this.#reread && this.#token !== undefined
      ) {
        return { authorization: `Bearer ${this.#token}` };
      }
      const token = (await Deno.readTextFile(this.#path)).trim();
      if (token !== "") {
        this.#token = token;
        this.#stamp = stamp;
        this.#reread = false;
        this.#warned = false;
        return { authorization: `Bearer ${token}` };
      }
      failure = new AuthError(
        `Cannot use token file ${this.#path}: it is empty`,
      );
    } catch (cause) {
      failure = new AuthError(
        `Cannot read token file ${this.#path}: ${errorMessage(cause)}`,
        { cause },
      );
    }
    if (this.#token === undefined) throw failure;
    // Read this version again only once it changes, or after a 401.
    if (stamp !== undefined) this.#stamp = stamp;
    this.#reread = false;
    if (!this.#warned) {
      this.#warned = true;
      this.#onWarning(
        `${failure.message}; using the token read before until the file changes`,
      );
    }
    return { authorization: `Bearer ${this.#token}` };
  }

  /** Read the file again before the next request, even if it looks unchanged. */
  unauthorized(): void {
    this.#reread = true;
  }
}

/**
 * The cluster an exec plugin is told about with `provideClusterInfo`.
 *
 * @example What a plugin is told with provideClusterInfo
 * ```ts
 * import type { ExecClusterInfo } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const cluster: ExecClusterInfo = { server: "https://10.0.0.1:6443", tls: { insecureSkipTlsVerify: false } };
 * assert.equal(cluster.tls.insecureSkipTlsVerify, false);
 * ```
 */
export interface ExecClusterInfo {
  /** API server URL. */
  server: string;
  /** TLS settings (the CA is passed base64-encoded). */
  tls: TlsConfig;
  /** The cluster's `proxy-url`, if any. */
  proxyUrl?: string;
}

interface ExecResult {
  creds: Credentials;
  expiresAt: number;
}

/**
 * Runs an exec credential plugin (client-go `exec.Authenticator`): passes
 * `KUBERNETES_EXEC_INFO` (interactive false; the cluster when
 * `provideClusterInfo`), reads an `ExecCredential` with a token or a client
 * certificate from standard output, caches it until its
 * `expirationTimestamp` (forever without one), and runs the plugin again
 * after a 401. Concurrent requests share one run.
 *
 * @example Run a plugin that prints an ExecCredential
 * ```ts
 * import { ExecAuthenticator } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const credential = {
 *   apiVersion: "client.authentication.k8s.io/v1",
 *   kind: "ExecCredential",
 *   status: { token: "from-plugin" },
 * };
 * const plugin = new ExecAuthenticator({
 *   command: Deno.execPath(), // a plugin is any program: here, deno printing the credential
 *   args: ["eval", `console.log(JSON.stringify(${JSON.stringify(credential)}))`],
 *   env: [],
 *   apiVersion: "client.authentication.k8s.io/v1",
 *   provideClusterInfo: false,
 * });
 * assert.deepEqual(await plugin.credentials(), { authorization: "Bearer from-plugin" });
 * await plugin.credentials(); // cached: no expirationTimestamp, so no second run
 * assert.equal(plugin.runs, 1);
 * ```
 */
export class ExecAuthenticator implements Authenticator {
  #exec: ExecConfig;
  #clock: Clock;
  #cluster: ExecClusterInfo | undefined;
  #cached: ExecResult | undefined;
  #running: Promise<ExecResult> | undefined;
  /** How many times the plugin has run (for tests and diagnostics). */
  runs = 0;

  /**
   * Configure a plugin.
   * @param exec the kubeconfig's exec section
   * @param opts `clock` for expiry, `cluster` passed with provideClusterInfo
   */
  constructor(
    exec: ExecConfig,
    opts: { clock?: Clock; cluster?: ExecClusterInfo } = {},
  ) {
    this.#exec = exec;
    this.#clock = opts.clock ?? realClock;
    this.#cluster = opts.cluster;
  }

  /**
   * The cached credential, or a fresh one from the plugin when there is
   * none or it has expired.
   * @returns the credentials
   * @throws {AuthError} when the plugin cannot run, fails, or prints no valid ExecCredential
   */
  async credentials(): Promise<Credentials> {
    const c = this.#cached;
    if (c && this.#clock.now() < c.expiresAt) return c.creds;
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    const result = await this.#running;
    this.#cached = result;
    return result.creds;
  }

  /** Drop the cached credential: the next request runs the plugin again. */
  unauthorized(): void {
    this.#cached = undefined;
  }

  async #run(): Promise<ExecResult> {
    const exec = this.#exec;
    if (exec.interactiveMode === "Always") {
      // client-go refuses too when stdin is not a terminal; kubecache never gives one.
      throw new AuthError(
        `Cannot run exec credential plugin "${exec.command}": its interactiveMode is Always, and kubecache never gives a plugin a terminal`,
      );
    }
    this.runs++;
    const info = {
      apiVersion: exec.apiVersion,
      kind: "ExecCredential",
      spec: {
        interactive: false,
        ...(exec.provideClusterInfo && this.#cluster
          ? {
            cluster: {
              server: this.#cluster.server,
              "certificate-authority-data": this.#cluster.tls.caData
                ? btoa(this.#cluster.tls.caData)
                : undefined,
              "insecure-skip-tls-verify":
                this.#cluster.tls.insecureSkipTlsVerify,
              "proxy-url": this.#cluster.proxyUrl,
            },
          }
          : {}),
      },
    };
    const env: Record<string, string> = {
      KUBERNETES_EXEC_INFO: JSON.stringify(info),
    };
    for (const { name, value } of exec.env) env[name] = value;
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command(exec.command, {
        args: exec.args,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (cause) {
      const hint = exec.installHint ? `\n${exec.installHint}` : "";
      throw new AuthError(
        `Cannot run exec credential plugin "${exec.command}": ${
          cause instanceof Deno.errors.NotFound
            ? "command not found"
            : errorMessage(cause)
        }${hint}`,
        { cause },
      );
    }
    if (!out.success) {
      const stderr = new TextDecoder().decode(out.stderr).trim().slice(0, 500);
      throw new AuthError(
        `Exec credential plugin "${exec.command}" exited with code ${out.code}${
          stderr ? `: ${stderr}` : ""
        }`,
      );
    }
    return this.#parse(new TextDecoder().decode(out.stdout));
  }

  #parse(stdout: string): ExecResult {
    const cmd = this.#exec.command;
    let cred: {
      apiVersion?: unknown;
      kind?: unknown;
      status?: {
        token?: unknown;
        clientCertificateData?: unknown;
        clientKeyData?: unknown;
        expirationTimestamp?: unknown;
      };
    };
    try {
      cred = JSON.parse(stdout);
    } catch {
      // Do not echo stdout: it may hold a token.
      throw new AuthError(
        `Cannot decode the output of exec credential plugin "${cmd}": not JSON`,
      );
    }
    if (
      cred?.kind !== "ExecCredential" ||
      cred.apiVersion !== this.#exec.apiVersion
    ) {
      throw new AuthError(
        `Cannot use the output of exec credential plugin "${cmd}": expected kind ExecCredential and apiVersion ${this.#exec.apiVersion}, got kind ${
          JSON.stringify(cred?.kind)
        } and apiVersion ${JSON.stringify(cred?.apiVersion)}`,
      );
    }
    const s = cred.status ?? {};
    const creds: Credentials = {};
    if (typeof s.token === "string" && s.token !== "") {
      creds.authorization = `Bearer ${s.token}`;
    }
    const hasCert = typeof s.clientCertificateData === "string" &&
      s.clientCertificateData !== "";
    const hasKey = typeof s.clientKeyData === "string" &&
      s.clientKeyData !== "";
    if (hasCert !== hasKey) {
      throw new AuthError(
        `Cannot use the output of exec credential plugin "${cmd}": status.clientCertificateData and status.clientKeyData must be set together`,
      );
    }
    if (hasCert) {
      creds.clientCert = {
        cert: s.clientCertificateData as string,
        key: s.clientKeyData as string,
      };
    }
    if (!creds.authorization && !creds.clientCert) {
      throw new AuthError(
        `Cannot use the output of exec credential plugin "${cmd}": status has neither a token nor a client certificate`,
      );
    }
    let expiresAt = Infinity;
    if (s.expirationTimestamp !== undefined && s.expirationTimestamp !== null) {
      expiresAt = typeof s.expirationTimestamp === "string"
        ? Date.parse(s.expirationTimestamp)
        : NaN;
      if (Number.isNaN(expiresAt)) {
        throw new AuthError(
          `Cannot use the output of exec credential plugin "${cmd}": status.expirationTimestamp is not an RFC 3339 time: ${
            JSON.stringify(s.expirationTimestamp)
          }`,
        );
      }
    }
    return { creds, expiresAt };
  }
}
