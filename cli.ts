/**
 * The kubecache command line: `watch` a resource type of a cluster — or of
 * an embedded demo cluster — through a SharedIndexInformer, printing the
 * synced cache as a table and then one line per change.
 *
 * ```sh
 * deno run -A cli.ts watch pods -A --demo
 * deno run -A cli.ts watch deploy -n kube-system -o wide
 * deno run -A cli.ts watch cm --server http://127.0.0.1:8080
 * deno run -A cli.ts gen --crd widget-crd.yaml --out kube_types
 * ```
 *
 * Flags: `-n NS | -A`, `-l SELECTOR`, `--field-selector F`,
 * `-o table|wide|json|name`, `--kubeconfig PATH`, `--context NAME`,
 * `-s`/`--server URL`, `--token T`, `--certificate-authority PATH`,
 * `--insecure-skip-tls-verify`, `--demo`. Resource names resolve as kubectl resolves them (plural,
 * singular, short name, `name.group`) through the server's discovery.
 *
 * For programs, this entry point also exports {@link main} (the CLI run
 * in-process), {@link describeError} (a failure worded in one line, as the
 * CLI prints it), {@link connectOrExit} (a program's startup: `--demo` or
 * the kubeconfig, one line and exit 1 when the cluster is unreachable) and kubectl's column printers ({@link printerFor},
 * {@link podSummary}, {@link age}), which the library entry points do not
 * load.
 *
 * @module
 */

import {
  newSharedIndexInformer,
  waitForCacheSync,
} from "./cache/shared_informer.ts";
import {
  DeletedFinalStateUnknown,
  splitMetaNamespaceKey,
} from "./cache/keys.ts";
import type { KubeObject } from "./api/object.ts";
import type { DeepReadonly } from "./api/readonly.ts";
import { KubeConfig, KubeConfigError } from "./client/config.ts";
import { KubeClient } from "./client/rest.ts";
import { connectReason, isConnectError } from "./client/connect_error.ts";
import { listWatch } from "./api/resource_client.ts";
import { apiVersionOf, type ResourceType } from "./api/resources.ts";
import {
  type ConnectionArgs,
  parseArgs,
  USAGE,
  UsageError,
  type WatchArgs,
} from "./_cli/args.ts";
import { loadConfig } from "./_cli/connect.ts";
import { demoKubeconfig } from "./_cli/demo_kubeconfig.ts";
import { Discovery, UnknownResourceError } from "./client/discovery.ts";
import { suggestResource } from "./_cli/resolve.ts";
import { type PrintedEvent, WatchPrinter } from "./_cli/printer.ts";
import { ListProgress, withProgress } from "./_cli/progress.ts";
import { watchStatus } from "./_cli/watch_status.ts";
import type { Clock } from "./api/clock.ts";
import { RequestTimeoutError, StatusError } from "./api/errors.ts";
import { show } from "./api/validate.ts";

// kubectl's columns per kind, the printers `watch` uses (client-go has none:
// they are kubectl's `get` printers).
export * from "./client/printers.ts";

/** Objects per list page, as `kubectl get` asks for. */
const PAGE_SIZE = 500;

/**
 * Where {@link main} writes and what stops it; every field has a default.
 *
 * @example Run the CLI in-process against a FakeApiServer
 * ```ts
 * import { type CliOptions, main } from "@kubecache/core/cli";
 * import { ConfigMaps } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.create(ConfigMaps, { metadata: { name: "settings", namespace: "default" } });
 * const stop = new AbortController();
 * const lines: string[] = [];
 * const opts: CliOptions = {
 *   stdout: (line) => void lines.push(line),
 *   stderr: () => {},
 *   signal: stop.signal,
 *   onSynced: () => stop.abort(),
 * };
 * assert.equal(await main(["watch", "cm", "-s", server.url], opts), 0);
 * assert.match(lines.join("\n"), /settings/);
 * ```
 */
export interface CliOptions {
  /** Writes one line of output. Default: stdout. */
  stdout?: (line: string) => void;
  /** Writes raw text to the error stream (no newline added). Default: stderr. */
  stderr?: (text: string) => void;
  /** Whether the error stream is a terminal (progress is shown only then). Default: `Deno.stderr.isTerminal()`. */
  stderrIsTerminal?: boolean;
  /** Stops the watch. Default: the first SIGINT (Ctrl-C) or SIGTERM. */
  signal?: AbortSignal;
  /** Current time in epoch ms, for ages and event times. Default `Date.now`. */
  now?: () => number;
  /** Formats the time of an event line. Default: local `HH:MM:SS`. */
  formatTime?: (ms: number) => string;
  /** Milliseconds between two changes of the demo workload. Default 500. */
  demoIntervalMs?: number;
  /** Seed of the demo workload. Default 1. */
  demoSeed?: number;
  /** Called once the initial table is printed (tests wait on it). */
  onSynced?: () => void;
  /** Clock of the informer's timers (backoff, watchdog). Default: the real clock. */
  clock?: Clock;
}

/**
 * Run the command line and resolve to the process exit code: 0 after a
 * clean stop (Ctrl-C), 1 on an error (one line on stderr), 2 on a usage
 * error.
 *
 * @param argv arguments without the program name, e.g. `["watch", "pods", "-A"]`
 * @param opts output writers, stop signal and clock
 * @returns the exit code
 *
 * @example Print the usage
 * ```ts
 * import { main } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 * const out: string[] = [];
 * assert.equal(await main(["--help"], { stdout: (l) => out.push(l) }), 0);
 * assert.match(out.join("\n"), /Usage: cli.ts watch <resource>/);
 * ```
 */
export async function main(
  argv: readonly string[],
  opts: CliOptions = {},
): Promise<number> {
  // A closed stdout (`| head -3`) ends the watch quietly, as kubectl does.
  const closed = new AbortController();
  const stdout = untilBrokenPipe(opts.stdout ?? writeLine(Deno.stdout), closed);
  const stderr = opts.stderr ?? writeText(Deno.stderr);
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    stderr(`error: ${err.message}\nRun "cli.ts --help" for usage.\n`);
    return 2;
  }
  if (args.command === "help") {
    for (const line of USAGE.trimEnd().split("\n")) stdout(line);
    return 0;
  }
  const stop = opts.signal ? { signal: opts.signal, dispose() {} } : onCtrlC();
  try {
    const signal = AbortSignal.any([stop.signal, closed.signal]);
    const resolved = { ...opts, stdout, stderr, signal };
    if (args.command === "gen") {
      // Loaded here only: watch never loads the generator.
      const { gen } = await import("./_cli/gen.ts");
      return await gen(args, {
        stdout,
        stderr,
        signal,
        describe: (err) => describeError(err),
        connect: (a) => connect(a, resolved),
      });
    }
    if (args.command === "shards") {
      const { shards } = await import("./_cli/shards.ts");
      await using cluster = await connect(args, resolved);
      if (typeof cluster.error === "string") {
        stderr(`error: ${cluster.error}\n`);
        return 1;
      }
      return await shards(args, cluster.client, {
        stdout,
        stderr,
        signal,
        now: () => (opts.clock ?? { now: Date.now }).now(),
        describe: (err) => describeError(err),
      });
    }
    return await watch(args, resolved);
  } finally {
    stop.dispose();
  }
}

type Resolved =
  & Required<Pick<CliOptions, "stdout" | "stderr" | "signal">>
  & CliOptions;

async function watch(args: WatchArgs, opts: Resolved): Promise<number> {
  await using cluster = await connect(args, opts);
  if (typeof cluster.error === "string") {
    opts.stderr(`error: ${cluster.error}\n`);
    return 1;
  }
  const { client } = cluster;
  const context = {
    server: client.config.server,
    user: cluster.user,
    action: `list ${args.resource}`,
  };
  let type: ResourceType;
  const discovery = new Discovery(client);
  try {
    type = await discovery.resolve(args.resource, opts.signal);
  } catch (err) {
    if (opts.signal.aborted) return 0;
    const suggestion = err instanceof UnknownResourceError
      ? suggestResource(args.resource, await discovery.resources(opts.signal))
      : undefined;
    opts.stderr(`error: ${describeError(err, { ...context, suggestion })}\n`);
    return 1;
  }
  const namespace = !type.namespaced || args.allNamespaces
    ? ""
    : args.namespace ?? client.config.namespace;
  context.action = `list ${type.resource}` +
    (namespace ? ` in namespace "${namespace}"` : "");
  return await run(type, namespace, { args, opts, client, context });
}

/**
 * A program's connection made by {@link connectOrExit}: the client, and
 * on dispose the client closed and the demo cluster (if started) stopped.
 *
 * @example Dispose with `await using`
 * ```ts
 * import type { ProgramConnection } from "@kubecache/core/cli";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * const connection: ProgramConnection = {
 *   client,
 *   [Symbol.asyncDispose]: () => Promise.resolve(client.close()),
 * };
 * await connection[Symbol.asyncDispose]();
 * ```
 */
export interface ProgramConnection extends AsyncDisposable {
  /** The client of the cluster (closed on dispose). */
  client: KubeClient;
}

/**
 * The startup of a small program (the examples' own): with `--demo` in
 * `args`, start the embedded demo cluster and say where it is on stderr
 * (`demo cluster at http://127.0.0.1:PORT (try: kubectl --server ... get
 * pods -A)`; `--port N` fixes its port and `--demo-kubeconfig PATH` writes a
 * kubeconfig for it, as `cli.ts watch --demo` does); else load the
 * kubeconfig (`KUBECONFIG`, `~/.kube/config`, then in-cluster) and make one
 * request, so a missing config or an unreachable server ends the program
 * at once with one line (`error: Cannot reach the API server at ...`) and
 * exit code 1, instead of a stack trace or endless retries. Any answer of
 * the server, even 401 or 403, counts as reachable.
 *
 * @param args the program's arguments (`Deno.args`); other flags are ignored
 * @returns the connection; on failure the process exits
 * @throws {TypeError} when `args` is not an array of strings
 *
 * @example Connect to the demo cluster
 * ```ts
 * import { connectOrExit } from "@kubecache/core/cli";
 * import { ConfigMaps } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using connection = await connectOrExit(["--demo"]);
 * const list = await connection.client.list(ConfigMaps, { namespace: "shop" });
 * assert.ok(list.items.length > 0);
 * ```
 */
export async function connectOrExit(
  args: readonly string[],
): Promise<ProgramConnection> {
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
    throw new TypeError(
      `connectOrExit: args must be an array of strings such as Deno.args, got ${
        show(args)
      }`,
    );
  }
  const flag = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const port = flag("--port");
  const stderr = writeText(Deno.stderr);
  const demo = args.includes("--demo");
  const cluster = await connect({
    demo,
    port: port === undefined ? undefined : Number(port),
    demoKubeconfig: flag("--demo-kubeconfig"),
  }, {
    stdout: writeLine(Deno.stdout),
    stderr,
    signal: new AbortController().signal,
  });
  let why = cluster.error;
  if (cluster.client) {
    const { client } = cluster;
    // Any answer, even 401/403, shows the server is there; only a failure
    // to connect ends the program here.
    why = await client.request("GET", "/version").then(
      () => undefined,
      (err) =>
        err instanceof StatusError
          ? undefined
          : describeError(err, { server: client.config.server }),
    );
    if (why === undefined) return cluster;
  }
  await cluster[Symbol.asyncDispose]();
  const hint = demo || why!.includes("--demo")
    ? ""
    : " (run with --demo to use the embedded cluster)";
  stderr(`error: ${why}${hint}\n`);
  Deno.exit(1);
}

/**
 * Connect to the demo cluster (started here, with its workload) or to the
 * cluster of the kubeconfig. Disposing it stops whatever was started.
 */
async function connect(
  args: ConnectionArgs & {
    demo: boolean;
    port?: number;
    demoKubeconfig?: string;
  },
  opts: Resolved,
): Promise<
  & AsyncDisposable
  & (
    | { client: KubeClient; user?: string; error?: undefined }
    | { error: string; client?: undefined }
  )
> {
  if (args.demo) {
    // Loaded only here: `watch` against a real cluster loads no testing/
    // module (the FakeApiServer and its registry are a few dozen files).
    const { startDemoCluster } = await import("./testing/demo_cluster.ts");
    let demo;
    try {
      demo = await startDemoCluster({
        intervalMs: opts.demoIntervalMs,
        seed: opts.demoSeed,
        port: args.port,
      });
    } catch (err) {
      const why = err instanceof Deno.errors.AddrInUse
        ? "the port is in use (another demo running? choose another --port)"
        : describeError(err);
      return {
        error: `Cannot start the demo cluster${
          args.port ? ` on port ${args.port}` : ""
        }: ${why}`,
        async [Symbol.asyncDispose]() {},
      };
    }
    // Say where it is, so kubectl (or a second watch) can look at it too.
    opts.stderr(
      `demo cluster at ${demo.url} (try: kubectl --server ${demo.url} get pods -A)\n`,
    );
    if (args.demoKubeconfig !== undefined) {
      try {
        await Deno.writeTextFile(
          args.demoKubeconfig,
          demoKubeconfig(demo.url),
        );
      } catch (err) {
        await demo.close();
        return {
          error: `Cannot write the demo kubeconfig ${args.demoKubeconfig}: ${
            err instanceof Deno.errors.NotCapable
              ? `run deno with --allow-write=${args.demoKubeconfig}`
              : describeError(err)
          }`,
          async [Symbol.asyncDispose]() {},
        };
      }
      opts.stderr(
        `wrote kubeconfig ${args.demoKubeconfig} (try: KUBECONFIG=${args.demoKubeconfig} kubectl get pods -A)\n`,
      );
    }
    const client = new KubeClient(KubeConfig.fromOptions({ server: demo.url }));
    return {
      client,
      user: "demo",
      async [Symbol.asyncDispose]() {
        client.close();
        await demo.close();
      },
    };
  }
  let loaded;
  try {
    loaded = await loadConfig(args);
  } catch (err) {
    return { error: describeError(err), async [Symbol.asyncDispose]() {} };
  }
  const { config, flagsOnly } = loaded;
  const client = new KubeClient(config);
  return {
    client,
    // Who we are, for 401/403 messages: unknown for a token from the flags.
    user: flagsOnly || args.token !== undefined
      ? undefined
      : config.contextName === undefined
      ? "in-cluster service account"
      : config.userName,
    [Symbol.asyncDispose]: () => Promise.resolve(client.close()),
  };
}

async function run(
  type: ResourceType,
  namespace: string,
  ctx: {
    args: WatchArgs;
    opts: Resolved;
    client: KubeClient;
    context: ErrorContext & { action: string };
  },
): Promise<number> {
  const { args, opts, client } = ctx;
  const now = opts.now ?? Date.now;
  const progress = new ListProgress(type.resource, {
    write: opts.stderr,
    enabled: opts.stderrIsTerminal ?? Deno.stderr.isTerminal(),
  });
  const lw = withProgress(
    listWatch(client, type, {
      namespace,
      labelSelector: args.labelSelector,
      fieldSelector: args.fieldSelector,
    }),
    progress,
  );
  // Before the first sync, errors that retrying will not fix end the
  // command; after it, one line when the watch breaks and one when resumed.
  const stopped = new AbortController();
  let fatal: unknown;
  const informer = newSharedIndexInformer(lw, {
    name: type.resource,
    pageSize: PAGE_SIZE,
    // A fatal stop is printed below, from run()'s rejection.
    errorHandler: (err, { source }) => {
      if (source !== "fatal") {
        opts.stderr(`warning: ${describeError(err, ctx.context)}\n`);
      }
    },
    clock: opts.clock,
    onStatus: watchStatus({
      what: `${type.resource}${namespace ? ` in ${namespace}` : ""}`,
      write: opts.stderr,
      describe: (err) => describeError(err, ctx.context),
      synced: (): boolean => informer.hasSynced(),
      isFatal,
      onFatal: (err) => {
        fatal = err;
        stopped.abort();
      },
      beforeWarning: () => progress.done(),
    }),
  });
  const printer = new WatchPrinter({
    kind: type.kind,
    apiVersion: apiVersionOf(type),
    typeName: type.kind.toLowerCase() + (type.group ? `.${type.group}` : ""),
    output: args.output,
    allNamespaces: namespace === "" && type.namespaced,
    namespaced: type.namespaced,
    write: opts.stdout,
    now,
    formatTime: opts.formatTime,
  });
  const initial = new Map<string, KubeObject>();
  const pending: [PrintedEvent, KubeObject][] = [];
  let printing = false;
  const emit = (type: PrintedEvent, obj: KubeObject) => {
    if (printing) printer.printEvent(type, obj);
    else pending.push([type, obj]);
  };
  // The printer only reads; it takes the cached objects as they are.
  const read = (obj: DeepReadonly<KubeObject>) => obj as KubeObject;
  const registration = informer.addEventHandler({
    onAdd(obj, isInInitialList) {
      if (isInInitialList && !printing) {
        initial.set(keyOf(read(obj)), read(obj));
      } else emit("ADDED", read(obj));
    },
    onUpdate: (_old, obj) => emit("MODIFIED", read(obj)),
    onDelete: (obj) =>
      emit(
        "DELETED",
        lastState(obj as KubeObject | DeletedFinalStateUnknown<KubeObject>),
      ),
  });
  const signal = AbortSignal.any([opts.signal, stopped.signal]);
  const running = informer.run(signal);
  // Settles with the error the informer stopped on, if any (never rejects).
  const failure = running.then(() => undefined, (error) => ({ error }));
  const failed = (f: { error: unknown }) => {
    opts.stderr(`error: informer stopped: ${describeError(f.error)}\n`);
    return 1;
  };
  try {
    const synced = await waitForCacheSync(signal, registration.hasSynced);
    progress.done();
    if (fatal !== undefined) {
      opts.stderr(`error: ${describeError(fatal, ctx.context)}\n`);
      return 1;
    }
    if (!synced) {
      const f = await failure;
      return f ? failed(f) : 0;
    }
    printing = true;
    if (
      !printer.printInitial([...initial.values()]) && args.output !== "json"
    ) {
      opts.stderr(
        `No resources found${namespace ? ` in ${namespace} namespace` : ""}.\n`,
      );
    }
    for (const [type, obj] of pending.splice(0)) printer.printEvent(type, obj);
    opts.onSynced?.();
    // Until Ctrl-C, or exit 1 when the informer stops on a fatal error.
    const f = await Promise.race([aborted(signal), failure]);
    return f ? failed(f) : 0;
  } finally {
    stopped.abort();
    await running.catch(() => {});
  }
}

/** Errors that retrying cannot fix: no server, no access, no such resource. */
function isFatal(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return isConnectError(err) ||
    code === 401 || code === 403 || code === 404 || code === 400;
}

/** The object of a deletion; a tombstone without one becomes a stub of its key. */
function lastState(
  obj: KubeObject | DeletedFinalStateUnknown<KubeObject>,
): KubeObject {
  if (!(obj instanceof DeletedFinalStateUnknown)) return obj;
  return obj.obj ?? { metadata: splitMetaNamespaceKey(obj.key) };
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
}

/** An AbortSignal fired by the first Ctrl-C (or SIGTERM off Windows). */
function onCtrlC(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const signals: Deno.Signal[] = Deno.build.os === "windows"
    ? ["SIGINT"]
    : ["SIGINT", "SIGTERM"];
  const handler = () => controller.abort();
  for (const s of signals) Deno.addSignalListener(s, handler);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of signals) Deno.removeSignalListener(s, handler);
    },
  };
}

/**
 * `write`, turned into a no-op once the reader has gone (BrokenPipe), which
 * is then reported by aborting `closed`.
 */
function untilBrokenPipe(
  write: (line: string) => void,
  closed: AbortController,
): (line: string) => void {
  return (line) => {
    if (closed.signal.aborted) return;
    try {
      write(line);
    } catch (err) {
      if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
      closed.abort();
    }
  };
}

function writeLine(file: { writeSync(p: Uint8Array): number }) {
  const write = writeText(file);
  return (line: string) => write(line + "\n");
}

function writeText(file: { writeSync(p: Uint8Array): number }) {
  const encoder = new TextEncoder();
  return (text: string) => {
    const bytes = encoder.encode(text);
    let off = 0;
    while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
  };
}

// ---- error text: one line per failure, the CLI's and the examples' ----

/**
 * What an error message can mention.
 *
 * @example Name the server and the user
 * ```ts
 * import { describeError, type ErrorContext } from "@kubecache/core/cli";
 * import { StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ctx: ErrorContext = { server: "https://10.0.0.1:6443", user: "alice", action: "list pods" };
 * const text = describeError(StatusError.fromStatus({ code: 401, reason: "Unauthorized", message: "Unauthorized" }), ctx);
 * assert.match(text, /alice/);
 * ```
 */
export interface ErrorContext {
  /** The API server URL. */
  server?: string;
  /** The kubeconfig user (or another description of who we are). */
  user?: string;
  /** What was being done, e.g. `list pods in namespace "default"`. */
  action?: string;
  /** A resource name to suggest for an unknown one. */
  suggestion?: string;
}

/**
 * Describe a failure in one line, without a stack trace, the way the CLI
 * prints it (exported from `@kubecache/core/cli` for scripts that want the
 * same wording, as the examples do).
 * @param err what was thrown
 * @param ctx the server, user and action to name
 * @returns the message, without a trailing period
 *
 * @example Word a 403 the CLI's way
 * ```ts
 * import { describeError } from "@kubecache/core/cli";
 * import { StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const err = StatusError.fromStatus({ code: 403, reason: "Forbidden", message: "no" });
 * assert.equal(
 *   describeError(err, { user: "bob", action: "list pods" }),
 *   'Forbidden as user "bob" (403): not allowed to list pods: no',
 * );
 * ```
 */
export function describeError(err: unknown, ctx: ErrorContext = {}): string {
  const at = ctx.server ? ` at ${ctx.server}` : "";
  const as = ctx.user ? ` as user "${ctx.user}"` : "";
  const doing = ctx.action ? ` to ${ctx.action}` : "";
  if (err instanceof UnknownResourceError) {
    return err.message +
      (ctx.suggestion ? `; did you mean "${ctx.suggestion}"?` : "");
  }
  if (err instanceof KubeConfigError) {
    const hint =
      /Cannot (find|load) (a Kubernetes config|kubeconfig)/.test(err.message)
        ? " (or use --demo to watch an embedded demo cluster)"
        : "";
    return err.message + hint;
  }
  if (err instanceof StatusError) {
    const why = err.message ? `: ${err.message}` : "";
    if (err.code === 401) {
      return `Unauthorized${as}${at} (401): the server rejected the credentials${why}`;
    }
    if (err.code === 403) {
      return `Forbidden${as}${at} (403)${
        doing ? `: not allowed${doing}` : ""
      }${why}`;
    }
    return `The API server${at} answered ${err.code} ${err.reason ?? ""}`
      .trimEnd() +
      `${doing ? ` when trying${doing}` : ""}${why}`;
  }
  if (err instanceof RequestTimeoutError) {
    return `The API server${at} did not answer in time: ${err.message}`;
  }
  if (err instanceof TypeError && isConnectError(err)) {
    // KubeClient already describes a failed connection (and a certificate
    // failure under insecure-skip-tls-verify, with the flag to use): its
    // message is the one.
    if (/^Cannot (reach|verify)/.test(err.message)) return err.message;
    const cause = err.cause instanceof Error ? err.cause.message : "";
    return `Cannot reach the API server${at}: ${
      connectReason(`${err.message} ${cause}`)
    }`;
  }
  return err instanceof Error ? err.message : String(err);
}

if (import.meta.main) {
  // Not a top-level await: a module awaiting main() at its top level never
  // finishes evaluating, so anything that loads it while main() runs would
  // wait forever (the import-circle check keeps subcommands from loading
  // it; this keeps a slip from hanging the command).
  main(Deno.args).then((code) => Deno.exit(code));
}
