/**
 * `cli.ts gen`: typed resources written to files, from the cluster's
 * OpenAPI v3 and discovery (`--from-cluster`), CustomResourceDefinition
 * manifests (`--crd`) or a saved OpenAPI document (`--openapi`). Loaded
 * only when the command is `gen`.
 *
 * @module
 */

import type { KubeClient } from "../client/rest.ts";
import { StatusError } from "../api/errors.ts";
import {
  type ApiResourceList,
  generateFromCrds,
  generateTypes,
  type OpenApiDocument,
} from "../gen/mod.ts";
import { parseYaml } from "../client/_yaml.ts";
import type { GenArgs } from "./args.ts";
import { errorMessage } from "../api/validate.ts";

/** Where `gen` writes and how it reaches a cluster. */
export interface GenContext {
  /** Writes one line of output. */
  stdout: (line: string) => void;
  /** Writes raw text to the error stream. */
  stderr: (text: string) => void;
  /** Stops the requests. */
  signal: AbortSignal;
  /**
   * One line for an error: the CLI's `describeError`, handed in so that
   * this module, which `cli.ts` loads, does not load `cli.ts` back.
   */
  describe: (err: unknown) => string;
  /** Connects to the cluster of the flags (or the demo); disposing closes it. */
  connect: (
    args: GenArgs,
  ) => Promise<
    & AsyncDisposable
    & ({ client: KubeClient; error?: undefined } | {
      error: string;
      client?: undefined;
    })
  >;
}

/** Documents fetched at once from a cluster. */
const PARALLEL = 8;

/**
 * Run `gen`: read the source, generate, write the modules under `--out`.
 * @returns the exit code: 0 written, 1 on an error (one line on stderr)
 */
export async function gen(args: GenArgs, ctx: GenContext): Promise<number> {
  const started = performance.now();
  let modules: Map<string, string>;
  try {
    if (args.fromCluster) {
      const got = await fromCluster(args, ctx);
      if (typeof got === "string") {
        ctx.stderr(`error: ${got}\n`);
        return 1;
      }
      modules = got;
    } else if (args.openapi !== undefined) {
      const doc = readJsonFile(args.openapi, "--openapi") as OpenApiDocument;
      modules = generateTypes({ [args.openapi]: doc }, filters(args));
    } else {
      const crds = args.crd.flatMap(readManifests).filter(isCrd);
      if (crds.length === 0) {
        ctx.stderr(
          `error: no CustomResourceDefinition in ${args.crd.join(", ")}\n`,
        );
        return 1;
      }
      modules = generateFromCrds(crds, filters(args));
    }
  } catch (err) {
    if (ctx.signal.aborted) return 1;
    ctx.stderr(`error: ${ctx.describe(err)}\n`);
    return 1;
  }
  if (modules.size === 0) {
    const what = [
      args.group !== undefined && `group "${args.group}"`,
      args.kind !== undefined && `kind "${args.kind}"`,
    ].filter(Boolean).join(" and ");
    ctx.stderr(
      `error: nothing to generate${what ? `: no ${what} in the source` : ""}\n`,
    );
    return 1;
  }
  const out = args.out.replace(/\/+$/, "");
  for (const [path, text] of modules) {
    const file = `${out}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, text);
    ctx.stdout(file);
  }
  const ms = Math.round(performance.now() - started);
  const n = modules.size === 1 ? "1 module" : `${modules.size} modules`;
  ctx.stderr(`wrote ${n} to ${out}/ in ${ms} ms\n`);
  return 0;
}

function filters(args: GenArgs) {
  return { group: args.group, kind: args.kind, importFrom: args.importFrom };
}

/**
 * `GET /openapi/v3`, then each group/version document it lists (the
 * `--group` one only, when given) and the discovery of the same
 * group/versions. Returns an error line instead of throwing for what the
 * user can act on.
 */
async function fromCluster(
  args: GenArgs,
  ctx: GenContext,
): Promise<Map<string, string> | string> {
  await using cluster = await ctx.connect(args);
  if (cluster.error !== undefined) return cluster.error;
  const { client } = cluster;
  const signal = ctx.signal;
  let index: { paths?: Record<string, { serverRelativeURL?: string }> };
  try {
    index = await client.request("GET", "/openapi/v3", { signal });
  } catch (err) {
    if (err instanceof StatusError) {
      return `cannot generate from the cluster at ${client.config.server}: GET /openapi/v3 answered ${err.code} ${
        err.reason || ""
      }${
        err.message ? ` (${err.message.slice(0, 120)})` : ""
      }; the cluster does not serve OpenAPI v3 (Kubernetes 1.24 and later do). Save a document and use --openapi FILE, or use --crd FILE`;
    }
    if (err instanceof SyntaxError) {
      return `cannot generate from the cluster at ${client.config.server}: GET /openapi/v3 answered with something that is not JSON (${err.message})`;
    }
    throw err;
  }
  const group = args.group === "core" ? "" : args.group;
  const wanted = Object.entries(index.paths ?? {}).filter(([path]) => {
    const gv = groupVersionOf(path);
    return gv !== undefined && (group === undefined || gv.group === group);
  }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (wanted.length === 0) {
    return `the cluster at ${client.config.server} lists no ${
      group === undefined ? "" : `group "${args.group}" `
    }API documents under /openapi/v3`;
  }
  const documents: Record<string, OpenApiDocument> = {};
  const discovery: ApiResourceList[] = [];
  await eachLimited(wanted, PARALLEL, async ([path, item]) => {
    const url = new URL(
      item.serverRelativeURL ?? `/openapi/v3/${path}`,
      "http://server",
    );
    const [doc, list] = await Promise.all([
      client.request<OpenApiDocument>("GET", url.pathname, {
        signal,
        query: url.searchParams,
      }),
      // An aggregated API that is down has no discovery: paths suffice.
      client.request<ApiResourceList>("GET", `/${path}`, { signal })
        .catch(() => undefined),
    ]);
    documents[path] = doc;
    if (list && Array.isArray(list.resources)) discovery.push(list);
  });
  discovery.sort((a, b) =>
    a.groupVersion < b.groupVersion
      ? -1
      : a.groupVersion > b.groupVersion
      ? 1
      : 0
  );
  return generateTypes(documents, { ...filters(args), discovery });
}

/** `api/v1` → core v1; `apis/apps/v1` → apps v1; anything else undefined. */
function groupVersionOf(
  path: string,
): { group: string; version: string } | undefined {
  const segs = path.split("/");
  if (segs[0] === "api" && segs.length === 2) {
    return { group: "", version: segs[1] };
  }
  if (segs[0] === "apis" && segs.length === 3) {
    return { group: segs[1], version: segs[2] };
  }
  return undefined;
}

async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, worker),
  );
}

/**
 * A source file's text. A file that cannot be read is one line naming the
 * flag and the path, like the kubeconfig's ("Cannot read kubeconfig ...").
 * @throws {Error} "Cannot read --crd file X: the file does not exist"
 */
function readSource(path: string, flag: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (cause) {
    const why = cause instanceof Deno.errors.NotFound
      ? "the file does not exist"
      : cause instanceof Deno.errors.IsADirectory
      ? "it is a directory"
      : errorMessage(cause);
    throw new Error(`Cannot read ${flag} file ${path}: ${why}`, { cause });
  }
}

function readJsonFile(path: string, flag: string, text?: string): unknown {
  text ??= readSource(path, flag);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SyntaxError(
      `${path} is not JSON: ${err instanceof Error ? err.message : err}`,
    );
  }
}

/**
 * The documents of a manifest file: JSON (one object, an array, or a `List`
 * with `items`) or YAML with `---` between documents.
 */
export function readManifests(path: string): unknown[] {
  const text = readSource(path, "--crd");
  const trimmed = text.trimStart();
  let docs: unknown[];
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const v = readJsonFile(path, "--crd", text);
    docs = Array.isArray(v) ? v : [v];
  } else {
    docs = splitYamlDocuments(text).map(({ text, line }) => {
      try {
        return parseYaml(text);
      } catch (err) {
        throw new SyntaxError(
          `${path}: ${shiftLine(err, line)}`,
        );
      }
    });
  }
  return docs.flatMap((d) => {
    const o = d as { kind?: unknown; items?: unknown } | null;
    return typeof o?.kind === "string" && o.kind.endsWith("List") &&
        Array.isArray(o.items)
      ? o.items
      : [d];
  }).filter((d) => d !== null && d !== undefined);
}

function isCrd(d: unknown): boolean {
  return (d as { kind?: unknown })?.kind === "CustomResourceDefinition";
}

/**
 * Split a YAML stream at its `---` document markers (a line that is `---`,
 * alone or before a comment or content); `...` ends a document.
 */
export function splitYamlDocuments(
  text: string,
): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let current: string[] = [];
  let start = 0;
  const lines = text.split(/\r?\n/);
  const flush = () => {
    if (
      current.some((l) => l.trim() !== "" && !l.trimStart().startsWith("#"))
    ) {
      out.push({ text: current.join("\n"), line: start });
    }
    current = [];
  };
  lines.forEach((line, i) => {
    if (/^---(\s|$)/.test(line)) {
      flush();
      start = i;
      const rest = line.slice(3).trim();
      current.push(rest.startsWith("#") ? "" : rest);
    } else if (/^\.\.\.\s*$/.test(line)) {
      flush();
      start = i + 1;
    } else current.push(line);
  });
  flush();
  return out;
}

/** A YAML error's message with its line counted from the file's start. */
function shiftLine(err: unknown, offset: number): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(
    /at line (\d+)/,
    (_, n) => `at line ${Number(n) + offset}`,
  );
}
