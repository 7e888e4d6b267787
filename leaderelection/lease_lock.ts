/**
 * {@link LeaseLock}: the leader election lock on a `coordination.k8s.io/v1`
 * Lease (client-go `tools/leaderelection/resourcelock/leaselock.go`),
 * written field for field as client-go writes it so kubecache and
 * client-go replicas can share one lock.
 *
 * @module
 */

import { isNotFound } from "../api/errors.ts";
import {
  checkFunction,
  checkMethods,
  checkObject,
  checkString,
  checkSubdomainName,
} from "../api/validate.ts";
import type { KubeClient } from "../client/rest.ts";
import { Leases } from "../api/resources.ts";
import type { Lease } from "../api/types.ts";

/**
 * The state of a leader election lock (client-go
 * `resourcelock.LeaderElectionRecord`), as stored in a Lease's `spec`.
 *
 * @example The record of a fresh acquisition
 * ```ts
 * import type { LeaderElectionRecord } from "@kubecache/core/leaderelection";
 * import { formatMicroTime } from "@kubecache/core/leaderelection";
 * import assert from "node:assert/strict";
 *
 * const now = formatMicroTime(Date.UTC(2026, 0, 1));
 * const record: LeaderElectionRecord = {
 *   holderIdentity: "replica-a",
 *   leaseDurationSeconds: 15,
 *   acquireTime: now,
 *   renewTime: now,
 *   leaderTransitions: 0,
 * };
 * assert.equal(record.renewTime, "2026-01-01T00:00:00.000000Z");
 * ```
 */
export interface LeaderElectionRecord {
  /** Identity of the holder; "" when released. `spec.holderIdentity`. */
  holderIdentity: string;
  /** How long (s) others wait after the last renew they observed before taking over. `spec.leaseDurationSeconds`. */
  leaseDurationSeconds: number;
  /** When the holder acquired it (MicroTime string). `spec.acquireTime`. */
  acquireTime: string;
  /** When the holder last renewed it (MicroTime string). `spec.renewTime`. */
  renewTime: string;
  /** How many times the lease changed hands. `spec.leaseTransitions`. */
  leaderTransitions: number;
}

/**
 * What {@link LeaseLock.get} returns: the record and its serialization (to notice any change).
 *
 * @example Notice a changed record
 * ```ts
 * import { type ObservedRecord, rawRecord } from "@kubecache/core/leaderelection";
 * import assert from "node:assert/strict";
 *
 * const record = { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: "", renewTime: "t1", leaderTransitions: 0 };
 * const before: ObservedRecord = { record, raw: rawRecord(record) };
 * const renewed = { ...record, renewTime: "t2" };
 * assert.notEqual(rawRecord(renewed), before.raw); // a renew is a change
 * ```
 */
export interface ObservedRecord {
  /** The record read from the Lease. */
  record: LeaderElectionRecord;
  /** The record serialized in a fixed field order; equal strings mean an unchanged record. */
  raw: string;
}

/**
 * Options of {@link LeaseLock}.
 *
 * @example Where the lock lives and who this candidate is
 * ```ts
 * import { LeaseLock, type LeaseLockOptions } from "@kubecache/core/leaderelection";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * const opts: LeaseLockOptions = { client, namespace: "kube-system", name: "my-controller", identity: "pod-1" };
 * const lock = new LeaseLock(opts); // no request yet
 * assert.equal(lock.describe(), "kube-system/my-controller");
 * assert.equal(lock.identity(), "pod-1");
 * ```
 */
export interface LeaseLockOptions {
  /** The client that reads and writes the Lease (`get`, `create`, `update` of a {@link KubeClient}). */
  client: Pick<KubeClient, "get" | "create" | "update">;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** This candidate's identity, unique among the candidates (e.g. the pod name). */
  identity: string;
  /** Labels put on the Lease when this lock creates it (client-go `LeaseLock.Labels`). */
  labels?: Record<string, string>;
  /**
   * Annotations written with every create and update, read at each write
   * (others on the Lease are kept): lets a holder publish a small state
   * atomically with its renewals, as shard membership publishes the hash
   * ranges a replica claims. Not in client-go.
   */
  annotations?: () => Record<string, string>;
}

/**
 * Options of one lock call.
 *
 * @example Abort a lock request
 * ```ts
 * import { LeaseLock, type LockCallOptions } from "@kubecache/core/leaderelection";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * const lock = new LeaseLock({ client, namespace: "default", name: "x", identity: "a" });
 * const opts: LockCallOptions = { signal: AbortSignal.abort(new Error("stopping")) };
 * await assert.rejects(lock.get(opts), /stopping/);
 * ```
 */
export interface LockCallOptions {
  /** Aborts the request; the call rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * Format epoch milliseconds as a Kubernetes `MicroTime`
 * (`2006-01-02T15:04:05.000000Z07:00`, UTC, always six fractional digits),
 * as client-go writes `acquireTime` and `renewTime`.
 *
 * @param ms epoch milliseconds (a fraction gives the microseconds)
 * @returns the MicroTime string
 * @throws {RangeError} when `ms` is not a finite time
 *
 * @example
 * ```ts
 * import { formatMicroTime } from "@kubecache/core/leaderelection";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatMicroTime(1_700_000_000_123.456), "2023-11-14T22:13:20.123456Z");
 * ```
 */
export function formatMicroTime(ms: number): string {
  if (!Number.isFinite(ms)) {
    throw new RangeError(
      `formatMicroTime: ms must be a finite time, got ${ms}`,
    );
  }
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.round((ms - whole) * 1000));
  const iso = new Date(whole).toISOString(); // ...T15:04:05.000Z
  return `${iso.slice(0, -1)}${String(micros).padStart(3, "0")}Z`;
}

/** client-go `LeaseSpecToLeaderElectionRecord`: absent fields read as zero values. */
function recordOf(lease: Lease): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? "",
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: spec.acquireTime ?? "",
    renewTime: spec.renewTime ?? "",
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

/** client-go `LeaderElectionRecordToLeaseSpec`: every field written, even zero ones. */
function specOf(r: LeaderElectionRecord): NonNullable<Lease["spec"]> {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: r.acquireTime,
    renewTime: r.renewTime,
    leaseTransitions: r.leaderTransitions,
  };
}

/**
 * Serialize a record in a fixed field order, so two reads of an unchanged
 * record give equal strings (client-go compares the raw record bytes).
 *
 * @param r the record
 * @returns its JSON
 *
 * @example
 * ```ts
 * import { rawRecord } from "@kubecache/core/leaderelection";
 * import assert from "node:assert/strict";
 *
 * const r = { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: "", renewTime: "", leaderTransitions: 0 };
 * assert.equal(rawRecord(r), rawRecord({ ...r }));
 * ```
 */
export function rawRecord(r: LeaderElectionRecord): string {
  return JSON.stringify([
    r.holderIdentity,
    r.leaseDurationSeconds,
    r.acquireTime,
    r.renewTime,
    r.leaderTransitions,
  ]);
}

/**
 * A leader election lock on a `coordination.k8s.io/v1` Lease (client-go
 * `resourcelock.LeaseLock`). It keeps the Lease it last read or wrote and
 * updates with that object's `resourceVersion`, so a write based on a
 * stale read fails with 409 Conflict (optimistic concurrency): two
 * candidates can never both win one round.
 *
 * The record is the Lease's `spec`: `holderIdentity`,
 * `leaseDurationSeconds`, `acquireTime`, `renewTime` (MicroTime strings
 * with microseconds) and `leaseTransitions`, as client-go writes them.
 * Use it through a {@link LeaderElector}; its methods are the small
 * interface the elector needs (client-go `resourcelock.Interface`).
 *
 * @example Create, read and update a lock on a FakeApiServer
 * ```ts
 * import { LeaseLock } from "@kubecache/core/leaderelection";
 * import { KubeClient, KubeConfig, Leases } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const lock = new LeaseLock({ client, namespace: "default", name: "my-controller", identity: "a" });
 * assert.equal(await lock.get(), undefined);
 * const t = "2026-01-01T00:00:00.000000Z";
 * const record = { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: t, renewTime: t, leaderTransitions: 0 };
 * await lock.create(record);
 * await lock.update({ ...record, renewTime: "2026-01-01T00:00:02.000000Z" });
 * const [lease] = server.list(Leases, "default");
 * assert.deepEqual(lease.spec, {
 *   holderIdentity: "a",
 *   leaseDurationSeconds: 15,
 *   acquireTime: t,
 *   renewTime: "2026-01-01T00:00:02.000000Z",
 *   leaseTransitions: 0,
 * });
 * ```
 */
export class LeaseLock {
  readonly #client: LeaseLockOptions["client"];
  readonly #namespace: string;
  readonly #name: string;
  readonly #identity: string;
  readonly #labels: Record<string, string> | undefined;
  readonly #annotations: (() => Record<string, string>) | undefined;
  /** The Lease as last read or written; its resourceVersion guards the next update. */
  #lease: Lease | undefined;

  /**
   * Create a lock (no request is made).
   * @param opts client, Lease namespace and name, this candidate's identity
   * @throws {TypeError} when `opts` is not an object, `client` not a
   *   KubeClient, or `namespace`, `name` or `identity` not a non-empty string
   */
  constructor(opts: LeaseLockOptions) {
    const call = "new LeaseLock";
    checkObject(call, "opts", opts);
    checkMethods(call, "opts.client", opts.client, "a KubeClient", [
      "get",
      "create",
      "update",
    ]);
    for (const field of ["namespace", "name", "identity"] as const) {
      checkString(call, `opts.${field}`, opts[field]);
    }
    checkSubdomainName(call, "opts.name", opts.name);
    if (opts.labels !== undefined) {
      checkObject(call, "opts.labels", opts.labels);
    }
    if (opts.annotations !== undefined) {
      checkFunction(call, "opts.annotations", opts.annotations);
    }
    this.#client = opts.client;
    this.#namespace = opts.namespace;
    this.#name = opts.name;
    this.#identity = opts.identity;
    this.#labels = opts.labels;
    this.#annotations = opts.annotations;
  }

  /** This candidate's identity (client-go `Identity`). */
  identity(): string {
    return this.#identity;
  }

  /** `"namespace/name"` of the Lease (client-go `Describe`). */
  describe(): string {
    return `${this.#namespace}/${this.#name}`;
  }

  /**
   * Read the Lease (client-go `Get`).
   * @param opts `signal` to abort the request
   * @returns the record and its raw form, or `undefined` when the Lease does not exist
   * @throws {StatusError} for any failure but 404 (e.g. 403 when RBAC denies `get leases`)
   */
  async get(opts: LockCallOptions = {}): Promise<ObservedRecord | undefined> {
    let lease: Lease;
    try {
      lease = await this.#client.get(Leases, this.#name, {
        namespace: this.#namespace,
        signal: opts.signal,
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    this.#lease = lease;
    const record = recordOf(lease);
    return { record, raw: rawRecord(record) };
  }

  /**
   * Create the Lease holding `record` (client-go `Create`).
   * @param record the record to write
   * @param opts `signal` to abort the request
   * @throws {StatusError} e.g. 409 AlreadyExists when another candidate created it first
   */
  async create(
    record: LeaderElectionRecord,
    opts: LockCallOptions = {},
  ): Promise<void> {
    this.#lease = await this.#client.create(Leases, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: this.#name,
        namespace: this.#namespace,
        ...(this.#labels ? { labels: { ...this.#labels } } : {}),
        ...(this.#annotations ? { annotations: this.#annotations() } : {}),
      },
      spec: specOf(record),
    }, { namespace: this.#namespace, signal: opts.signal });
  }

  /**
   * Replace the Lease's spec with `record`, guarded by the resourceVersion
   * of the Lease last read or written (client-go `Update`).
   * @param record the record to write
   * @param opts `signal` to abort the request
   * @throws {Error} when neither `get` nor `create` has succeeded yet
   * @throws {StatusError} e.g. 409 Conflict when the Lease changed since it was read
   */
  async update(
    record: LeaderElectionRecord,
    opts: LockCallOptions = {},
  ): Promise<void> {
    if (!this.#lease) {
      throw new Error(
        `LeaseLock ${this.describe()}: lease not initialized, call get or create first`,
      );
    }
    const lease = this.#lease;
    const metadata = this.#annotations
      ? {
        ...lease.metadata,
        annotations: { ...lease.metadata.annotations, ...this.#annotations() },
      }
      : lease.metadata;
    this.#lease = await this.#client.update(
      Leases,
      { ...lease, metadata, spec: specOf(record) },
      { namespace: this.#namespace, signal: opts.signal },
    );
  }
}
