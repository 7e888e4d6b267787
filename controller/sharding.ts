/**
 * Shard membership over Leases: {@link ShardMembership} splits the 64-bit
 * hash space of server-side sharded list and watch between the live
 * replicas of a controller, one member Lease per replica, and hands a
 * range to a new owner only after its previous owner released it or its
 * Lease expired.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import type { KubeClient } from "../client/rest.ts";
import { Leases } from "../api/resources.ts";
import type { Lease } from "../api/types.ts";
import { shardRange, shardSelector } from "../api/shard_selector.ts";
import type { ShardField } from "../api/shard_selector.ts";
import { shardHash } from "../api/shard_selector.ts";
import { LeaderElector } from "../leaderelection/leader_elector.ts";
import { LeaseLock } from "../leaderelection/lease_lock.ts";
import {
  checkClock,
  checkDuration,
  checkName,
  checkOptions,
  errorMessage,
  isDnsSubdomain,
  show,
} from "./_check.ts";

/**
 * The label on every member Lease of a group: its `name`.
 *
 * @example List a group's member Leases
 * ```ts
 * import { SHARD_GROUP_LABEL } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * assert.equal(`${SHARD_GROUP_LABEL}=widgets`, "sharding.kubecache.dev/group=widgets");
 * ```
 */
export const SHARD_GROUP_LABEL = "sharding.kubecache.dev/group";
/**
 * The annotation a member publishes the ranges it claims in, with every
 * renew: `0x<start>-0x<end>` pairs joined by commas.
 *
 * @example Read a member's claim
 * ```ts
 * import { SHARD_RANGES_ANNOTATION } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const annotations = { [SHARD_RANGES_ANNOTATION]: "0x0-0x8000000000000000" };
 * assert.equal(annotations["sharding.kubecache.dev/ranges"].split("-")[1], "0x8000000000000000");
 * ```
 */
export const SHARD_RANGES_ANNOTATION = "sharding.kubecache.dev/ranges";

const SPACE = 1n << 64n;

/**
 * A range `[start, end)` of the 64-bit hash space (`end` at most 2^64).
 *
 * @example The whole space
 * ```ts
 * import type { HashRange } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const all: HashRange = { start: 0n, end: 2n ** 64n };
 * assert.equal(all.end - all.start, 18446744073709551616n);
 * ```
 */
export interface HashRange {
  /** Inclusive. */
  start: bigint;
  /** Exclusive. */
  end: bigint;
}

/**
 * Options of shard membership (the Manager's `sharding`): durations in ms,
 * as leader election's, with the same meaning for the member Lease.
 *
 * @example
 * ```ts
 * import type { ShardingOptions } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const opts: ShardingOptions = { name: "widgets", namespace: "kube-system", identity: "pod-0" };
 * assert.equal(opts.leaseDuration ?? 15_000, 15_000);
 * ```
 */
export interface ShardingOptions {
  /** The group's name: member Leases are `<name>-<identity>`, labelled with it. */
  name: string;
  /** Namespace of the member Leases. */
  namespace: string;
  /**
   * This replica's identity, unique in the group; ranges are assigned in
   * the order of identities. Default: the hostname (lowercased) and 8
   * random hex digits.
   */
  identity?: string;
  /** How long others wait after the last renew they observed before the Lease is expired. Default 15 000. */
  leaseDuration?: number;
  /** A member that has not renewed within this stops owning anything. Default 10 000. */
  renewDeadline?: number;
  /** Renew and membership check period. Default 2 000. */
  retryPeriod?: number;
}

/**
 * Options of {@link ShardMembership} beyond {@link ShardingOptions}.
 *
 * @example
 * ```ts
 * import type { ShardMembershipOptions } from "@kubecache/core/controller";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const opts: ShardMembershipOptions = { name: "w", namespace: "default", clock: new FakeClock() };
 * assert.equal(opts.clock?.now(), 0);
 * ```
 */
export interface ShardMembershipOptions extends ShardingOptions {
  /** Time source of renewals and expiry. Default: the real clock. */
  clock?: Clock;
}

/**
 * Told whenever the ranges a member owns change; the member waits for the
 * returned promise before it publishes a release, so a listener that stops
 * work on the ranges it lost (and waits for work in flight) finishes
 * before another member can take them.
 *
 * @example Log each change
 * ```ts
 * import type { ShardListener } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const seen: number[] = [];
 * const listener: ShardListener = (owned) => {
 *   seen.push(owned.length);
 * };
 * await listener([{ start: 0n, end: 1n }]);
 * assert.deepEqual(seen, [1]);
 * ```
 */
export type ShardListener = (
  owned: readonly HashRange[],
) => void | Promise<void>;

// ---- range sets ---------------------------------------------------------------

/** Sorted, disjoint, non-adjacent ranges. */
function normalize(rs: readonly HashRange[]): HashRange[] {
  const sorted = rs.filter((r) => r.start < r.end).sort((a, b) =>
    a.start < b.start ? -1 : a.start > b.start ? 1 : 0
  );
  const out: HashRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) {
      if (r.end > last.end) last.end = r.end;
    } else out.push({ start: r.start, end: r.end });
  }
  return out;
}

function subtract(
  a: readonly HashRange[],
  b: readonly HashRange[],
): HashRange[] {
  let out = normalize(a);
  for (const cut of normalize(b)) {
    const next: HashRange[] = [];
    for (const r of out) {
      if (cut.end <= r.start || cut.start >= r.end) {
        next.push(r);
        continue;
      }
      if (r.start < cut.start) next.push({ start: r.start, end: cut.start });
      if (cut.end < r.end) next.push({ start: cut.end, end: r.end });
    }
    out = next;
  }
  return out;
}

function intersect(
  a: readonly HashRange[],
  b: readonly HashRange[],
): HashRange[] {
  return subtract(a, subtract(a, b));
}

function sameRanges(a: readonly HashRange[], b: readonly HashRange[]): boolean {
  const x = normalize(a), y = normalize(b);
  return x.length === y.length &&
    x.every((r, i) => r.start === y[i].start && r.end === y[i].end);
}

function size(rs: readonly HashRange[]): bigint {
  return normalize(rs).reduce((n, r) => n + r.end - r.start, 0n);
}

/** `0x…-0x…,…`: the annotation's form. */
function formatRanges(rs: readonly HashRange[]): string {
  return normalize(rs).map((r) =>
    `0x${r.start.toString(16)}-0x${r.end.toString(16)}`
  ).join(",");
}

function parseRanges(s: string | undefined): HashRange[] {
  if (!s) return [];
  const out: HashRange[] = [];
  for (const part of s.split(",")) {
    const m = /^(0x[0-9a-f]+)-(0x[0-9a-f]+)$/.exec(part.trim());
    if (!m) continue;
    const start = BigInt(m[1]), end = BigInt(m[2]);
    if (start < end && end <= SPACE) out.push({ start, end });
  }
  return normalize(out);
}

/**
 * The contiguous range of member `index` of `count`: the hash space cut
 * into `count` equal parts, in the order of the members' identities.
 *
 * @param index the member's position among the sorted live members
 * @param count how many live members there are
 * @returns its range
 * @throws {RangeError} when `index` is not in [0, count)
 *
 * @example Three replicas
 * ```ts
 * import { shareOf } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(shareOf(0, 3), { start: 0n, end: 6148914691236517205n });
 * assert.equal(shareOf(2, 3).end, 2n ** 64n);
 * ```
 */
export function shareOf(index: number, count: number): HashRange {
  if (
    !Number.isInteger(count) || count < 1 || !Number.isInteger(index) ||
    index < 0 || index >= count
  ) {
    throw new RangeError(
      `shareOf: index must be an integer in [0, count), got ${show(index)} of ${
        show(count)
      }`,
    );
  }
  const n = BigInt(count), i = BigInt(index);
  return { start: (SPACE * i) / n, end: (SPACE * (i + 1n)) / n };
}

/**
 * The shard selector of `ranges` for server-side sharded list and watch
 * (`ListOptions.shardSelector`), or `undefined` when there are none.
 *
 * @param ranges hash ranges
 * @param field the hashed field (default the uid)
 * @returns `shardRange(...)` terms joined by `||`
 *
 * @example
 * ```ts
 * import { selectorOf } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   selectorOf([{ start: 0n, end: 2n ** 63n }]),
 *   "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
 * );
 * assert.equal(selectorOf([]), undefined);
 * ```
 */
export function selectorOf(
  ranges: readonly HashRange[],
  field: ShardField = "object.metadata.uid",
): string | undefined {
  const rs = normalize(ranges);
  if (rs.length === 0) return undefined;
  return shardSelector(...rs.map((r) => shardRange(field, r.start, r.end)));
}

/** Whether `value`'s 64-bit FNV-1a hash is in `ranges`. */
function inRanges(ranges: readonly HashRange[], value: string): boolean {
  const h = BigInt("0x" + shardHash(value));
  for (const r of ranges) if (h >= r.start && h < r.end) return true;
  return false;
}

// ---- membership ---------------------------------------------------------------

/** One member Lease as observed: for expiry on this member's own clock. */
interface Observed {
  raw: string;
  at: number;
}

/** A live member as read from its Lease. */
interface Member {
  identity: string;
  claimed: HashRange[];
}

function defaultIdentity(): string {
  let host = "kubecache";
  try {
    host = Deno.hostname().toLowerCase().replace(/[^-a-z0-9.]/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "") || host;
  } catch {
    // no --allow-sys: the random part alone keeps replicas apart
  }
  return `${host}-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * Shard membership of one replica (what the Manager's `sharding` option
 * runs). The replica holds a member Lease `<name>-<identity>` labelled
 * with the group, renewed by a {@link LeaderElector} exactly as leader
 * election renews its Lease; the live members, sorted by identity, cut the
 * 64-bit hash space into equal contiguous ranges, one each
 * ({@link shareOf}).
 *
 * A range changes hands safely: a member publishes the ranges it claims in
 * an annotation written with every renew, owns a claimed range only after a
 * read that began after that write found no other live member claiming
 * any of it, and drops a range (telling its listeners and waiting for them)
 * before its next renew publishes the release. A member whose Lease is
 * expired on the observer's clock (no change seen for `leaseDuration`) or
 * released (`holderIdentity` empty) claims nothing; a member that cannot
 * renew within `renewDeadline` owns nothing from that instant. So no hash
 * is owned by two members at once, provided the members' clocks advance at
 * the same rate to within the margin `leaseDuration - renewDeadline` and
 * work stops within that margin (docs/sharding.md states the argument).
 *
 * Nothing in client-go or controller-runtime does this; kube-state-metrics
 * and others shard by a fixed replica count from a StatefulSet ordinal.
 *
 * @example Two replicas split the space
 * ```ts
 * import { ShardMembership } from "@kubecache/core/controller";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer, FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
 * const stop = new AbortController();
 * const members = ["a", "b"].map((identity) =>
 *   new ShardMembership(client, { name: "demo", namespace: "default", identity, clock })
 * );
 * const runs = members.map((m) => m.run(stop.signal));
 * // Renewals and checks run every retryPeriod (2 s) on the clock.
 * for (let i = 0; i < 200 && members.some((m) => m.moving() || m.ownedFraction() === 0); i++) {
 *   await clock.step(500);
 *   await new Promise((r) => setTimeout(r, 5));
 * }
 * assert.deepEqual(members.map((m) => m.ownedFraction()), [0.5, 0.5]);
 * stop.abort();
 * await Promise.all(runs);
 * ```
 */
export class ShardMembership {
  /** This member's identity. */
  readonly identity: string;
  /** The group's name. */
  readonly name: string;
  /** The member Leases' namespace. */
  readonly namespace: string;
  readonly #client: Pick<KubeClient, "get" | "create" | "update" | "list">;
  readonly #clock: Clock;
  readonly #leaseDuration: number;
  readonly #retryPeriod: number;
  readonly #elector: LeaderElector;
  readonly #listeners = new Set<ShardListener>();
  #observed = new Map<string, Observed>();
  /** Live members as last read (this one included while it holds its Lease). */
  #members: string[] = [];
  #desired: HashRange[] = [];
  #claimed: HashRange[] = [];
  #owned: HashRange[] = [];
  /** The claim in the last write that reached the server, and its number. */
  #published: HashRange[] = [];
  #publishSeq = 0;
  #reshards = 0;
  #lastError = "";
  #running: Promise<void> | undefined;

  /**
   * Create the membership (no request yet; {@link ShardMembership.run} joins).
   * @param client reads and writes Leases
   * @param opts group name, namespace, identity, Lease timings, clock
   * @throws {TypeError} for a missing name or namespace, a bad clock
   * @throws {RangeError} when `<name>-<identity>` is not a valid Lease name,
   *   or `renewDeadline` is not below `leaseDuration`
   */
  constructor(
    client: Pick<KubeClient, "get" | "create" | "update" | "list">,
    opts: ShardMembershipOptions,
  ) {
    const call = "new ShardMembership";
    checkOptions(call, "opts", opts);
    checkName(call, "opts.name", opts.name);
    checkName(call, "opts.namespace", opts.namespace);
    if (opts.identity !== undefined) {
      checkName(call, "opts.identity", opts.identity);
    }
    checkDuration(call, "opts.leaseDuration", opts.leaseDuration);
    checkDuration(call, "opts.renewDeadline", opts.renewDeadline);
    checkDuration(call, "opts.retryPeriod", opts.retryPeriod);
    checkClock(call, "opts.clock", opts.clock);
    this.name = opts.name;
    this.namespace = opts.namespace;
    this.identity = opts.identity ?? defaultIdentity();
    const leaseName = `${opts.name}-${this.identity}`;
    if (!isDnsSubdomain(leaseName)) {
      throw new RangeError(
        `${call}: "<name>-<identity>" must be a valid Lease name (lowercase letters, digits, '-' and '.'), got ${
          show(leaseName)
        }`,
      );
    }
    this.#client = client;
    this.#clock = opts.clock ?? realClock;
    this.#leaseDuration = opts.leaseDuration ?? 15_000;
    const renewDeadline = opts.renewDeadline ?? 10_000;
    this.#retryPeriod = opts.retryPeriod ?? 2_000;
    if (renewDeadline >= this.#leaseDuration) {
      throw new RangeError(
        `${call}: opts.renewDeadline must be below opts.leaseDuration, got ${renewDeadline} and ${this.#leaseDuration}`,
      );
    }
    const lock = new MemberLock({
      client,
      namespace: opts.namespace,
      name: leaseName,
      identity: this.identity,
      labels: { [SHARD_GROUP_LABEL]: opts.name },
      annotations: () => ({
        [SHARD_RANGES_ANNOTATION]: formatRanges(this.#claimed),
      }),
    }, (claim) => {
      this.#published = claim;
      this.#publishSeq++;
    }, () => this.#claimed);
    this.#elector = new LeaderElector({
      lock,
      name: leaseName,
      leaseDuration: this.#leaseDuration,
      renewDeadline,
      retryPeriod: this.#retryPeriod,
      releaseOnCancel: true,
      clock: this.#clock,
      callbacks: {
        onStartedLeading: (signal) => this.#work(signal),
        onStoppedLeading: () => {},
      },
    });
  }

  /**
   * Join the group and take part until `signal` aborts: hold the member
   * Lease, follow membership, claim and release ranges. On abort, owned
   * ranges are dropped (listeners awaited) and the Lease released, so the
   * others take over at once. If the Lease cannot be renewed, ownership
   * ends at once and the member campaigns for its Lease again.
   * @param signal stops it
   * @returns once stopped and released
   */
  run(signal: AbortSignal): Promise<void> {
    this.#running ??= (async () => {
      try {
        while (!signal.aborted) {
          await this.#elector.run(signal).catch((err) => {
            this.#lastError = errorMessage(err);
          });
          if (signal.aborted) break;
          // Lost the Lease (could not renew): wait a period, then rejoin.
          await this.#clock.sleep(this.#retryPeriod, signal).catch(() => {});
        }
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  /**
   * Be told whenever the owned ranges change (see {@link ShardListener}).
   * @param listener called with the owned ranges
   * @returns a function that removes it
   */
  subscribe(listener: ShardListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The ranges this member owns now (sorted). */
  owned(): readonly HashRange[] {
    return this.#owned;
  }

  /** The shard selector of the owned ranges; `undefined` while it owns none. */
  selector(field: ShardField = "object.metadata.uid"): string | undefined {
    return selectorOf(this.#owned, field);
  }

  /**
   * Whether this member owns the hash of `value` (an object's uid, or for
   * owned objects the owner's uid).
   */
  owns(value: string): boolean {
    return this.#owned.length > 0 && inRanges(this.#owned, value);
  }

  /** Whether the owned ranges differ from this member's share (a range is moving). */
  moving(): boolean {
    return !sameRanges(this.#owned, this.#desired) ||
      this.#desired.length === 0;
  }

  /** The live members as last read, sorted by identity. */
  members(): readonly string[] {
    return this.#members;
  }

  /** The owned part of the hash space, in [0, 1]. */
  ownedFraction(): number {
    return Number(size(this.#owned) * 1_000_000n / SPACE) / 1_000_000;
  }

  /** How many times the owned ranges changed. */
  reshards(): number {
    return this.#reshards;
  }

  /** The last error reading members or renewing ("" if none). */
  lastError(): string {
    return this.#lastError;
  }

  /** While the member Lease is held: check membership every retryPeriod. */
  async #work(signal: AbortSignal): Promise<void> {
    try {
      while (!signal.aborted) {
        try {
          await this.#tick(signal);
        } catch (err) {
          if (!signal.aborted) this.#lastError = errorMessage(err);
        }
        try {
          await this.#clock.sleep(this.#retryPeriod / 2, signal);
        } catch {
          break;
        }
      }
    } finally {
      // Lost or stopping: own nothing, and let the work on it stop first
      // (the release is written after this returns).
      this.#desired = [];
      this.#claimed = [];
      await this.#setOwned([]);
      this.#members = this.#members.filter((m) => m !== this.identity);
    }
  }

  /** One membership check: read the members, release, claim, take. */
  async #tick(signal: AbortSignal): Promise<void> {
    const seqAtRead = this.#publishSeq;
    const publishedAtRead = this.#published;
    const list = await this.#client.list(Leases, {
      namespace: this.namespace,
      labelSelector: `${SHARD_GROUP_LABEL}=${this.name}`,
      signal,
    });
    if (signal.aborted || !this.#elector.isLeader()) return;
    const now = this.#clock.now();
    const others: Member[] = [];
    const seen = new Set<string>();
    for (const lease of list.items as Lease[]) {
      const key = lease.metadata.name ?? "";
      seen.add(key);
      const holder = lease.spec?.holderIdentity ?? "";
      const raw = `${holder}|${lease.spec?.renewTime ?? ""}|${
        lease.metadata.annotations?.[SHARD_RANGES_ANNOTATION] ?? ""
      }`;
      const prev = this.#observed.get(key);
      const at = prev && prev.raw === raw ? prev.at : now;
      this.#observed.set(key, { raw, at });
      if (holder === "" || holder === this.identity) continue;
      const duration = (lease.spec?.leaseDurationSeconds ?? 0) * 1_000;
      if (at + duration < now) continue; // expired on this member's clock
      others.push({
        identity: holder,
        claimed: parseRanges(
          lease.metadata.annotations?.[SHARD_RANGES_ANNOTATION],
        ),
      });
    }
    for (const key of this.#observed.keys()) {
      if (!seen.has(key)) this.#observed.delete(key);
    }
    const ids = [...new Set([this.identity, ...others.map((m) => m.identity)])]
      .sort();
    this.#members = ids;
    this.#desired = [shareOf(ids.indexOf(this.identity), ids.length)];
    // 1. Release what is no longer this member's share: stop work first.
    const keep = intersect(this.#owned, this.#desired);
    if (!sameRanges(keep, this.#owned)) await this.#setOwned(keep);
    this.#claimed = normalize([
      ...intersect(this.#claimed, this.#desired),
      ...this.#owned,
    ]);
    // 2. Claim what nobody live claims.
    const taken = normalize(others.flatMap((m) => m.claimed));
    const claimable = subtract(subtract(this.#desired, this.#claimed), taken);
    this.#claimed = normalize([...this.#claimed, ...claimable]);
    // 3. Own a claimed range once a read after its publication shows it
    //    claimed by no one else. This read began after the write of
    //    `publishedAtRead`; only ranges in it qualify.
    if (seqAtRead === 0) return;
    const ready = subtract(
      intersect(subtract(this.#claimed, this.#owned), publishedAtRead),
      taken,
    );
    if (ready.length > 0) {
      await this.#setOwned(normalize([...this.#owned, ...ready]));
    }
  }

  async #setOwned(owned: HashRange[]): Promise<void> {
    if (sameRanges(owned, this.#owned)) return;
    this.#owned = normalize(owned);
    this.#reshards++;
    const snapshot = this.#owned;
    for (const l of [...this.#listeners]) {
      try {
        await l(snapshot);
      } catch (err) {
        this.#lastError = errorMessage(err);
      }
    }
  }
}

/** The member's LeaseLock: tells the membership which claim each write published. */
class MemberLock extends LeaseLock {
  readonly #onPublished: (claim: HashRange[]) => void;
  readonly #claim: () => HashRange[];
  constructor(
    opts: ConstructorParameters<typeof LeaseLock>[0],
    onPublished: (claim: HashRange[]) => void,
    claim: () => HashRange[],
  ) {
    super(opts);
    this.#onPublished = onPublished;
    this.#claim = claim;
  }

  override async create(
    ...args: Parameters<LeaseLock["create"]>
  ): Promise<void> {
    const claim = this.#claim();
    await super.create(...args);
    this.#onPublished(claim);
  }

  override async update(
    ...args: Parameters<LeaseLock["update"]>
  ): Promise<void> {
    const claim = this.#claim();
    await super.update(...args);
    // A release (holder "") publishes no claim.
    this.#onPublished(args[0].holderIdentity === "" ? [] : claim);
  }
}
