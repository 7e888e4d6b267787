/**
 * Sharded replicas against one unsharded replica, each a separate process
 * (bench/_shard_replica.ts) on one FakeApiServer holding N ConfigMaps
 * (default 30 000):
 *
 * - per replica: resident memory (RSS) and objects received (list items
 *   and watch events as they arrive, before any client-side filter) once
 *   every replica has reconciled its share, for one unsharded replica, and
 *   for three sharded replicas with server-side filtering and without;
 * - takeover: one sharded replica is killed (SIGKILL); the time until the
 *   two survivors own half each and have reconciled everything (client-go's
 *   lease timings: 15 s lease, 2 s retry), on the wall clock.
 *
 * Run: `deno run -A bench/shard_replicas.ts [--objects 30000]`
 *
 * @module
 */
import { ConfigMaps } from "../api/resources.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";

const at = Deno.args.indexOf("--objects");
const N = at >= 0 ? Number(Deno.args[at + 1]) : 30_000;

interface Status {
  id: string;
  t: number;
  owned: number;
  moving: boolean;
  received: number;
  cached: number;
  reconciled: number;
  rss: number;
}

class Replica {
  last: Status | undefined;
  readonly child: Deno.ChildProcess;
  readonly done: Promise<void>;
  constructor(url: string, readonly id: string, unsharded: boolean) {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("./_shard_replica.ts", import.meta.url).pathname,
        url,
        id,
        ...(unsharded ? ["--unsharded"] : []),
      ],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.child = child;
    this.done = (async () => {
      let buf = "";
      for await (
        const chunk of child.stdout.pipeThrough(new TextDecoderStream())
      ) {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          try {
            this.last = JSON.parse(line);
          } catch { /* not a status line */ }
        }
      }
    })();
  }
  stop(signal: Deno.Signal = "SIGTERM") {
    try {
      this.child.kill(signal);
    } catch { /* gone */ }
  }
}

async function until(
  cond: () => boolean,
  what: string,
  ms = 300_000,
): Promise<number> {
  const from = performance.now();
  while (!cond()) {
    if (performance.now() - from > ms) {
      throw new Error(`no ${what} within ${ms} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - from;
}

const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;

async function scenario(sharded: boolean | "none"): Promise<void> {
  await using server = await FakeApiServer.start({
    shardedListAndWatch: sharded === true,
  });
  for (let i = 0; i < N; i++) {
    server.create(ConfigMaps, {
      metadata: { name: `cm-${i}`, namespace: "default" },
      data: { k: "v".repeat(200) },
    });
  }
  const ids = sharded === "none" ? ["solo"] : ["r1", "r2", "r3"];
  const rs = ids.map((id) => new Replica(server.url, id, sharded === "none"));
  const all = () =>
    rs.every((r) => r.last && !r.last.moving) &&
    rs.reduce((n, r) => n + (r.last?.reconciled ?? 0), 0) >= N;
  const took = await until(all, "full reconcile");
  const label = sharded === "none"
    ? "unsharded, 1 replica"
    : `sharded, 3 replicas, server ${
      sharded ? "filters" : "ignores the selector"
    }`;
  console.log(
    `${label}: all ${N} reconciled after ${(took / 1000).toFixed(1)} s`,
  );
  for (const r of rs) {
    const s = r.last!;
    console.log(
      `  ${s.id}: owns ${
        (s.owned * 100).toFixed(1)
      }%, received ${s.received}, reconciled ${s.reconciled}, RSS ${mb(s.rss)}`,
    );
  }
  if (sharded === true) {
    // Takeover after a kill.
    const victim = rs[1];
    const before = new Map(rs.map((r) => [r.id, r.last!.reconciled]));
    victim.stop("SIGKILL");
    const survivors = [rs[0], rs[2]];
    const moved = await until(
      () =>
        survivors.every((r) =>
          r.last && !r.last.moving && Math.abs(r.last.owned - 0.5) < 1e-3
        ),
      "takeover",
    );
    const victimKeys = before.get(victim.id)!;
    const reconciledAll = await until(
      () =>
        survivors.reduce(
          (n, r) => n + r.last!.reconciled - before.get(r.id)!,
          0,
        ) >= victimKeys,
      "reconcile of the victim's keys",
    );
    console.log(
      `  after killing ${victim.id}: survivors own half each after ${
        (moved / 1000).toFixed(1)
      } s, its ${victimKeys} keys reconciled ${
        (reconciledAll / 1000).toFixed(1)
      } s later`,
    );
  }
  for (const r of rs) r.stop();
  await Promise.all(rs.map((r) => r.child.status));
  await Promise.all(rs.map((r) => r.done));
}

await scenario("none");
await scenario(true);
await scenario(false);
