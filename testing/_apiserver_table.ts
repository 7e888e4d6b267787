/**
 * meta.k8s.io Tables and PartialObjectMetadata, the server-side
 * conversions `kubectl get` and metadata-only informers ask for. A kind's
 * columns come from its strategy (custom resources), else from kubectl's
 * printers in `client/printers.ts` (built-in kinds), else the default
 * table convertor's Name and Created At. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import {
  NAME_COLUMN,
  printerFor,
  type TableColumns,
} from "../client/printers.ts";
import type { Table } from "./_apiserver_store.ts";
import type { Entry } from "./_apiserver_types.ts";

// rest.DefaultTableConvertor: kinds without a printer.
const DEFAULT_COLUMNS: TableColumns = {
  columns: [NAME_COLUMN, {
    name: "Created At",
    type: "date",
    format: "",
    description:
      "CreationTimestamp is a timestamp representing the server time when this object was created.",
    priority: 0,
  }],
  cells: (obj) => [
    obj.metadata.name ?? "",
    obj.metadata.creationTimestamp ?? "",
  ],
};

/** The Table columns of a table's kind. */
export function columnsOf(table: Table): TableColumns {
  return table.strategy.columns ??
    printerFor(table.type.group, table.type.kind) ?? DEFAULT_COLUMNS;
}

/** What a Table row's `object` holds (`includeObject`). */
export type IncludeObject = "None" | "Metadata" | "Object";

/** How a Table is written. */
export interface TableOptions {
  /** meta.k8s.io version: `v1` or `v1beta1`. */
  version: string;
  /** The row objects: none, PartialObjectMetadata (default) or the object. */
  includeObject: IncludeObject;
  /** Server time in epoch ms (ages). */
  now: number;
}

/** A PartialObjectMetadata of an object. */
export function partialMetadata(
  obj: KubeObject,
  version: string,
): Record<string, unknown> {
  return {
    kind: "PartialObjectMetadata",
    apiVersion: `meta.k8s.io/${version}`,
    metadata: obj.metadata,
  };
}

/**
 * A meta.k8s.io Table of `items`. `withColumns` false writes
 * `columnDefinitions: null`, as a watch does after its first event.
 */
export function tableDoc(
  table: Table,
  items: readonly Entry[],
  meta: Record<string, unknown>,
  opts: TableOptions,
  withColumns = true,
): Record<string, unknown> {
  const printer = columnsOf(table);
  return {
    kind: "Table",
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata: meta,
    columnDefinitions: withColumns ? printer.columns : null,
    rows: items.map((e) => ({
      cells: printer.cells(e.obj, opts.now),
      object: opts.includeObject === "None"
        ? null
        : opts.includeObject === "Object"
        ? e.obj
        : partialMetadata(e.obj, opts.version),
    })),
  };
}
