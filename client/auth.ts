/**
 * Credentials for requests: bearer tokens (static, or from a file re-read
 * when it changes), basic auth, client certificates and exec credential
 * plugins (client-go `plugin/pkg/client/auth/exec`,
 * `client.authentication.k8s.io/v1` and `v1beta1`), and the
 * `Deno.HttpClient` carrying the CA and client certificate.
 *
 * Tokens never appear in error messages.
 *
 * @module
 */

import { type Clock, realClock } from "../cache/clock.ts";
import type { ExecConfig, KubeConfig, TlsConfig } from "./config.ts";

/** What one request authenticates with. */
export interface Credentials {
  /** Value of the `Authorization` header, if any. */
  authorization?: string;
  /** A client certificate to present (from an exec plugin); overrides the config's. */
  clientCert?: { cert: string; key: string };
}

/**
 * Produces the credentials of each request (client-go's auth round
 * trippers). `KubeClient` asks before every request and reports a 401.
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

/** Options of {@link newAuthenticator}. */
export interface AuthenticatorOptions {
  /** Clock for exec credential expiry. Default the real clock. */
  clock?: Clock;
}

/**
 * The authenticator a config asks for: exec plugin, token file, token,
 * basic auth, or none (certificates travel in the HTTP client).
 * @param config the connection settings
 * @param opts `clock` for credential expiry
 * @returns the authenticator
 */
export function newAuthenticator(
  config: KubeConfig,
  opts: AuthenticatorOptions = {},
): Authenticator {
  const { auth } = config;
  if (auth.exec) {
    return new ExecAuthenticator(auth.exec, {
      clock: opts.clock,
      cluster: { server: config.server, tls: config.tls },
    });
  }
  if (auth.tokenFile) return new TokenFileAuthenticator(auth.tokenFile);
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
 * A bearer token read from a file and re-read whenever the file's
 * modification time or size changes (projected service account tokens are
 * rotated in place).
 */
export class TokenFileAuthenticator implements Authenticator {
  #path: string;
  #token: string | undefined;
  #stamp = "";

  /**
   * Read tokens from `path`.
   * @param path the token file
   */
  constructor(path: string) {
    this.#path = path;
  }

  /**
   * The current token as an `Authorization` header.
   * @returns the credentials
   * @throws {AuthError} when the file cannot be read or is empty
   */
  async credentials(): Promise<Credentials> {
    let stamp: string;
    try {
      const info = await Deno.stat(this.#path);
      stamp = `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
      if (stamp !== this.#stamp || this.#token === undefined) {
        this.#token = (await Deno.readTextFile(this.#path)).trim();
        this.#stamp = stamp;
      }
    } catch (cause) {
      throw new AuthError(`Cannot read token file ${this.#path}`, { cause });
    }
    if (this.#token === "") {
      throw new AuthError(`Cannot use token file ${this.#path}: it is empty`);
    }
    return { authorization: `Bearer ${this.#token}` };
  }

  /** Forget the token so the next request reads the file again. */
  unauthorized(): void {
    this.#token = undefined;
  }
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
 */
export class ExecAuthenticator implements Authenticator {
  #exec: ExecConfig;
  #clock: Clock;
  #cluster: { server: string; tls: TlsConfig } | undefined;
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
    opts: { clock?: Clock; cluster?: { server: string; tls: TlsConfig } } = {},
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

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Create the `Deno.HttpClient` for a config: its CA (added to the system
 * roots) and client certificate, or the certificate an exec plugin issued.
 * @param tls the TLS settings
 * @param clientCert a client certificate overriding the config's
 * @returns a new client; the caller closes it
 */
export function createHttpClient(
  tls: TlsConfig,
  clientCert?: { cert: string; key: string },
): Deno.HttpClient {
  const cert = clientCert ??
    (tls.certData && tls.keyData
      ? { cert: tls.certData, key: tls.keyData }
      : undefined);
  const caCerts = tls.caData ? [tls.caData] : undefined;
  return cert
    ? Deno.createHttpClient({ caCerts, cert: cert.cert, key: cert.key })
    : Deno.createHttpClient({ caCerts });
}
