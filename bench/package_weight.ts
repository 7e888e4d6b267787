/**
 * What the typed built-in kinds cost a script: the module count and bytes
 * `deno info` reports for `mod.ts` and for README's Quick start, and the
 * Quick start's cold type-check time (a fresh DENO_DIR each run, so nothing
 * is cached), side by side with the Quick start importing every group
 * module as well (what putting every kind at the root would cost), and
 * optionally with another checkout (`--base DIR`, e.g. a `git archive` of an
 * earlier commit). Runs alternate between the variants; the table gives
 * median and min seconds.
 *
 * ```sh
 * deno run -A bench/package_weight.ts [--runs 5] [--base /tmp/kubecache-before]
 * ```
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const runs = Number(arg("--runs") ?? 3);
const base = arg("--base");

/** README's Quick start, as the user saves it. */
function quickStart(checkout: string): string {
  const readme = Deno.readTextFileSync(`${checkout}/README.md`);
  const section = readme.slice(
    readme.indexOf("## Quick start"),
    readme.indexOf("\n## ", readme.indexOf("## Quick start") + 3),
  );
  const from = section.indexOf("```ts\n") + 6;
  return section.slice(from, section.indexOf("```", from));
}

/** The Quick start plus a type import of every group/version module. */
function withEveryGroup(checkout: string): string {
  const denoJson = JSON.parse(
    Deno.readTextFileSync(`${checkout}/deno.json`),
  );
  const groups = Object.keys(denoJson.exports).filter((k) =>
    k.startsWith("./api/")
  );
  return quickStart(checkout) +
    groups.map((g, i) =>
      `import type * as _g${i} from "@kubecache/core${g.slice(1)}";\n`
    ).join("");
}

/** GNU time, when installed: the child's CPU seconds (user + system). */
const TIME = "/usr/bin/time";
const hasTime = (() => {
  try {
    return Deno.statSync(TIME).isFile;
  } catch {
    return false;
  }
})();

/**
 * Run deno; wall milliseconds, and CPU milliseconds under GNU time (less
 * moved by other work on a shared machine than wall time).
 */
async function run(args: string[], cwd: string, env = {}, cpu = false) {
  const t0 = performance.now();
  const timed = cpu && hasTime;
  const out = await new Deno.Command(timed ? TIME : Deno.execPath(), {
    args: timed ? ["-f", "cpu %U %S", Deno.execPath(), ...args] : args,
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  const err = new TextDecoder().decode(out.stderr);
  if (out.code !== 0) {
    throw new Error(`deno ${args.join(" ")} in ${cwd}: ${err}`);
  }
  const m = /cpu ([0-9.]+) ([0-9.]+)\s*$/.exec(err);
  const cpuMs = m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN;
  return { ms, cpuMs, text: new TextDecoder().decode(out.stdout) };
}

/** `deno info`'s module count and size of a module. */
async function info(file: string, cwd: string): Promise<string> {
  const { text } = await run(["info", "--json", file], cwd);
  const graph = JSON.parse(text) as {
    modules: { specifier: string; size?: number }[];
  };
  const local = graph.modules.filter((m) => m.specifier.startsWith("file:"));
  const bytes = local.reduce((n, m) => n + (m.size ?? 0), 0);
  return `${local.length} modules, ${(bytes / 1024).toFixed(0)} KiB`;
}

interface Variant {
  name: string;
  checkout: string;
  file: string;
  times: number[];
  cpu: number[];
}

const variants: Variant[] = [];
const files: string[] = [];
for (const [name, checkout] of [["this", ROOT], ["base", base]] as const) {
  if (checkout === undefined) continue;
  const qs = `${checkout}/.package_weight_quickstart.ts`;
  Deno.writeTextFileSync(qs, quickStart(checkout));
  files.push(qs);
  variants.push({
    name: `${name}: Quick start`,
    checkout,
    file: qs,
    times: [],
    cpu: [],
  });
  if (name === "this") {
    const all = `${checkout}/.package_weight_all.ts`;
    Deno.writeTextFileSync(all, withEveryGroup(checkout));
    files.push(all);
    variants.push({
      name: `${name}: Quick start + every group`,
      checkout,
      file: all,
      times: [],
      cpu: [],
    });
  }
}
try {
  for (const v of variants) {
    const mod = await info("mod.ts", v.checkout);
    const qs = await info(v.file, v.checkout);
    console.log(`${v.name}: mod.ts ${mod}; script ${qs}`);
  }
  for (let i = 0; i < runs; i++) {
    for (const v of variants) {
      const denoDir = await Deno.makeTempDir({ prefix: "kubecache-weight-" });
      try {
        const { ms, cpuMs } = await run(["check", v.file], v.checkout, {
          DENO_DIR: denoDir,
        }, true);
        v.times.push(ms);
        v.cpu.push(cpuMs);
      } finally {
        await Deno.remove(denoDir, { recursive: true });
      }
    }
  }
  const stats = (xs: number[]) => {
    const t = [...xs].sort((a, b) => a - b);
    const s = (ms: number) => (ms / 1000).toFixed(2);
    return `${s(t[Math.floor(t.length / 2)])} | ${s(t[0])}`;
  };
  console.log(
    "\n| cold `deno check` | wall median s | wall min s | CPU median s | CPU min s |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const v of variants) {
    console.log(`| ${v.name} | ${stats(v.times)} | ${stats(v.cpu)} |`);
  }
} finally {
  for (const f of files) await Deno.remove(f).catch(() => {});
}
