/**
 * Peak memory of an informer whose one handler is blocked while a burst of
 * watch events arrives, with and without `maxPending` on its registration.
 * The pods come from the compare bench's server (bench/compare/_server.ts)
 * in a process of its own, so only the client's memory is measured; each
 * client is a fresh process. The handler blocks until the burst has been
 * read as far as the client will read it (every event without a bound; up
 * to the bound with one), then works through the rest at once.
 *
 * Usage: deno run -A bench/listener_bound.ts [--events 50000] [--pods 1000]
 *          [--max-pending 1000] [--reps 1]
 * Prints one JSON line per client run, then a summary line.
 *
 * @module
 */

import { peakRssMB } from "./compare/_rss.ts";

const here = new URL("./", import.meta.url);

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

// ---- the client process ----

if (Deno.args.includes("--client")) {
  const { KubeClient, KubeConfig, listWatch, newSharedIndexInformer, Pods } =
    await import("../mod.ts");
  const url = flag("--url", "");
  const control = flag("--control", "");
  const events = Number(flag("--events", "50000"));
  const maxPending = Number(flag("--max-pending", "0"));
  await using client = new KubeClient(KubeConfig.fromOptions({ server: url }));
  const informer = newSharedIndexInformer(listWatch(client, Pods));
  const release = Promise.withResolvers<void>();
  let blocked = true;
  let seen = 0;
  informer.addEventHandler({
    onUpdate: async () => {
      if (blocked) await release.promise;
      seen++;
    },
  }, { name: "slow", ...(maxPending > 0 ? { maxPending } : {}) });
  const run = new AbortController();
  const done = informer.run(run.signal);
  while (!informer.hasSynced()) await new Promise((r) => setTimeout(r, 20));
  const rssAtSync = Math.round(Deno.memoryUsage().rss / 2 ** 20);
  const started = performance.now();
  // The server writes the burst to the open watch (retry while it opens).
  while ((await fetch(`${control}/modify?count=${events}`)).status === 409) {
    await new Promise((r) => setTimeout(r, 50));
  }
  // Blocked phase: until the watch has been read as far as it will be
  // (the buffer stops growing for a second).
  let last = -1;
  let still = 0;
  let held = 0;
  while (still < 10) {
    await new Promise((r) => setTimeout(r, 100));
    held = informer.health()!.listeners[0].pending;
    still = held === last ? still + 1 : 0;
    last = held;
    if (held >= events - 1) break;
  }
  blocked = false;
  release.resolve();
  while (seen < events) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - started) / 1000;
  run.abort();
  await done;
  console.log(JSON.stringify({
    maxPending,
    events,
    heldWhileBlocked: held,
    rssAtSyncMB: rssAtSync,
    peakRssMB: peakRssMB(),
    seconds: Number(seconds.toFixed(2)),
  }));
  Deno.exit(0);
}

// ---- the orchestrator ----

const events = flag("--events", "50000");
const pods = flag("--pods", "1000");
const bound = flag("--max-pending", "1000");
const reps = Number(flag("--reps", "1"));

const server = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--no-lock",
    "-A",
    new URL("compare/_server.ts", here).pathname,
    "--pods",
    pods,
  ],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
let head = "";
while (!head.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the bench server exited early");
  head += value;
}
const { url, control } = JSON.parse(head.split("\n")[0]);

const results: Record<string, number[]> = { unbounded: [], bounded: [] };
try {
  for (let rep = 0; rep < reps; rep++) {
    // Alternated, each a fresh process.
    for (const maxPending of ["0", bound]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-lock",
          "-A",
          new URL(import.meta.url).pathname,
          "--client",
          "--url",
          url,
          "--control",
          control,
          "--events",
          events,
          "--max-pending",
          maxPending,
        ],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      const line = new TextDecoder().decode(out.stdout).trim();
      console.log(line);
      const r = JSON.parse(line);
      results[maxPending === "0" ? "unbounded" : "bounded"].push(r.peakRssMB);
    }
  }
} finally {
  await server.stdin.close();
  await reader.cancel();
  await server.status;
}
console.log(JSON.stringify({
  events: Number(events),
  pods: Number(pods),
  maxPending: Number(bound),
  peakRssMB: results,
  ratio: Number(
    (Math.max(...results.bounded) / Math.min(...results.unbounded)).toFixed(2),
  ),
}));
