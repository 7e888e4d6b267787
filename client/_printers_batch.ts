/**
 * kubectl's printers of batch/v1 Jobs and CronJobs (kubernetes
 * `pkg/printers/internalversion/printers.go`: `printJob`,
 * `printCronJob`), as the apiserver serves them: with the wide columns.
 * Private to client/; `printerFor` in `printers.ts` hands them out.
 *
 * @module
 */

// The column definitions, then the cell helpers.
import {
  AGE_COLUMN,
  col,
  CONTAINERS,
  IMAGES,
  NAME_COLUMN,
  type PrinterColumn,
} from "./printer_columns.ts";
import type { CronJob, Job } from "../api/types.ts";
import {
  age,
  ageOf,
  containerCells,
  formatLabelSelector,
  humanDuration,
  type TableColumns,
} from "./printer_columns.ts";

const JOB_SELECTOR: PrinterColumn = col(
  "Selector",
  "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
  1,
);

/** Whether a job has a condition of `type` with status True (`hasJobCondition`). */
function hasCondition(job: Job, type: string): boolean {
  const c = (job.status?.conditions ?? []).find((c) => c.type === type);
  return c?.status === "True";
}

/** The Job STATUS cell: Complete, Failed, Terminating, Suspended, FailureTarget or Running. */
function jobStatus(job: Job): string {
  if (hasCondition(job, "Complete")) return "Complete";
  if (hasCondition(job, "Failed")) return "Failed";
  if (job.metadata.deletionTimestamp) return "Terminating";
  if (hasCondition(job, "Suspended")) return "Suspended";
  if (hasCondition(job, "FailureTarget")) return "FailureTarget";
  return "Running";
}

/** `2/3`; without `completions`: `0/1`, or `0/1 of 4` with parallelism > 1. */
function completions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const wanted = job.spec?.completions;
  if (wanted !== undefined && wanted !== null) return `${succeeded}/${wanted}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1
    ? `${succeeded}/1 of ${parallelism}`
    : `${succeeded}/1`;
}

/** Start to completion, or to now while running; `""` before it starts. */
function duration(job: Job, now: number): string {
  const start = Date.parse(job.status?.startTime ?? "");
  if (Number.isNaN(start)) return "";
  const end = Date.parse(job.status?.completionTime ?? "");
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

/** Jobs: NAME STATUS COMPLETIONS DURATION AGE; wide: CONTAINERS IMAGES SELECTOR. */
export const JOBS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "Status of the job."),
    col(
      "Completions",
      "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
    ),
    col("Duration", "Time required to complete the job."),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    JOB_SELECTOR,
  ],
  cells: (job: Job, now) => [
    job.metadata.name ?? "",
    jobStatus(job),
    completions(job),
    duration(job, now),
    ageOf(job, now),
    ...containerCells(job.spec?.template),
    formatLabelSelector(job.spec?.selector),
  ],
};

/** `True`, `False`, or `<unset>` for an unset bool (`printBoolPtr`). */
function boolCell(value: unknown): string {
  return value === true ? "True" : value === false ? "False" : "<unset>";
}

/**
 * CronJobs: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE; wide:
 * CONTAINERS IMAGES SELECTOR (of the job template). SUSPEND is typed
 * boolean but sent as text, as the apiserver does.
 */
export const CRON_JOBS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Schedule",
      "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
    ),
    col(
      "Timezone",
      "The time zone for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will rely on the time zone of the kube-controller-manager process. ALPHA: This field is in alpha and must be enabled via the `CronJobTimeZone` feature gate.",
    ),
    col(
      "Suspend",
      "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
      0,
      "boolean",
    ),
    col(
      "Active",
      "A list of pointers to currently running jobs.",
      0,
      "integer",
    ),
    col(
      "Last Schedule",
      "Information when was the last time the job was successfully scheduled.",
    ),
    AGE_COLUMN,
    CONTAINERS,
    IMAGES,
    JOB_SELECTOR,
  ],
  cells: (cj: CronJob, now) => {
    const last = cj.status?.lastScheduleTime;
    const job = cj.spec?.jobTemplate?.spec;
    return [
      cj.metadata.name ?? "",
      cj.spec?.schedule ?? "",
      cj.spec?.timeZone ?? "<none>",
      boolCell(cj.spec?.suspend),
      (cj.status?.active ?? []).length,
      last ? age(last, now) : "<none>",
      ageOf(cj, now),
      ...containerCells(job?.template),
      formatLabelSelector(job?.selector),
    ];
  },
};
