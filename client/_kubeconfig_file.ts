/**
 * Reading kubeconfig files: YAML to the raw clusters, users and contexts of
 * one file (field paths named in errors), and merging several files as
 * kubectl merges a `KUBECONFIG` list into what `config.ts` resolves into
 * a `KubeConfig` (the types of its sections are there, `KubeConfigError`
 * in `api/errors.ts`).
 *
 * @module
 */

import { parseYaml, YamlError } from "./_yaml.ts";
import { errorMessage } from "../api/validate.ts";
import { KubeConfigError } from "../api/errors.ts";
// Type-only: erased when this module loads, so config.ts, which loads it,
// keeps its public types without an import ring.
import type {
  AuthConfig,
  ExecConfig,
  ImpersonationConfig,
} from "./auth_info.ts";

export interface RawCluster {
  server?: string;
  proxyUrl?: string;
  tlsServerName?: string;
  caData?: string;
  caFile?: string;
  insecure: boolean;
}
export interface RawUser {
  auth: AuthConfig;
  certData?: string;
  certFile?: string;
  keyData?: string;
  keyFile?: string;
  impersonate?: ImpersonationConfig;
  unsupported?: string;
}
export interface RawContext {
  cluster?: string;
  user?: string;
  namespace?: string;
}
export interface RawFile {
  path: string;
  clusters: Map<string, RawCluster>;
  users: Map<string, RawUser>;
  contexts: Map<string, RawContext>;
  currentContext?: string;
}

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i === -1 ? "." : i === 0 ? "/" : path.slice(0, i);
}

export function resolvePath(
  base: string,
  p: string | undefined,
): string | undefined {
  if (p === undefined || p === "" || p.startsWith("/")) return p || undefined;
  if (p.startsWith("~/")) {
    const home = Deno.env.get("HOME");
    return home ? `${home}${p.slice(1)}` : p;
  }
  return `${dirOf(base)}/${p}`;
}

/** Reads typed fields out of parsed YAML, naming the field path on errors. */
class Fields {
  constructor(
    readonly file: string,
    readonly where: string,
    readonly obj: Record<string, unknown>,
  ) {}

  static of(file: string, where: string, value: unknown): Fields {
    if (value === null || value === undefined) {
      return new Fields(file, where, {});
    }
    if (typeof value !== "object" || Array.isArray(value)) {
      throw new KubeConfigError(
        `Cannot load kubeconfig ${file}: ${where} must be a mapping`,
        { path: file },
      );
    }
    return new Fields(file, where, value as Record<string, unknown>);
  }

  #fail(key: string, expected: string): never {
    throw new KubeConfigError(
      `Cannot load kubeconfig ${this.file}: ${this.where}.${key} must be ${expected}`,
      { path: this.file },
    );
  }

  str(key: string): string | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    // Plain scalars like 1234 or true are still text to kubeconfig fields.
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    if (typeof v !== "string") this.#fail(key, "a string");
    return v;
  }

  bool(key: string): boolean {
    const v = this.obj[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== "boolean") this.#fail(key, "true or false");
    return v;
  }

  /** A list of strings (plain scalars taken as text). */
  strings(key: string): string[] {
    return this.list(key).map((v, i) => {
      if (typeof v === "string") return v;
      if (typeof v === "number" || typeof v === "boolean") return String(v);
      throw new KubeConfigError(
        `Cannot load kubeconfig ${this.file}: ${this.where}.${key}[${i}] must be a string`,
        { path: this.file },
      );
    });
  }

  list(key: string): unknown[] {
    const v = this.obj[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.#fail(key, "a list");
    return v;
  }

  sub(key: string): Fields {
    return Fields.of(this.file, `${this.where}.${key}`, this.obj[key]);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }
}

export function parseFile(text: string, path: string): RawFile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (cause) {
    const detail = cause instanceof YamlError
      ? cause.message
      : errorMessage(cause);
    throw new KubeConfigError(`Cannot parse kubeconfig ${path}: ${detail}`, {
      path,
      cause,
    });
  }
  const root = Fields.of(path, "kubeconfig", doc);
  const file: RawFile = {
    path,
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    currentContext: root.str("current-context") || undefined,
  };
  const named = (
    key: string,
    inner: string,
    add: (name: string, f: Fields) => void,
  ) => {
    root.list(key).forEach((item, i) => {
      const entry = Fields.of(path, `${key}[${i}]`, item);
      const name = entry.str("name");
      if (!name) {
        throw new KubeConfigError(
          `Cannot load kubeconfig ${path}: ${key}[${i}].name must be set`,
          { path },
        );
      }
      add(name, entry.sub(inner));
    });
  };
  named("clusters", "cluster", (name, c) => {
    if (file.clusters.has(name)) return;
    file.clusters.set(name, {
      server: c.str("server"),
      proxyUrl: c.str("proxy-url") || undefined,
      tlsServerName: c.str("tls-server-name") || undefined,
      caData: c.str("certificate-authority-data"),
      caFile: resolvePath(path, c.str("certificate-authority")),
      insecure: c.bool("insecure-skip-tls-verify"),
    });
  });
  named("users", "user", (name, u) => {
    if (file.users.has(name)) return;
    file.users.set(name, parseUser(path, u));
  });
  named("contexts", "context", (name, c) => {
    if (file.contexts.has(name)) return;
    file.contexts.set(name, {
      cluster: c.str("cluster"),
      user: c.str("user"),
      namespace: c.str("namespace"),
    });
  });
  return file;
}

function parseUser(path: string, u: Fields): RawUser {
  const user: RawUser = {
    auth: {
      token: u.str("token") || undefined,
      tokenFile: resolvePath(path, u.str("tokenFile")),
      username: u.str("username"),
      password: u.str("password"),
    },
    certData: u.str("client-certificate-data"),
    certFile: resolvePath(path, u.str("client-certificate")),
    keyData: u.str("client-key-data"),
    keyFile: resolvePath(path, u.str("client-key")),
  };
  if (u.has("auth-provider")) {
    const name = u.sub("auth-provider").str("name") ?? "unknown";
    user.unsupported =
      `the auth-provider "${name}" (removed from kubectl; use an exec plugin such as kubelogin or gke-gcloud-auth-plugin)`;
  }
  const impersonate = parseImpersonation(path, u);
  if (impersonate !== undefined) user.impersonate = impersonate;
  if (u.has("exec")) user.auth.exec = parseExec(path, u.sub("exec"));
  return user;
}

/** clientcmd's `as`, `as-uid`, `as-groups` and `as-user-extra`. */
function parseImpersonation(
  path: string,
  u: Fields,
): ImpersonationConfig | undefined {
  const user = u.str("as") || undefined;
  const uid = u.str("as-uid") || undefined;
  const groups = u.strings("as-groups");
  const extraFields = u.sub("as-user-extra");
  const extra: Record<string, string[]> = {};
  for (const key of Object.keys(extraFields.obj)) {
    const value = extraFields.obj[key];
    // A single value is accepted as a list of one (hand-written files).
    extra[key] = typeof value === "string" ? [value] : extraFields.strings(key);
  }
  const hasExtra = Object.keys(extra).length > 0;
  if (user === undefined) {
    if (uid !== undefined || groups.length > 0 || hasExtra) {
      // kubectl refuses the same: the server needs a user to impersonate.
      throw new KubeConfigError(
        `Cannot load kubeconfig ${path}: ${u.where} sets as-uid, as-groups or as-user-extra without as (the user to impersonate)`,
        { path },
      );
    }
    return undefined;
  }
  return {
    user,
    ...(uid !== undefined ? { uid } : {}),
    ...(groups.length > 0 ? { groups } : {}),
    ...(hasExtra ? { extra } : {}),
  };
}

function parseExec(path: string, e: Fields): ExecConfig {
  const command = e.str("command");
  if (!command) {
    throw new KubeConfigError(
      `Cannot load kubeconfig ${path}: ${e.where}.command must be set`,
      { path },
    );
  }
  const args = e.list("args").map((a, i) => {
    if (typeof a === "string") return a;
    if (typeof a === "number" || typeof a === "boolean") return String(a);
    throw new KubeConfigError(
      `Cannot load kubeconfig ${path}: ${e.where}.args[${i}] must be a string`,
      { path },
    );
  });
  const env = e.list("env").map((item, i) => {
    const f = Fields.of(path, `${e.where}.env[${i}]`, item);
    return { name: f.str("name") ?? "", value: f.str("value") ?? "" };
  });
  const apiVersion = e.str("apiVersion") ?? "";
  if (
    apiVersion !== "client.authentication.k8s.io/v1" &&
    apiVersion !== "client.authentication.k8s.io/v1beta1"
  ) {
    throw new KubeConfigError(
      `Cannot load kubeconfig ${path}: ${e.where}.apiVersion must be client.authentication.k8s.io/v1 or v1beta1, got "${apiVersion}"`,
      { path },
    );
  }
  return {
    // Only a command given as a relative path is resolved (clientcmd does the same).
    command: command.includes("/") ? resolvePath(path, command)! : command,
    args,
    env,
    apiVersion,
    installHint: e.str("installHint"),
    provideClusterInfo: e.bool("provideClusterInfo"),
    interactiveMode: e.str("interactiveMode"),
  };
}

/** Merge files in order: the first to set a name or current-context wins. */
export function mergeFiles(files: RawFile[]): RawFile {
  const merged: RawFile = {
    path: files.map((f) => f.path).join(", "),
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const f of files) {
    merged.currentContext ??= f.currentContext;
    for (const [k, v] of f.clusters) {
      if (!merged.clusters.has(k)) merged.clusters.set(k, v);
    }
    for (const [k, v] of f.users) {
      if (!merged.users.has(k)) merged.users.set(k, v);
    }
    for (const [k, v] of f.contexts) {
      if (!merged.contexts.has(k)) merged.contexts.set(k, v);
    }
  }
  return merged;
}
