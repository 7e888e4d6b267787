/**
 * What kubectl's printers (`printers.ts` and its `_printers_*.ts` parts)
 * share: the column and cell types, the age format, the Name and Age
 * columns and the cell helpers. `printers.ts` re-exports the public names
 * (the column types, `age`, `humanDuration`, the Name and Age columns);
 * the cell helpers are internal.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { LabelSelector, PodTemplateSpec } from "../api/types.ts";

/**
 * A Table column definition (meta.k8s.io/v1 `TableColumnDefinition`).
 *
 * @example The columns kubectl shows for pods
 * ```ts
 * import { type PrinterColumn, printerFor } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * const columns: readonly PrinterColumn[] = printerFor("", "Pod")!.columns;
 * assert.deepEqual(columns.filter((c) => c.priority === 0).map((c) => c.name), ["Name", "Ready", "Status", "Restarts", "Age"]);
 * ```
 */
export interface PrinterColumn {
  /** Column name, e.g. `"Ready"`; kubectl prints it upper-cased. */
  name: string;
  /** OpenAPI type: `string`, `integer`, `number`, `boolean` or `date`. */
  type: string;
  /** OpenAPI format, e.g. `name` for the Name column, else `""`. */
  format: string;
  /** What the column shows. */
  description: string;
  /** 0: always shown; 1 and more: only with `-o wide`. */
  priority: number;
}

/**
 * The columns of a kind and the cells of one object, one per column. Name
 * (the column with format `name`) comes first, except for events, whose
 * Name is last and only at priority 1.
 *
 * @example Cells of one object
 * ```ts
 * import { type TableColumns, printerFor } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * const cms: TableColumns = printerFor("", "ConfigMap")!;
 * const cells = cms.cells({ metadata: { name: "a", creationTimestamp: "2026-01-01T00:00:00Z" }, data: { k: "v" } } as never, Date.parse("2026-01-01T00:00:05Z"));
 * assert.deepEqual(cells, ["a", 1, "5s"]);
 * ```
 */
export interface TableColumns {
  /** The column definitions, Name first. */
  columns: readonly PrinterColumn[];
  /**
   * The cells of `obj` at time `nowMs` (epoch ms), one per column; counts
   * are numbers, as the apiserver sends them.
   */
  cells(obj: KubeObject, nowMs: number): (string | number)[];
}

/**
 * kubectl's age: `5s`, `2m30s`, `17m`, `4h10m`, `11h`, `3d2h`, `45d`, `2y10d`
 * (apimachinery `duration.HumanDuration`).
 * @param ms elapsed milliseconds
 *
 * @example kubectl's AGE column
 * ```ts
 * import { humanDuration } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * assert.equal(humanDuration(5_000), "5s");
 * assert.equal(humanDuration(150_000), "2m30s");
 * assert.equal(humanDuration(26 * 3_600_000), "26h");
 * assert.equal(humanDuration(50 * 3_600_000), "2d2h");
 * ```
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * Age of an RFC 3339 timestamp at `nowMs`, `<unknown>` when absent.
 *
 * @example The age of an object
 * ```ts
 * import { age } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * const now = Date.parse("2026-01-01T01:00:00Z");
 * assert.equal(age("2026-01-01T00:00:00Z", now), "60m");
 * assert.equal(age(undefined, now), "<unknown>");
 * ```
 */
export function age(timestamp: string | undefined, nowMs: number): string {
  if (!timestamp) return "<unknown>";
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? "<unknown>" : humanDuration(nowMs - at);
}

const NAME_DOC =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names";
const AGE_DOC =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** A column definition (`format: name` for the Name column). */
export function col(
  name: string,
  description: string,
  priority = 0,
  type = "string",
): PrinterColumn {
  return {
    name,
    type,
    format: name === "Name" ? "name" : "",
    description,
    priority,
  };
}

/**
 * The Name column (format `name`).
 *
 * @example The first column of every kubectl table
 * ```ts
 * import { NAME_COLUMN, printerFor } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * assert.equal(NAME_COLUMN.name, "Name");
 * assert.equal(NAME_COLUMN.format, "name");
 * assert.equal(printerFor("", "ConfigMap")?.columns[0], NAME_COLUMN);
 * ```
 */
export const NAME_COLUMN: PrinterColumn = col("Name", NAME_DOC);
/**
 * The Age column of built-in kinds (a string cell such as `5m`).
 *
 * @example The Age column
 * ```ts
 * import { AGE_COLUMN } from "@kubecache/core/cli";
 * import assert from "node:assert/strict";
 *
 * assert.equal(AGE_COLUMN.name, "Age");
 * assert.equal(AGE_COLUMN.priority, 0); // shown without -o wide
 * ```
 */
export const AGE_COLUMN: PrinterColumn = col("Age", AGE_DOC);

/** `<none>` for an unset or empty value. */
export const none = (v: unknown): string =>
  v === undefined || v === null || v === "" ? "<none>" : String(v);
/** The Age cell of an object. */
export const ageOf = (obj: KubeObject, now: number) =>
  age(obj.metadata.creationTimestamp, now);

/** The Containers column of a workload (priority 1). */
export const CONTAINERS: PrinterColumn = col(
  "Containers",
  "Names of each container in the template.",
  1,
);
/** The Images column of a workload (priority 1). */
export const IMAGES: PrinterColumn = col(
  "Images",
  "Images referenced by each container in the template.",
  1,
);

/**
 * The Containers and Images cells of a pod template (kubernetes
 * `layoutContainerCells`): names and images joined by commas.
 */
export function containerCells(
  template: PodTemplateSpec | undefined,
): [string, string] {
  const containers = template?.spec?.containers ?? [];
  return [
    containers.map((c) => c.name).join(","),
    containers.map((c) => c.image).join(","),
  ];
}

/**
 * A label selector as apimachinery's `labels.Selector.String()` of
 * `metav1.LabelSelectorAsSelector`: its requirements sorted by key
 * (`app=web,tier in (a,b),!legacy`), `""` when it selects by nothing,
 * undefined when an operator is unknown.
 */
export function labelSelectorString(
  selector: LabelSelector | undefined,
): string | undefined {
  const reqs: [string, string][] = Object.entries(
    selector?.matchLabels ?? {},
  ).map(([k, v]) => [k, `${k}=${v}`]);
  for (const e of selector?.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(",");
    const text = e.operator === "In"
      ? `${e.key} in (${values})`
      : e.operator === "NotIn"
      ? `${e.key} notin (${values})`
      : e.operator === "Exists"
      ? e.key
      : e.operator === "DoesNotExist"
      ? `!${e.key}`
      : undefined;
    if (text === undefined) return undefined;
    reqs.push([e.key, text]);
  }
  reqs.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return reqs.map(([, text]) => text).join(",");
}

/**
 * A label selector as text (apimachinery `metav1.FormatLabelSelector`):
 * {@link labelSelectorString}, `<none>` when it selects by nothing,
 * `<error>` when it is invalid.
 */
export function formatLabelSelector(
  selector: LabelSelector | undefined,
): string {
  const text = labelSelectorString(selector);
  return text === undefined ? "<error>" : none(text);
}
