/**
 * {@link MetricsRegistry}: counters, gauges and histograms with labels,
 * written in the Prometheus text exposition format 0.0.4 (what
 * controller-runtime serves on `/metrics` through client_golang), without
 * a metrics library.
 *
 * @module
 */

import { show } from "./_check.ts";

/**
 * Label values of one series, by label name (`{ controller: "cm", result: "success" }`).
 *
 * @example Count a reconcile result
 * ```ts
 * import { type Labels, MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricsRegistry();
 * const total = registry.counter("reconciles_total", "Reconciles.", { labelNames: ["result"] });
 * const labels: Labels = { result: "success" };
 * total.with(labels).inc();
 * assert.equal(total.with(labels).get(), 1);
 * ```
 */
export type Labels = Readonly<Record<string, string>>;

/**
 * Options of {@link MetricsRegistry.counter} and
 * {@link MetricsRegistry.gauge}.
 *
 * @example A labelled gauge
 * ```ts
 * import { type MetricOptions, MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const opts: MetricOptions = { labelNames: ["name"] };
 * const depth = new MetricsRegistry().gauge("depth", "Items waiting.", opts);
 * depth.with({ name: "a" }).set(3);
 * assert.equal(depth.with({ name: "a" }).get(), 3);
 * ```
 */
export interface MetricOptions {
  /** Names of the labels every series carries, in order. Default none. */
  labelNames?: readonly string[];
}

/**
 * Options of {@link MetricsRegistry.histogram}.
 *
 * @example Buckets of a latency in seconds
 * ```ts
 * import { type HistogramOptions, MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const opts: HistogramOptions = { buckets: [0.1, 1, 10] };
 * const h = new MetricsRegistry().histogram("latency_seconds", "Latency.", opts);
 * h.observe(0.5);
 * assert.match(h.registry.expose(), /latency_seconds_bucket\{le="1"\} 1/);
 * ```
 */
export interface HistogramOptions extends MetricOptions {
  /**
   * Upper bounds of the buckets, increasing; `+Inf` is added. Default
   * client_golang's `DefBuckets` (0.005 … 10).
   */
  buckets?: readonly number[];
}

/** client_golang `prometheus.DefBuckets`. */
const DEFAULT_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type Kind = "counter" | "gauge" | "histogram";

/**
 * What every metric family has: its name, help, label names, and the
 * registry it belongs to.
 *
 * @example Read a family's shape
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const c = new MetricsRegistry().counter("x_total", "X.", { labelNames: ["a"] });
 * assert.equal(c.name, "x_total");
 * assert.deepEqual(c.labelNames, ["a"]);
 * ```
 */
export abstract class Metric<S> {
  /** The metric name, e.g. `workqueue_depth`. */
  readonly name: string;
  /** The `# HELP` text. */
  readonly help: string;
  /** Label names every series carries. */
  readonly labelNames: readonly string[];
  /** The registry this family is written by. */
  readonly registry: MetricsRegistry;
  /** Series by their label values joined with "\u0000". */
  readonly #series = new Map<string, { labels: Labels; series: S }>();

  /** @internal Use the registry's `counter`, `gauge` or `histogram`. */
  constructor(
    registry: MetricsRegistry,
    name: string,
    help: string,
    labelNames: readonly string[],
  ) {
    this.registry = registry;
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  /** @internal The Prometheus type name. */
  abstract get kind(): Kind;
  /** @internal A new series. */
  protected abstract create(): S;
  /** @internal The sample lines of one series. */
  abstract lines(series: S, labels: string): string[];

  /**
   * The series of these label values, created (at zero) on first use
   * (client_golang `With`).
   * @param labels a value for each of {@link Metric.labelNames}, and no other
   * @returns the series
   * @throws {TypeError} when a label is missing, unknown or not a string
   */
  with(labels: Labels): S {
    if (typeof labels !== "object" || labels === null) {
      throw new TypeError(
        `${this.name}.with: labels must be an object, got ${show(labels)}`,
      );
    }
    const values: string[] = [];
    for (const n of this.labelNames) {
      const v = labels[n];
      if (typeof v !== "string") {
        throw new TypeError(
          `${this.name}.with: label "${n}" must be a string, got ${show(v)}`,
        );
      }
      values.push(v);
    }
    if (Object.keys(labels).length !== this.labelNames.length) {
      const extra = Object.keys(labels).find((k) =>
        !this.labelNames.includes(k)
      );
      throw new TypeError(
        `${this.name}.with: unknown label "${extra}" (labels: ${
          this.labelNames.join(", ") || "none"
        })`,
      );
    }
    const key = values.join("\u0000");
    let entry = this.#series.get(key);
    if (!entry) {
      const own: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (own[n] = values[i]));
      entry = { labels: own, series: this.create() };
      this.#series.set(key, entry);
    }
    return entry.series;
  }

  /**
   * Forget the series of these label values (client_golang `Delete`), e.g.
   * of a controller that is gone.
   * @param labels the label values
   * @returns whether a series was removed
   * @throws {TypeError} when `labels` is not an object
   */
  remove(labels: Labels): boolean {
    if (typeof labels !== "object" || labels === null) {
      throw new TypeError(
        `${this.name}.remove: labels must be an object, got ${show(labels)}`,
      );
    }
    const key = this.labelNames.map((n) => labels[n]).join("\u0000");
    return this.#series.delete(key);
  }

  /**
   * @internal Every series, sorted as client_golang sorts them: by label
   * values, the labels taken in name order.
   */
  series(): { labels: Labels; series: S }[] {
    if (this.labelNames.length === 0 && this.#series.size === 0) {
      this.with({});
    }
    const names = [...this.labelNames].sort();
    const key = (l: Labels) => names.map((n) => l[n]).join("\u0000");
    return [...this.#series.values()].map((e) => [key(e.labels), e] as const)
      .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([, e]) => e);
  }

  /** The unlabelled series (a family without labels). */
  protected get only(): S {
    return this.with({});
  }
}

/**
 * One series of a {@link Counter}: a value that only goes up.
 *
 * @example Increment
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const s = new MetricsRegistry().counter("a_total", "A.", { labelNames: ["k"] }).with({ k: "v" });
 * s.inc();
 * s.inc(2);
 * assert.equal(s.get(), 3);
 * ```
 */
export class CounterSeries {
  #value = 0;
  /**
   * Add `by` (default 1).
   * @throws {TypeError} when `by` is not a number
   * @throws {RangeError} when `by` is negative or NaN
   */
  inc(by = 1): void {
    checkNumber("Counter.inc", "by", by);
    if (!(by >= 0)) {
      throw new RangeError(`Counter.inc: by must be >= 0, got ${show(by)}`);
    }
    this.#value += by;
  }
  /** The current value. */
  get(): number {
    return this.#value;
  }
}

/**
 * A counter family (Prometheus `counter`): a total that only goes up, such
 * as `controller_runtime_reconcile_total`.
 *
 * @example Count by label
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricsRegistry();
 * const errors = registry.counter("errors_total", "Errors.");
 * errors.inc();
 * assert.match(registry.expose(), /^errors_total 1$/m);
 * ```
 */
export class Counter extends Metric<CounterSeries> {
  /** @internal */
  get kind(): Kind {
    return "counter";
  }
  /** @internal */
  protected create(): CounterSeries {
    return new CounterSeries();
  }
  /** @internal */
  lines(s: CounterSeries, labels: string): string[] {
    return [`${this.name}${labels} ${formatValue(s.get())}`];
  }
  /**
   * Add `by` (default 1) to the unlabelled series.
   * @throws {TypeError} when `by` is not a number
   * @throws {RangeError} when `by` is negative or NaN
   */
  inc(by = 1): void {
    this.only.inc(by);
  }
  /** The unlabelled series' value. */
  get(): number {
    return this.only.get();
  }
}

/**
 * One series of a {@link Gauge}: a value that goes up and down.
 *
 * @example Set, add, subtract
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const s = new MetricsRegistry().gauge("g", "G.", { labelNames: ["k"] }).with({ k: "v" });
 * s.set(5);
 * s.inc();
 * s.dec(2);
 * assert.equal(s.get(), 4);
 * ```
 */
export class GaugeSeries {
  #value = 0;
  /**
   * Set the value.
   * @throws {TypeError} when `value` is not a number
   */
  set(value: number): void {
    checkNumber("Gauge.set", "value", value);
    this.#value = value;
  }
  /**
   * Add `by` (default 1).
   * @throws {TypeError} when `by` is not a number
   */
  inc(by = 1): void {
    checkNumber("Gauge.inc", "by", by);
    this.#value += by;
  }
  /**
   * Subtract `by` (default 1).
   * @throws {TypeError} when `by` is not a number
   */
  dec(by = 1): void {
    checkNumber("Gauge.dec", "by", by);
    this.#value -= by;
  }
  /** The current value. */
  get(): number {
    return this.#value;
  }
}

/**
 * A gauge family (Prometheus `gauge`), such as `workqueue_depth`.
 *
 * @example A gauge without labels
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricsRegistry();
 * const workers = registry.gauge("active_workers", "Workers busy.");
 * workers.set(2);
 * assert.match(registry.expose(), /^active_workers 2$/m);
 * ```
 */
export class Gauge extends Metric<GaugeSeries> {
  /** @internal */
  get kind(): Kind {
    return "gauge";
  }
  /** @internal */
  protected create(): GaugeSeries {
    return new GaugeSeries();
  }
  /** @internal */
  lines(s: GaugeSeries, labels: string): string[] {
    return [`${this.name}${labels} ${formatValue(s.get())}`];
  }
  /**
   * Set the unlabelled series.
   * @throws {TypeError} when `value` is not a number
   */
  set(value: number): void {
    this.only.set(value);
  }
  /**
   * Add `by` (default 1) to the unlabelled series.
   * @throws {TypeError} when `by` is not a number
   */
  inc(by = 1): void {
    this.only.inc(by);
  }
  /**
   * Subtract `by` (default 1) from the unlabelled series.
   * @throws {TypeError} when `by` is not a number
   */
  dec(by = 1): void {
    this.only.dec(by);
  }
  /** The unlabelled series' value. */
  get(): number {
    return this.only.get();
  }
}

/**
 * One series of a {@link Histogram}: counts of observations per bucket,
 * their sum and count.
 *
 * @example Observe
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const s = new MetricsRegistry().histogram("h", "H.", { labelNames: ["k"], buckets: [1] }).with({ k: "v" });
 * s.observe(0.5);
 * s.observe(3);
 * assert.equal(s.count(), 2);
 * assert.equal(s.sum(), 3.5);
 * ```
 */
export class HistogramSeries {
  readonly #bounds: readonly number[];
  /** Non-cumulative count per bucket; the last is `+Inf`. */
  readonly #counts: number[];
  #sum = 0;
  #count = 0;

  /** @internal */
  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.#counts = new Array(bounds.length + 1).fill(0);
  }
  /**
   * Record one observation (in the histogram's unit, seconds for `_seconds`).
   * @throws {TypeError} when `value` is not a number
   */
  observe(value: number): void {
    checkNumber("Histogram.observe", "value", value);
    // Binary search for the first bound >= value (le: less or equal).
    let lo = 0;
    let hi = this.#bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (value > this.#bounds[mid]) lo = mid + 1;
      else hi = mid;
    }
    this.#counts[lo]++;
    this.#sum += value;
    this.#count++;
  }
  /** Observations so far. */
  count(): number {
    return this.#count;
  }
  /** Sum of the observations. */
  sum(): number {
    return this.#sum;
  }
  /** @internal Cumulative counts per upper bound, `+Inf` last. */
  buckets(): [number, number][] {
    let acc = 0;
    return this.#counts.map((c, i) => {
      acc += c;
      return [i < this.#bounds.length ? this.#bounds[i] : Infinity, acc];
    });
  }
}

/**
 * A histogram family (Prometheus `histogram`), such as
 * `controller_runtime_reconcile_time_seconds`: `_bucket{le=...}`
 * (cumulative), `_sum` and `_count` lines per series.
 *
 * @example Observe durations
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricsRegistry();
 * const h = registry.histogram("work_seconds", "Work.", { buckets: [0.1, 1] });
 * h.observe(0.05);
 * h.observe(0.5);
 * const text = registry.expose();
 * assert.match(text, /^work_seconds_bucket\{le="0.1"\} 1$/m);
 * assert.match(text, /^work_seconds_bucket\{le="1"\} 2$/m);
 * assert.match(text, /^work_seconds_bucket\{le="\+Inf"\} 2$/m);
 * assert.match(text, /^work_seconds_count 2$/m);
 * ```
 */
export class Histogram extends Metric<HistogramSeries> {
  /** Upper bounds of the buckets, without `+Inf`. */
  readonly buckets: readonly number[];

  /** @internal Use {@link MetricsRegistry.histogram}. */
  constructor(
    registry: MetricsRegistry,
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ) {
    super(registry, name, help, labelNames);
    this.buckets = buckets;
  }
  /** @internal */
  get kind(): Kind {
    return "histogram";
  }
  /** @internal */
  protected create(): HistogramSeries {
    return new HistogramSeries(this.buckets);
  }
  /** @internal */
  lines(s: HistogramSeries, labels: string): string[] {
    const inner = labels === "" ? "" : `${labels.slice(1, -1)},`;
    const out = s.buckets().map(([le, n]) =>
      `${this.name}_bucket{${inner}le="${formatValue(le)}"} ${formatValue(n)}`
    );
    out.push(`${this.name}_sum${labels} ${formatValue(s.sum())}`);
    out.push(`${this.name}_count${labels} ${formatValue(s.count())}`);
    return out;
  }
  /**
   * Record one observation in the unlabelled series.
   * @throws {TypeError} when `value` is not a number
   */
  observe(value: number): void {
    this.only.observe(value);
  }
}

/**
 * A set of metric families written out together (client_golang's
 * `Registry` and its text encoder): {@link MetricsRegistry.counter},
 * {@link MetricsRegistry.gauge} and {@link MetricsRegistry.histogram}
 * create (or return, when asked again with the same shape) a family;
 * {@link MetricsRegistry.expose} writes the Prometheus text format 0.0.4
 * byte for byte as client_golang does: families sorted by name, labels by
 * name, series by label values, numbers in Go's shortest form (`1e-08`,
 * `3.7556224e+07`). A labelled family with no series yet is left out.
 *
 * Values read at scrape time (a queue's depth, an informer's sync state)
 * are set by collectors, {@link MetricsRegistry.addCollector}, run at the
 * start of every `expose()`.
 *
 * @example Count, set and expose
 * ```ts
 * import { MetricsRegistry } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricsRegistry();
 * const reconciles = registry.counter("reconcile_total", "Reconciles per result.", {
 *   labelNames: ["controller", "result"],
 * });
 * reconciles.with({ controller: "cm", result: "success" }).inc();
 * let depth = 4;
 * const gauge = registry.gauge("queue_depth", "Items waiting.");
 * registry.addCollector(() => gauge.set(depth));
 * assert.equal(registry.expose(), [
 *   "# HELP queue_depth Items waiting.",
 *   "# TYPE queue_depth gauge",
 *   "queue_depth 4",
 *   "# HELP reconcile_total Reconciles per result.",
 *   "# TYPE reconcile_total counter",
 *   'reconcile_total{controller="cm",result="success"} 1',
 *   "",
 * ].join("\n"));
 * ```
 */
export class MetricsRegistry {
  /** The `Content-Type` of {@link MetricsRegistry.expose}'s text. */
  static readonly CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  readonly #families = new Map<string, Metric<unknown>>();
  readonly #collectors = new Set<() => void>();

  /**
   * A counter family.
   * @param name metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`), by convention ending in `_total`
   * @param help one line saying what it counts
   * @param opts label names
   * @returns the family (the existing one when already registered with the same shape)
   * @throws {TypeError} on an invalid name or label name, or a name registered with another type or labels
   */
  counter(name: string, help: string, opts: MetricOptions = {}): Counter {
    return this.#register(
      "counter",
      name,
      help,
      opts,
      () => new Counter(this, name, help, this.#labels("counter", opts)),
    );
  }

  /**
   * A gauge family.
   * @param name metric name
   * @param help one line saying what it measures
   * @param opts label names
   * @returns the family
   * @throws {TypeError} as {@link MetricsRegistry.counter}
   */
  gauge(name: string, help: string, opts: MetricOptions = {}): Gauge {
    return this.#register(
      "gauge",
      name,
      help,
      opts,
      () => new Gauge(this, name, help, this.#labels("gauge", opts)),
    );
  }

  /**
   * A histogram family.
   * @param name metric name (by convention ending in the unit, `_seconds`)
   * @param help one line saying what it measures
   * @param opts label names and bucket bounds
   * @returns the family
   * @throws {TypeError} as {@link MetricsRegistry.counter}, or a label named `le`
   * @throws {RangeError} when the buckets are not increasing finite numbers
   */
  histogram(
    name: string,
    help: string,
    opts: HistogramOptions = {},
  ): Histogram {
    const buckets = opts.buckets ?? DEFAULT_BUCKETS;
    if (
      !Array.isArray(buckets) || buckets.length === 0 ||
      buckets.some((b, i) =>
        typeof b !== "number" || !Number.isFinite(b) ||
        (i > 0 && b <= buckets[i - 1])
      )
    ) {
      throw new RangeError(
        `MetricsRegistry.histogram: opts.buckets must be increasing finite numbers, got ${
          show(opts.buckets)
        }`,
      );
    }
    const labelNames = this.#labels("histogram", opts);
    if (labelNames.includes("le")) {
      throw new TypeError(
        `MetricsRegistry.histogram: label name "le" is reserved`,
      );
    }
    return this.#register(
      "histogram",
      name,
      help,
      opts,
      () => new Histogram(this, name, help, labelNames, [...buckets]),
    );
  }

  /**
   * Run `collect` at the start of every {@link MetricsRegistry.expose}, to
   * set values read at scrape time (client_golang's `Collector`).
   * @param collect sets gauges or counters; a throw is reported and the rest goes on
   * @returns a function that removes the collector
   */
  addCollector(collect: () => void): () => void {
    if (typeof collect !== "function") {
      throw new TypeError(
        `MetricsRegistry.addCollector: collect must be a function, got ${
          show(collect)
        }`,
      );
    }
    this.#collectors.add(collect);
    return () => this.#collectors.delete(collect);
  }

  /**
   * Every family in the Prometheus text exposition format 0.0.4, one
   * `# HELP`, one `# TYPE` and the sample lines per family, ending in a
   * newline. Serve it with {@link MetricsRegistry.CONTENT_TYPE}.
   * @returns the text
   */
  expose(): string {
    for (const collect of this.#collectors) {
      try {
        collect();
      } catch (err) {
        console.error("metrics: a collector threw:", err);
      }
    }
    const out: string[] = [];
    const names = [...this.#families.keys()].sort();
    for (const name of names) {
      const family = this.#families.get(name)!;
      const series = family.series();
      if (series.length === 0) continue;
      out.push(`# HELP ${name} ${escapeHelp(family.help)}`);
      out.push(`# TYPE ${name} ${family.kind}`);
      for (const { labels, series: s } of series) {
        out.push(...family.lines(s, formatLabels(family.labelNames, labels)));
      }
    }
    return out.length === 0 ? "" : out.join("\n") + "\n";
  }

  #labels(kind: Kind, opts: MetricOptions): readonly string[] {
    const call = `MetricsRegistry.${kind}`;
    if (typeof opts !== "object" || opts === null) {
      throw new TypeError(
        `${call}: opts must be an options object, got ${show(opts)}`,
      );
    }
    const names = opts.labelNames ?? [];
    if (!Array.isArray(names)) {
      throw new TypeError(
        `${call}: opts.labelNames must be an array of strings, got ${
          show(names)
        }`,
      );
    }
    for (const n of names) {
      if (typeof n !== "string" || !LABEL_RE.test(n) || n.startsWith("__")) {
        throw new TypeError(
          `${call}: label name must match [a-zA-Z_][a-zA-Z0-9_]* and not start with "__", got ${
            show(n)
          }`,
        );
      }
    }
    if (new Set(names).size !== names.length) {
      throw new TypeError(`${call}: opts.labelNames has a name twice`);
    }
    return [...names];
  }

  #register<M extends Metric<unknown>>(
    kind: Kind,
    name: string,
    help: string,
    opts: MetricOptions,
    make: () => M,
  ): M {
    const call = `MetricsRegistry.${kind}`;
    if (typeof name !== "string" || !NAME_RE.test(name)) {
      throw new TypeError(
        `${call}: name must match [a-zA-Z_:][a-zA-Z0-9_:]*, got ${show(name)}`,
      );
    }
    if (typeof help !== "string") {
      throw new TypeError(`${call}: help must be a string, got ${show(help)}`);
    }
    const existing = this.#families.get(name);
    if (existing) {
      const labels = this.#labels(kind, opts);
      if (
        existing.kind !== kind ||
        existing.labelNames.join(",") !== labels.join(",")
      ) {
        throw new TypeError(
          `${call}: "${name}" is registered already as a ${existing.kind} with labels [${
            existing.labelNames.join(", ")
          }]`,
        );
      }
      return existing as M;
    }
    const metric = make();
    this.#families.set(name, metric as Metric<unknown>);
    return metric;
  }
}

/**
 * A sample value must be a number: anything else would be written into the
 * text as it stands (`"1"` turns a `_sum` of 0 into `01`) and spoil every
 * later scrape.
 */
function checkNumber(call: string, name: string, value: unknown): void {
  if (typeof value !== "number") {
    throw new TypeError(
      `${call}: ${name} must be a number, got ${show(value)}`,
    );
  }
}

/**
 * A sample value (or bucket bound) as client_golang's text encoder writes
 * it: `strconv.AppendFloat(f, 'g', -1, 64)`, i.e. the shortest digits that
 * read back to the same number, in exponent form (`1e-08`, `3.7556224e+07`)
 * when the exponent is below -4 or at least 6, else in decimal form; `+Inf`,
 * `-Inf`, `NaN`. The same text as a Go controller's, so a query that matches
 * a bucket by its `le` string (`le="1e-08"`) works on both.
 */
function formatValue(v: number): string {
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (Number.isNaN(v)) return "NaN";
  if (v === 0) return "0";
  // toExponential() without digits gives the shortest round-trip digits,
  // as Go's shortest formatting does.
  const [mantissa, e] = v.toExponential().split("e");
  const exp = Number(e);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    const digits = String(Math.abs(exp)).padStart(2, "0");
    return `${mantissa}e${sign}${digits}`;
  }
  return String(v);
}

/**
 * `{a="x",b="y"}`, labels sorted by name as client_golang writes them
 * (whatever order they were declared in); "" without labels.
 */
function formatLabels(names: readonly string[], labels: Labels): string {
  if (names.length === 0) return "";
  return `{${
    [...names].sort().map((n) => `${n}="${escapeLabelValue(labels[n])}"`)
      .join(",")
  }}`;
}

/** Label values escape backslash, double quote and line feed (format 0.0.4). */
function escapeLabelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => c === "\n" ? "\\n" : `\\${c}`);
}

/** HELP text escapes backslash and line feed only. */
function escapeHelp(v: string): string {
  return v.replace(/[\\\n]/g, (c) => c === "\n" ? "\\n" : "\\\\");
}
