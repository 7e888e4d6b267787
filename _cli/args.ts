/**
 * Command-line parsing of `cli.ts`: hand-written, no dependencies, flags
 * spelled as kubectl spells them.
 *
 * @module
 */

import { levenshtein } from "./resolve.ts";

/** Output formats of `watch`, as kubectl's `-o`. */
export type OutputFormat = "table" | "wide" | "json" | "name";

const FORMATS: readonly OutputFormat[] = ["table", "wide", "json", "name"];

/** The parsed arguments of `watch <resource>`. */
export interface WatchArgs {
  /** The command. */
  command: "watch";
  /** Resource name as typed: plural, singular, short name or `name.group`. */
  resource: string;
  /** `-n`: namespace to watch; unset means the context's (or `default`). */
  namespace?: string;
  /** `-A`: watch every namespace. */
  allNamespaces: boolean;
  /** `-l`: label selector. */
  labelSelector?: string;
  /** `--field-selector`. */
  fieldSelector?: string;
  /** `-o`: output format. */
  output: OutputFormat;
  /** `--kubeconfig`: kubeconfig file path. */
  kubeconfig?: string;
  /** `--context`: kubeconfig context name. */
  context?: string;
  /** `--demo`: watch the embedded demo cluster instead of a real one. */
  demo: boolean;
  /** `--port` (with `--demo`): the demo cluster's port on 127.0.0.1; default a free one. */
  port?: number;
  /**
   * `--demo-kubeconfig` (with `--demo`): a file to write a kubeconfig of the
   * demo cluster to, for other programs (kubectl, a second replica).
   */
  demoKubeconfig?: string;
  /** `-s`, `--server`: API server URL, overriding the kubeconfig's (kubectl's flag). */
  server?: string;
  /** `--token`: bearer token, overriding the kubeconfig user's credentials. */
  token?: string;
  /** `--certificate-authority`: path of a PEM CA bundle to verify the server with. */
  certificateAuthority?: string;
  /** `--insecure-skip-tls-verify`: do not verify the server's certificate. */
  insecureSkipTlsVerify?: boolean;
  /** `--as`: the user to impersonate (kubectl's flag). */
  as?: string;
  /** `--as-uid`: the uid to impersonate. */
  asUid?: string;
  /** `--as-group`, repeatable: the groups to impersonate. */
  asGroups?: string[];
}

/** The command-line fields that choose the cluster and credentials. */
export type ConnectionArgs = Pick<
  WatchArgs,
  | "kubeconfig"
  | "context"
  | "server"
  | "token"
  | "certificateAuthority"
  | "insecureSkipTlsVerify"
  | "as"
  | "asUid"
  | "asGroups"
>;

/** The parsed arguments of `gen`: where the OpenAPI comes from and where types go. */
export interface GenArgs extends ConnectionArgs, Pick<WatchArgs, "demo"> {
  /** The command. */
  command: "gen";
  /** `--from-cluster`: read the cluster's `/openapi/v3`. */
  fromCluster: boolean;
  /** `--crd FILE...`: CustomResourceDefinition manifests (YAML or JSON). */
  crd: string[];
  /** `--openapi FILE`: a saved OpenAPI v3 document. */
  openapi?: string;
  /** `--group`: only this API group (`core` for the core group). */
  group?: string;
  /** `--kind`: only this kind. */
  kind?: string;
  /** `--out`: the folder written. */
  out: string;
  /** `--import-from`: where the modules import kubecache from. */
  importFrom?: string;
}

/** The parsed arguments of `shards --name N`: the connection and namespace flags of `watch`. */
export interface ShardsArgs extends Omit<WatchArgs, "command"> {
  /** The command. */
  command: "shards";
  /** `--name`: the shard group (the Manager's `sharding.name`). */
  name: string;
}

/** What the command line asks for. */
export type CliArgs = WatchArgs | GenArgs | ShardsArgs | { command: "help" };

/** A command line that cannot be parsed; the message says why. */
export class UsageError extends Error {
  /**
   * Create a usage error.
   * @param message what is wrong with the command line
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The usage text printed by `--help` and after a usage error. */
export const USAGE = `Usage: cli.ts watch <resource> [flags]
       cli.ts gen (--from-cluster | --crd FILE... | --openapi FILE) [flags]
       cli.ts shards --name NAME [-n NS] [connection flags]

Watch a resource type: print the synced cache as a table, then one line per
change (time, event, namespace/name, columns).

  <resource>                 pods, po, deployments.apps, cm, nodes, widgets.example.com, ...

Flags:
  -n, --namespace NS         namespace to watch (default: the context's, or "default")
  -A, --all-namespaces       watch every namespace
  -l, --selector SELECTOR    label selector, e.g. app=web,tier!=db
      --field-selector F     field selector, e.g. spec.nodeName=node-1
  -o, --output FORMAT        table (default), wide, json or name
      --kubeconfig PATH      kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)
      --context NAME         kubeconfig context (default: the current context)
  -s, --server URL           API server URL (with no kubeconfig: the only setting needed)
      --token TOKEN          bearer token
      --certificate-authority PATH
                             PEM file of the CA that signed the server's certificate
      --insecure-skip-tls-verify
                             do not verify the server's certificate (Deno also needs
                             --unsafely-ignore-certificate-errors=<host>)
      --as USER              act as this user (impersonation; replaces the kubeconfig's as)
      --as-group GROUP       act as a member of this group (repeat for several; needs --as)
      --as-uid UID           act as the user with this uid (needs --as)
      --demo                 watch an embedded demo cluster with a simulated workload
      --port PORT            with --demo: serve it on 127.0.0.1:PORT (default: a free port)
      --demo-kubeconfig FILE with --demo: write a kubeconfig for it to FILE
  -h, --help                 show this help

gen writes TypeScript types and ResourceType descriptors, one module per
group/version (e.g. kube_types/example.com/v1.ts), from:
      --from-cluster         the cluster's OpenAPI v3 (/openapi/v3) and discovery;
                             takes the connection flags above and --demo
      --crd FILE...          CustomResourceDefinition manifests, YAML or JSON,
                             several documents per file
      --openapi FILE         a saved OpenAPI v3 document (JSON)
      --group G              only this API group ("core" for the core group)
      --kind K               only this kind and its list
      --out DIR              the folder written (default: kube_types)
      --import-from SPEC     where the modules import kubecache from
                             (default: @kubecache/core)

shards prints the members of a shard group (a Manager's sharding.name) from
their Leases in the namespace (-n, default the context's): identity, state,
the hash ranges each claims, its part of the space, its last renew.
      --name NAME            the shard group

The connection flags override the kubeconfig's settings, as kubectl's do.
A flag's value that starts with "-" must be given as --flag=value.

Examples (in a checkout of kubecache):
  deno run -A cli.ts watch pods -A --demo
  deno run -A cli.ts watch pods -A --demo --port 8080 --demo-kubeconfig demo.kubeconfig
  deno run -A cli.ts watch deploy -n kube-system -o wide
  deno run -A cli.ts watch cm --server http://127.0.0.1:8080
  deno run -A cli.ts gen --crd widget-crd.yaml --out kube_types
  deno run -A cli.ts gen --from-cluster --group apps
  deno run -A cli.ts shards --name configmap-audit -n kube-system
`;

/** The connection flags with a value, shared by `watch` and `gen`. */
const CONNECTION_VALUE_FLAGS = {
  "--kubeconfig": "kubeconfig",
  "--context": "context",
  "-s": "server",
  "--server": "server",
  "--token": "token",
  "--certificate-authority": "certificateAuthority",
  "--as": "as",
  "--as-uid": "asUid",
  "--as-group": "asGroups",
} as const;

/** Flags that take a value, by every spelling, mapped to their field. */
const VALUE_FLAGS: Record<string, keyof WatchArgs> = {
  "-n": "namespace",
  "--namespace": "namespace",
  "-l": "labelSelector",
  "--selector": "labelSelector",
  "--field-selector": "fieldSelector",
  "-o": "output",
  "--output": "output",
  ...CONNECTION_VALUE_FLAGS,
  "--port": "port",
  "--demo-kubeconfig": "demoKubeconfig",
};
/** Value flags that may be repeated, each value added to a list. */
const LIST_FLAGS: ReadonlySet<string> = new Set(["asGroups"]);

/** Flags without a value (`--flag=true|false` also accepted), mapped to their field. */
const BOOLEAN_FLAGS: Record<string, keyof WatchArgs> = {
  "-A": "allNamespaces",
  "--all-namespaces": "allNamespaces",
  "--demo": "demo",
  "--insecure-skip-tls-verify": "insecureSkipTlsVerify",
};

/** Flags that choose a cluster, which `--demo` replaces. */
const CONNECTION_FLAGS = [
  "--kubeconfig",
  "--context",
  "--server",
  "--token",
  "--certificate-authority",
  "--insecure-skip-tls-verify",
  "--as",
  "--as-uid",
  "--as-group",
] as const;

/**
 * Parse a command line (without the program name).
 *
 * A flag's value is the next argument unless that starts with `-`: then the
 * value counts as missing (`watch cm -n --kubeconfig x` forgot it, where
 * kubectl would take `--kubeconfig` as the namespace); `--flag=-value`
 * passes such a value.
 * @param argv the arguments, e.g. `Deno.args`
 * @returns the parsed command
 * @throws {UsageError} for an unknown command or flag, a missing value or
 * resource, an unknown output format, `-n` together with `-A`, `--demo`
 * together with a connection flag, or `--certificate-authority` together
 * with `--insecure-skip-tls-verify`
 */
export function parseArgs(argv: readonly string[]): CliArgs {
  if (argv.length === 0) {
    throw new UsageError(
      'Missing command: expected "watch", "gen" or "shards"',
    );
  }
  if (argv.some((a) => a === "-h" || a === "--help")) {
    return { command: "help" };
  }
  const [command, ...rest] = argv;
  if (command === "help") return { command: "help" };
  if (command === "gen") return parseGenArgs(rest);
  if (command === "shards") return parseShardsArgs(rest);
  if (command !== "watch") {
    throw new UsageError(
      `Unknown command "${command}": expected "watch", "gen" or "shards"`,
    );
  }
  const args: WatchArgs = {
    command: "watch",
    resource: "",
    allNamespaces: false,
    output: "table",
    demo: false,
  };
  const values: Partial<Record<keyof WatchArgs, string | boolean | string[]>> =
    {};
  const given = new Set<keyof WatchArgs>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith("-") || arg === "-") {
      if (args.resource) {
        throw new UsageError(
          `Unexpected argument "${arg}": watch takes one resource`,
        );
      }
      args.resource = arg;
      continue;
    }
    i = readFlag(rest, i, { VALUE_FLAGS, BOOLEAN_FLAGS }, values, given);
  }
  if (!args.resource) {
    throw new UsageError('Missing resource: e.g. "watch pods"');
  }
  Object.assign(args, values);
  if (!FORMATS.includes(args.output)) {
    throw new UsageError(
      `Unknown output format "${args.output}": expected one of ${
        FORMATS.join(", ")
      }`,
    );
  }
  if (args.namespace !== undefined && args.allNamespaces) {
    throw new UsageError("Flags -n and -A cannot be used together");
  }
  for (const flag of ["--port", "--demo-kubeconfig"] as const) {
    if (given.has(VALUE_FLAGS[flag]) && !args.demo) {
      throw new UsageError(
        `Flag ${flag} needs --demo: it sets up the embedded demo cluster`,
      );
    }
  }
  if (given.has("port")) {
    const text = String(values.port);
    const port = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(port >= 1 && port <= 65535)) {
      throw new UsageError(
        `Invalid --port "${text}": expected a port number from 1 to 65535`,
      );
    }
    args.port = port;
  }
  if (args.demo) {
    const clash = CONNECTION_FLAGS.find((f) =>
      given.has(VALUE_FLAGS[f] ?? BOOLEAN_FLAGS[f])
    );
    if (clash) {
      throw new UsageError(
        `Flags --demo and ${clash} cannot be used together: --demo starts its own cluster`,
      );
    }
  }
  checkConnection(args);
  return args;
}

/** What kubectl also refuses among the connection flags. */
function checkConnection(args: GenArgs | WatchArgs): void {
  if (
    args.as === undefined &&
    (args.asUid !== undefined || args.asGroups !== undefined)
  ) {
    // kubectl refuses the same: the server needs a user to impersonate.
    throw new UsageError(
      `Flag ${
        args.asUid !== undefined ? "--as-uid" : "--as-group"
      } needs --as: impersonating a group or uid needs a user`,
    );
  }
  if (args.certificateAuthority !== undefined && args.insecureSkipTlsVerify) {
    // kubectl refuses the pair too: one of the two is a mistake.
    throw new UsageError(
      "Flags --certificate-authority and --insecure-skip-tls-verify cannot be used together",
    );
  }
}

/** The flags of `gen` with a value, mapped to their field. */
const GEN_VALUE_FLAGS: Record<string, keyof GenArgs> = {
  "--openapi": "openapi",
  "--group": "group",
  "--kind": "kind",
  "--out": "out",
  "--import-from": "importFrom",
  ...CONNECTION_VALUE_FLAGS,
};

/** The flags of `gen` without a value. */
const GEN_BOOLEAN_FLAGS: Record<string, keyof GenArgs> = {
  "--from-cluster": "fromCluster",
  "--demo": "demo",
  "--insecure-skip-tls-verify": "insecureSkipTlsVerify",
};

/** Every long flag `gen` knows, for suggestions. */
const GEN_LONG_FLAGS = [
  ...Object.keys(GEN_VALUE_FLAGS),
  ...Object.keys(GEN_BOOLEAN_FLAGS),
];

/**
 * Read the flag at `rest[i]` (and its value: after `=`, glued to a short
 * flag, or the next argument; a repeatable flag's values add up) into
 * `values`; returns the index of the last argument it used.
 */
function readFlag<K extends string>(
  rest: readonly string[],
  i: number,
  flags: {
    VALUE_FLAGS: Record<string, K>;
    BOOLEAN_FLAGS: Record<string, K>;
    known?: readonly string[];
  },
  values: Partial<Record<K, string | boolean | string[]>>,
  given: Set<K>,
): number {
  const [flag, value] = splitFlag(rest[i]);
  const bool = flags.BOOLEAN_FLAGS[flag];
  if (bool) {
    values[bool] = parseBoolean(flag, value);
    given.add(bool);
    return i;
  }
  const field = flags.VALUE_FLAGS[flag];
  if (!field) throw unknownFlag(flag, flags.known);
  let v: string;
  if (value !== undefined) v = value;
  else if (i + 1 < rest.length && !isFlagLike(rest[i + 1])) {
    v = rest[++i];
  } else throw new UsageError(`flag needs an argument: ${flag}`);
  if (LIST_FLAGS.has(field)) {
    values[field] = [...(values[field] as string[] | undefined ?? []), v];
  } else values[field] = v;
  given.add(field);
  return i;
}

/**
 * Parse `shards`' arguments: `--name N` (required), then `watch`'s flags
 * (namespace, connection, demo) for the Leases.
 */
function parseShardsArgs(rest: readonly string[]): ShardsArgs {
  const others: string[] = [];
  let name: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "--name") {
      if (i + 1 >= rest.length || isFlagLike(rest[i + 1])) {
        throw new UsageError("flag needs an argument: --name");
      }
      name = rest[++i];
    } else if (arg.startsWith("--name=")) {
      name = arg.slice("--name=".length);
    } else others.push(arg);
  }
  if (!name) {
    throw new UsageError("shards needs --name: the shard group's name");
  }
  const parsed = parseArgs(["watch", "leases", ...others]) as WatchArgs;
  return { ...parsed, command: "shards", name };
}

/**
 * Parse `gen`'s arguments: exactly one source (`--from-cluster`, `--crd`
 * with its files, `--openapi`), the connection flags only with
 * `--from-cluster`.
 */
function parseGenArgs(rest: readonly string[]): GenArgs {
  const args: GenArgs = {
    command: "gen",
    fromCluster: false,
    crd: [],
    out: "kube_types",
    demo: false,
  };
  const values: Partial<Record<keyof GenArgs, string | boolean | string[]>> =
    {};
  const given = new Set<keyof GenArgs>();
  let crdFlag = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!isFlagLike(arg)) {
      // Files after --crd, until the next flag.
      if (crdFlag) {
        args.crd.push(arg);
        continue;
      }
      throw new UsageError(
        `Unexpected argument "${arg}": gen takes its files after --crd`,
      );
    }
    crdFlag = false;
    const [flag, value] = splitFlag(arg);
    if (flag === "--crd") {
      crdFlag = true;
      given.add("crd");
      if (value !== undefined) args.crd.push(value);
      continue;
    }
    i = readFlag(
      rest,
      i,
      {
        VALUE_FLAGS: GEN_VALUE_FLAGS,
        BOOLEAN_FLAGS: GEN_BOOLEAN_FLAGS,
        known: [...GEN_LONG_FLAGS, "--crd"],
      },
      values,
      given,
    );
  }
  Object.assign(args, values);
  const sources = [
    args.fromCluster && "--from-cluster",
    given.has("crd") && "--crd",
    args.openapi !== undefined && "--openapi",
  ].filter((s): s is string => typeof s === "string");
  if (sources.length !== 1) {
    throw new UsageError(
      sources.length === 0
        ? "gen needs a source: --from-cluster, --crd FILE... or --openapi FILE"
        : `Flags ${
          sources.join(" and ")
        } cannot be used together: gen reads one source`,
    );
  }
  if (given.has("crd") && args.crd.length === 0) {
    throw new UsageError("flag needs an argument: --crd");
  }
  const connection = CONNECTION_FLAGS.find((f) =>
    given.has(GEN_VALUE_FLAGS[f] ?? GEN_BOOLEAN_FLAGS[f])
  );
  if (!args.fromCluster && (connection || args.demo)) {
    throw new UsageError(
      `Flag ${connection ?? "--demo"} needs --from-cluster: ${
        sources[0]
      } reads files`,
    );
  }
  if (args.demo && connection) {
    throw new UsageError(
      `Flags --demo and ${connection} cannot be used together: --demo starts its own cluster`,
    );
  }
  if (args.out === "") throw new UsageError("--out needs a folder");
  checkConnection(args);
  return args;
}

/**
 * The error for a flag `watch` does not know, with the closest long flag
 * when one is within two edits (`--namspace` -> `--namespace`), as the
 * resource name gets a "did you mean". kubectl's `-w`/`--watch` gets its
 * own reason: `watch` always watches.
 */
function unknownFlag(
  flag: string,
  known: readonly string[] = LONG_FLAGS,
): UsageError {
  if (flag === "-w" || flag === "--watch") {
    return new UsageError(
      `Unknown flag "${flag}": watch always watches (as kubectl get -w); leave the flag out`,
    );
  }
  let best: { name: string; distance: number } | undefined;
  if (flag.startsWith("--")) {
    for (const name of [...known.filter((f) => f.startsWith("--")), "--help"]) {
      const distance = levenshtein(flag, name);
      if (!best || distance < best.distance) best = { name, distance };
    }
  }
  const hint = best && best.distance <= 2
    ? `; did you mean "${best.name}"?`
    : "";
  return new UsageError(`Unknown flag "${flag}"${hint}`);
}

/** Every long flag `watch` knows, for suggestions. */
const LONG_FLAGS = [...Object.keys(VALUE_FLAGS), ...Object.keys(BOOLEAN_FLAGS)]
  .filter((f) => f.startsWith("--"));

/** Whether a following argument is a flag rather than the value of the one before. */
function isFlagLike(arg: string): boolean {
  return arg.startsWith("-") && arg !== "-";
}

function parseBoolean(flag: string, value: string | undefined): boolean {
  if (value === undefined || value === "true") return true;
  if (value === "false") return false;
  throw new UsageError(
    `Invalid value "${value}" for ${flag}: expected true or false`,
  );
}

/** `--flag=value` and `-nvalue` (short flags glued to their value, as kubectl accepts). */
function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  if (eq > 0) return [arg.slice(0, eq), arg.slice(eq + 1)];
  if (!arg.startsWith("--") && arg.length > 2) {
    return [arg.slice(0, 2), arg.slice(2)];
  }
  return [arg, undefined];
}
