// A strict parser of the Prometheus text exposition format 0.0.4, written
// from the format's description (prometheus/docs exposition_formats.md and
// expfmt's text parser), for the tests: it rejects what Prometheus would
// reject, and more (a family split in two, a histogram whose buckets are
// not cumulative or lack +Inf, a series written twice). Test-only.

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One family: its TYPE, HELP and samples. */
export interface Family {
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help?: string;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = "[a-zA-Z_][a-zA-Z0-9_]*";
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/** Parse `text`, throwing an Error naming the line on anything malformed. */
export function parsePrometheusText(text: string): Map<string, Family> {
  if (text !== "" && !text.endsWith("\n")) {
    throw new Error("text must end with a line feed");
  }
  const families = new Map<string, Family>();
  const finished = new Set<string>();
  const seen = new Set<string>();
  let current: string | undefined;
  const lines = text === "" ? [] : text.slice(0, -1).split("\n");
  const enter = (family: string, n: number) => {
    if (current === family) return;
    if (current !== undefined) finished.add(current);
    if (finished.has(family)) {
      throw new Error(`line ${n}: family ${family} continues after another`);
    }
    current = family;
  };
  lines.forEach((line, i) => {
    const n = i + 1;
    if (line === "") throw new Error(`line ${n}: empty line`);
    if (line.startsWith("#")) {
      const m = line.match(new RegExp(`^# (HELP|TYPE) (${NAME})(?: (.*))?$`));
      if (!m) return; // a plain comment
      const [, what, name, rest = ""] = m;
      enter(name, n);
      const fam = families.get(name) ?? { type: "untyped", samples: [] };
      if (what === "HELP") {
        if (fam.help !== undefined) throw new Error(`line ${n}: second HELP`);
        if (!/^(?:[^\\]|\\[\\n])*$/.test(rest)) {
          throw new Error(`line ${n}: bad escape in HELP`);
        }
        fam.help = rest.replace(
          /\\(\\|n)/g,
          (_, c) => c === "n" ? "\n" : "\\",
        );
      } else {
        if (!TYPES.has(rest)) throw new Error(`line ${n}: bad type ${rest}`);
        if (families.get(name)?.samples.length) {
          throw new Error(`line ${n}: TYPE after samples`);
        }
        if ((fam as { typed?: boolean }).typed) {
          throw new Error(`line ${n}: second TYPE`);
        }
        (fam as { typed?: boolean }).typed = true;
        fam.type = rest as Family["type"];
      }
      families.set(name, fam);
      return;
    }
    const m = line.match(
      new RegExp(`^(${NAME})(\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`),
    );
    if (!m) throw new Error(`line ${n}: not a sample: ${line}`);
    const [, name, , body, rawValue] = m;
    const labels = parseLabels(body ?? "", n);
    const value = parseValue(rawValue, n);
    const family = familyOf(name, families);
    enter(family, n);
    const fam = families.get(family) ?? { type: "untyped", samples: [] };
    families.set(family, fam);
    const id = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(id)) throw new Error(`line ${n}: series written twice`);
    seen.add(id);
    fam.samples.push({ name, labels, value });
  });
  for (const [name, fam] of families) {
    if (fam.type === "histogram") checkHistogram(name, fam);
    if (fam.type === "counter") {
      for (const s of fam.samples) {
        if (s.name !== name) throw new Error(`${s.name} in counter ${name}`);
        if (!(s.value >= 0)) throw new Error(`${name}: negative counter`);
      }
    }
    if (fam.type === "gauge") {
      for (const s of fam.samples) {
        if (s.name !== name) throw new Error(`${s.name} in gauge ${name}`);
      }
    }
  }
  return families;
}

function familyOf(name: string, families: Map<string, Family>): string {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const t = families.get(base)?.type;
    if (t === "histogram" || (t === "summary" && suffix !== "_bucket")) {
      return base;
    }
  }
  return name;
}

function parseLabels(body: string, n: number): Record<string, string> {
  const out: Record<string, string> = {};
  let rest = body;
  const re = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"(,|$)`);
  while (rest !== "") {
    const m = rest.match(re);
    if (!m) throw new Error(`line ${n}: bad labels {${body}}`);
    const [all, name, raw, comma] = m;
    if (name in out) throw new Error(`line ${n}: label ${name} twice`);
    out[name] = raw.replace(
      /\\(["\\n])/g,
      (_, c) => c === "n" ? "\n" : c,
    );
    rest = rest.slice(all.length);
    if (comma === "," && rest === "") break; // a trailing comma is allowed
  }
  return out;
}

function parseValue(raw: string, n: number): number {
  if (raw === "+Inf") return Infinity;
  if (raw === "-Inf") return -Infinity;
  if (raw === "NaN") return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) {
    throw new Error(`line ${n}: bad value ${raw}`);
  }
  return Number(raw);
}

function checkHistogram(name: string, fam: Family): void {
  const groups = new Map<string, Sample[]>();
  for (const s of fam.samples) {
    const { le: _le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const samples of groups.values()) {
    const buckets = samples.filter((s) => s.name === `${name}_bucket`);
    const count = samples.find((s) => s.name === `${name}_count`);
    const sum = samples.find((s) => s.name === `${name}_sum`);
    if (!count || !sum) throw new Error(`${name}: no _count or _sum`);
    let lastLe = -Infinity;
    let lastN = 0;
    for (const b of buckets) {
      if (b.labels.le === undefined) throw new Error(`${name}: bucket no le`);
      const le = parseValue(b.labels.le, 0);
      if (!(le > lastLe)) throw new Error(`${name}: le not increasing`);
      if (b.value < lastN) throw new Error(`${name}: buckets not cumulative`);
      lastLe = le;
      lastN = b.value;
    }
    if (lastLe !== Infinity) throw new Error(`${name}: no +Inf bucket`);
    if (lastN !== count.value) throw new Error(`${name}: +Inf != _count`);
  }
}
