/**
 * `cli.ts shards --name N`: who owns what in a shard group, read from its
 * member Leases. Internal to the CLI.
 *
 * @module
 */

import { Leases } from "../api/resources.ts";
import type { Lease } from "../api/types.ts";
import type { KubeClient } from "../client/rest.ts";
import {
  SHARD_GROUP_LABEL,
  SHARD_RANGES_ANNOTATION,
} from "../controller/sharding.ts";
import type { ShardsArgs } from "./args.ts";

/** What `shards` needs from the CLI. */
export interface ShardsContext {
  stdout: (line: string) => void;
  stderr: (text: string) => void;
  signal: AbortSignal;
  now: () => number;
  describe: (err: unknown) => string;
}

const SPACE = 1n << 64n;

/** The part of the space `ranges` (the annotation's form) covers, as a percentage. */
function share(ranges: string): string {
  let n = 0n;
  for (const part of ranges.split(",")) {
    const m = /^(0x[0-9a-f]+)-(0x[0-9a-f]+)$/.exec(part.trim());
    if (m) n += BigInt(m[2]) - BigInt(m[1]);
  }
  return `${(Number((n * 10_000n) / SPACE) / 100).toFixed(2)}%`;
}

/**
 * Print the members of the group: identity, state (`live`, `released`, or
 * `expired` when its renewTime is older than its duration by this
 * machine's clock), claimed ranges, their share, and the age of the renew.
 * @returns the exit code
 */
export async function shards(
  args: ShardsArgs,
  client: KubeClient,
  ctx: ShardsContext,
): Promise<number> {
  const namespace = args.namespace ?? client.config.namespace ?? "default";
  let leases: Lease[];
  try {
    const list = await client.list(Leases, {
      namespace,
      labelSelector: `${SHARD_GROUP_LABEL}=${args.name}`,
      signal: ctx.signal,
    });
    leases = list.items as Lease[];
  } catch (err) {
    ctx.stderr(`error: ${ctx.describe(err)}\n`);
    return 1;
  }
  if (leases.length === 0) {
    ctx.stderr(
      `No members of shard group "${args.name}" in namespace "${namespace}".\n`,
    );
    return 0;
  }
  const rows = [["IDENTITY", "STATE", "SHARE", "RANGES", "RENEWED"]];
  const now = ctx.now();
  const sorted = [...leases].sort((a, b) =>
    (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "")
  );
  for (const l of sorted) {
    const holder = l.spec?.holderIdentity ?? "";
    const renew = l.spec?.renewTime ? Date.parse(l.spec.renewTime) : NaN;
    const duration = (l.spec?.leaseDurationSeconds ?? 0) * 1000;
    const state = holder === ""
      ? "released"
      : now > renew + duration
      ? "expired"
      : "live";
    const ranges = holder === ""
      ? ""
      : l.metadata.annotations?.[SHARD_RANGES_ANNOTATION] ?? "";
    const age = Number.isNaN(renew)
      ? "<unknown>"
      : `${Math.max(0, Math.round((now - renew) / 1000))}s`;
    const identity = holder ||
      (l.metadata.name ?? "").slice(args.name.length + 1);
    rows.push([identity, state, share(ranges), ranges || "<none>", age]);
  }
  const widths = rows[0].map((_, i) =>
    Math.max(...rows.map((r) => r[i].length))
  );
  for (const r of rows) {
    ctx.stdout(r.map((c, i) => c.padEnd(widths[i])).join("   ").trimEnd());
  }
  return 0;
}
