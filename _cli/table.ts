/**
 * The CLI's view of kubectl's printers (`client/printers.ts`, shared with
 * the fake API server's Tables): the columns after NAME for a kind, and a
 * tab-writer-like aligner.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { AGE_ONLY, printerFor } from "../client/printers.ts";

/** How one kind is printed: column headers and one row per object. */
export interface Columns {
  /** Headers besides NAME (NAME itself and NAMESPACE are added by the caller). */
  headers: string[];
  /**
   * Where NAME goes among `headers` (0: first), or undefined when the kind
   * shows no NAME (events unless `-o wide`: kubectl prints their name last,
   * wide only).
   */
  nameAt: number | undefined;
  /** The cells of `obj` for `headers`, at time `nowMs`. */
  cells(obj: KubeObject, nowMs: number): string[];
}

export { age, humanDuration, podSummary } from "../client/printers.ts";

/**
 * The columns kubectl shows for a kind, from the printers the fake API
 * server also serves as Tables (`client/printers.ts`): pods (READY,
 * STATUS, RESTARTS, AGE; wide adds IP, NODE, NOMINATED NODE, READINESS
 * GATES), deployments, replica sets, jobs, cron jobs, config maps,
 * secrets, services, nodes, namespaces, leases, events (LAST SEEN, TYPE,
 * REASON, OBJECT, MESSAGE); every other kind shows AGE.
 * @param kind the object kind, e.g. `"Pod"`
 * @param wide whether `-o wide` was asked for (priority > 0 columns too)
 * @param group the kind's API group; unset: the first printer of `kind`,
 *   core first
 */
export function columnsFor(
  kind: string,
  wide: boolean,
  group?: string,
): Columns {
  const printer = group !== undefined
    ? printerFor(group, kind)
    : ["", "apps", "batch", "coordination.k8s.io"].map((g) =>
      printerFor(g, kind)
    ).find((p) => p !== undefined);
  const p = printer ?? AGE_ONLY;
  // -o wide adds the priority > 0 columns; Name is printed by the caller.
  const shown: number[] = [];
  let nameAt: number | undefined;
  p.columns.forEach((c, i) => {
    if (!wide && c.priority !== 0) return;
    if (c.format === "name") nameAt = shown.length;
    else shown.push(i);
  });
  return {
    headers: shown.map((i) => p.columns[i].name.toUpperCase()),
    nameAt,
    cells: (obj, now) => {
      const all = p.cells(obj, now);
      return shown.map((i) => String(all[i]));
    },
  };
}

/**
 * Column widths like kubectl's tab writer (padding 3, minimum cell width
 * 6 with padding): each width covers the widest cell plus the padding.
 * @param rows header and data rows
 */
export function columnWidths(rows: readonly string[][]): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 6, cell.length + 3);
    });
  }
  return widths;
}

/**
 * One aligned line: each cell padded to its width, the last one unpadded.
 * A cell wider than its column pushes the rest right, as kubectl's does.
 * @param cells the cells
 * @param widths widths from {@link columnWidths}
 */
export function alignRow(
  cells: readonly string[],
  widths: readonly number[],
): string {
  let line = "";
  cells.forEach((cell, i) => {
    line += i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0, " ");
    // keep at least one space even when a cell overflows its column
    if (i < cells.length - 1 && cell.length >= (widths[i] ?? 0)) line += " ";
  });
  return line;
}
