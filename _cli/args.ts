/**
 * Command-line parsing of `cli.ts`: hand-written, no dependencies, flags
 * spelled as kubectl spells them.
 *
 * @module
 */

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
}

/** What the command line asks for. */
export type CliArgs = WatchArgs | { command: "help" };

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
      --demo                 watch an embedded demo cluster with a simulated workload
  -h, --help                 show this help

Examples:
  deno run -A jsr:@kubecache/core/cli watch pods -A --demo
  deno run -A jsr:@kubecache/core/cli watch deploy -n kube-system -o wide
`;

/** Flags that take a value, by every spelling, mapped to their field. */
const VALUE_FLAGS: Record<string, keyof WatchArgs> = {
  "-n": "namespace",
  "--namespace": "namespace",
  "-l": "labelSelector",
  "--selector": "labelSelector",
  "--field-selector": "fieldSelector",
  "-o": "output",
  "--output": "output",
  "--kubeconfig": "kubeconfig",
  "--context": "context",
};

/**
 * Parse a command line (without the program name).
 * @param argv the arguments, e.g. `Deno.args`
 * @returns the parsed command
 * @throws {UsageError} for an unknown command or flag, a missing value or
 * resource, an unknown output format, or `-n` together with `-A`
 */
export function parseArgs(argv: readonly string[]): CliArgs {
  if (argv.length === 0) {
    throw new UsageError('Missing command: expected "watch"');
  }
  if (argv.some((a) => a === "-h" || a === "--help")) {
    return { command: "help" };
  }
  const [command, ...rest] = argv;
  if (command === "help") return { command: "help" };
  if (command !== "watch") {
    throw new UsageError(`Unknown command "${command}": expected "watch"`);
  }
  const args: WatchArgs = {
    command: "watch",
    resource: "",
    allNamespaces: false,
    output: "table",
    demo: false,
  };
  const values: Partial<Record<keyof WatchArgs, string>> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "-A" || arg === "--all-namespaces") args.allNamespaces = true;
    else if (arg === "--demo") args.demo = true;
    else if (arg.startsWith("-") && arg !== "-") {
      const [flag, value] = splitFlag(arg);
      const field = VALUE_FLAGS[flag];
      if (!field) throw new UsageError(`Unknown flag "${flag}"`);
      if (value !== undefined) values[field] = value;
      else if (i + 1 < rest.length) values[field] = rest[++i];
      else throw new UsageError(`Flag "${flag}" needs a value`);
    } else if (!args.resource) args.resource = arg;
    else {throw new UsageError(
        `Unexpected argument "${arg}": watch takes one resource`,
      );}
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
  return args;
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
