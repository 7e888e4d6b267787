/**
 * What `watch` writes to stdout: the synced cache as a table, then one line
 * per event (time, event type, namespace/name, the kind's columns), or the
 * same as JSON lines or names.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { OutputFormat } from "./args.ts";
import { alignRow, type Columns, columnsFor, columnWidths } from "./table.ts";

/** Watch event types printed on event lines. */
export type PrintedEvent = "ADDED" | "MODIFIED" | "DELETED";

/** Options of {@link WatchPrinter}. */
export interface WatchPrinterOptions {
  /** The kind printed (selects the columns), e.g. `"Pod"`. */
  kind: string;
  /** `apiVersion` of the kind, printed with `-o json`, e.g. `"apps/v1"`. */
  apiVersion: string;
  /** Lower-case name used by `-o name`, e.g. `"pod"` or `"deployment.apps"`. */
  typeName: string;
  /** Output format. */
  output: OutputFormat;
  /** Whether objects come from every namespace (adds a NAMESPACE column). */
  allNamespaces: boolean;
  /**
   * Whether the kind is namespaced: event lines name objects
   * `namespace/name` under a NAMESPACE/NAME header, or, for a cluster-scoped
   * kind (nodes, namespaces), `name` under NAME.
   * @default {true}
   */
  namespaced?: boolean;
  /** Writes one line (without newline). */
  write: (line: string) => void;
  /** Current time in epoch ms (ages, event times). */
  now: () => number;
  /** Formats an event time. @default {local HH:MM:SS} */
  formatTime?: (ms: number) => string;
}

const localTime = (ms: number): string => {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()]
    .map((n) => String(n).padStart(2, "0"))
    .join(":");
};

/** Prints the initial table and the event lines of one watch. */
export class WatchPrinter {
  #opts: WatchPrinterOptions;
  #columns: Columns;
  #eventWidths: number[] = [];
  #formatTime: (ms: number) => string;

  /**
   * Create a printer.
   * @param opts kind, format and output
   */
  constructor(opts: WatchPrinterOptions) {
    this.#opts = opts;
    const slash = opts.apiVersion.indexOf("/");
    const group = slash < 0 ? "" : opts.apiVersion.slice(0, slash);
    this.#columns = columnsFor(opts.kind, opts.output === "wide", group);
    this.#formatTime = opts.formatTime ?? localTime;
  }

  /**
   * Print the synced objects, sorted by namespace and name: a table (or
   * JSON lines / names). Returns false when there was nothing to print.
   * @param objects the cache content
   */
  printInitial(objects: readonly KubeObject[]): boolean {
    const sorted = [...objects].sort((a, b) =>
      keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0
    );
    const { output, write } = this.#opts;
    if (output === "json") {
      for (const o of sorted) {
        write(JSON.stringify({ type: "ADDED", object: this.#typed(o) }));
      }
    } else if (output === "name") {
      for (const o of sorted) {
        write(`${this.#opts.typeName}/${o.metadata.name}`);
      }
    } else {
      this.#printTable(sorted);
    }
    return sorted.length > 0;
  }

  /**
   * Print one event line.
   * @param type the event type
   * @param obj the object (its last known state for a deletion)
   */
  printEvent(type: PrintedEvent, obj: KubeObject): void {
    const { output, write, now } = this.#opts;
    const time = this.#formatTime(now());
    if (output === "json") {
      write(JSON.stringify({ type, object: this.#typed(obj) }));
      return;
    }
    if (output === "name") {
      write(`${type} ${this.#opts.typeName}/${obj.metadata.name}`);
      return;
    }
    const cells = [
      time,
      type,
      nsName(obj),
      ...this.#columns.cells(obj, now()),
    ];
    if (this.#eventWidths.length === 0) this.#printEventHeader([cells]);
    write(alignRow(cells, this.#eventWidths));
  }

  /**
   * The object with its kind and apiVersion, which list items lack (as
   * kubectl fills them in); a shallow copy, the cached object stays as is.
   */
  #typed(obj: KubeObject): KubeObject {
    const { kind, apiVersion } = this.#opts;
    // Listed first, as the API server writes them.
    return Object.assign({ apiVersion, kind }, obj, { apiVersion, kind });
  }

  #printTable(objects: KubeObject[]): void {
    const { allNamespaces, write, now } = this.#opts;
    const { headers, nameAt, cells } = this.#columns;
    // NAME where the kind's printer has it (first, last for events -o wide,
    // nowhere for events otherwise), NAMESPACE first.
    const withName = (rest: string[], name: string) =>
      nameAt === undefined
        ? rest
        : [...rest.slice(0, nameAt), name, ...rest.slice(nameAt)];
    const header = [
      ...(allNamespaces ? ["NAMESPACE"] : []),
      ...withName(headers, "NAME"),
    ];
    const rows = objects.map((o) => [
      ...(allNamespaces ? [o.metadata.namespace ?? ""] : []),
      ...withName(cells(o, now()), o.metadata.name ?? ""),
    ]);
    // Nothing synced: print nothing (the caller says "No resources found."
    // as kubectl does); the first event then brings its header.
    if (rows.length === 0) return;
    const widths = columnWidths([header, ...rows]);
    for (const row of [header, ...rows]) write(alignRow(row, widths));
    // Event lines get their own header, after a blank line, sized by the
    // objects seen so far so later lines line up with it.
    const t = this.#formatTime(now());
    write("");
    this.#printEventHeader(objects.map((o) => [
      t,
      "MODIFIED",
      nsName(o),
      ...this.#columns.cells(o, now()),
    ]));
  }

  #printEventHeader(sample: string[][]): void {
    const header = [
      "TIME",
      "EVENT",
      this.#opts.namespaced === false ? "NAME" : "NAMESPACE/NAME",
      ...this.#columns.headers,
    ];
    this.#eventWidths = columnWidths([header, ...sample]);
    // "CrashLoopBackOff" and "1 (5s ago)" are common later: leave room.
    const status = this.#columns.headers.indexOf("STATUS");
    if (status >= 0) {
      this.#eventWidths[3 + status] = Math.max(
        this.#eventWidths[3 + status],
        20,
      );
    }
    const restarts = this.#columns.headers.indexOf("RESTARTS");
    if (restarts >= 0) {
      this.#eventWidths[3 + restarts] = Math.max(
        this.#eventWidths[3 + restarts],
        14,
      );
    }
    this.#opts.write(alignRow(header, this.#eventWidths));
  }
}

function nsName(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : name ?? "";
}

function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name ?? ""}`;
}
