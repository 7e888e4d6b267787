import assert from "node:assert/strict";
import {
  age,
  alignRow,
  columnsFor,
  columnWidths,
  humanDuration,
  podSummary,
} from "./table.ts";
import { printerFor } from "../client/printers.ts";
import { PULLED_EVENT } from "./_test_util.ts";
import {
  crashed,
  finished,
  makePod,
  running,
  scheduled,
  terminating,
} from "../testing/demo_objects.ts";
import { Rng } from "../testing/rng.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

Deno.test("humanDuration() formats ages like kubectl", () => {
  const cases: [number, string][] = [
    [-5 * S, "<invalid>"],
    [-1 * S, "0s"],
    [0, "0s"],
    [5 * S, "5s"],
    [119 * S, "119s"],
    [2 * M, "2m"],
    [2 * M + 30 * S, "2m30s"],
    [9 * M + 59 * S, "9m59s"],
    [10 * M + 30 * S, "10m"],
    [179 * M, "179m"],
    [3 * H, "3h"],
    [4 * H + 10 * M, "4h10m"],
    [8 * H + 10 * M, "8h"],
    [47 * H, "47h"],
    [2 * D, "2d"],
    [3 * D + 2 * H, "3d2h"],
    [8 * D + 5 * H, "8d"],
    [400 * D, "400d"],
    [730 * D, "2y"],
    [740 * D, "2y10d"],
    [3000 * D, "8y"],
  ];
  for (const [ms, want] of cases) {
    assert.equal(humanDuration(ms), want, `${ms}`);
  }
});

Deno.test("age() is <unknown> without a valid timestamp", () => {
  assert.equal(age(undefined, 0), "<unknown>");
  assert.equal(age("garbage", 0), "<unknown>");
  assert.equal(
    age("2025-01-01T00:00:00Z", Date.UTC(2025, 0, 1, 0, 0, 5)),
    "5s",
  );
});

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const rng = new Rng(1);
const pending = makePod({
  namespace: "shop",
  owner: "web-abc",
  ownerKind: "ReplicaSet",
  ownerUid: "u",
  app: "web",
  image: "nginx:1",
  hash: "abc",
  createdMs: NOW - 90 * S,
  rng,
});

Deno.test("podSummary() follows a pod through its lifecycle like kubectl", () => {
  const s = (pod: unknown, now = NOW) => {
    const { ready, status, restarts } = podSummary(pod, now);
    return `${ready} ${status} ${restarts}`;
  };
  assert.equal(s(pending), "0/1 Pending 0");
  const creating = scheduled(pending, "node-1", NOW - 80 * S);
  assert.equal(s(creating), "0/1 ContainerCreating 0");
  const starting = running(creating, {
    nowMs: NOW - 70 * S,
    ready: false,
    rng,
  });
  assert.equal(s(starting), "0/1 Running 0");
  const ready = running(starting, { nowMs: NOW - 60 * S, ready: true, rng });
  assert.equal(s(ready), "1/1 Running 0");
  const backoff = crashed(ready, NOW - 30 * S);
  assert.equal(s(backoff), "0/1 CrashLoopBackOff 1 (30s ago)");
  const restarted = running(backoff, { nowMs: NOW - 20 * S, ready: true, rng });
  assert.equal(s(restarted), "1/1 Running 1 (30s ago)");
  assert.equal(s(finished(ready, NOW, true)), "0/1 Completed 0");
  assert.equal(s(finished(ready, NOW, false)), "0/1 Error 0");
  assert.equal(s(terminating(ready, NOW)), "1/1 Terminating 0");
  // a finished pod being deleted keeps its terminal reason, as kubectl shows
  assert.equal(
    s(terminating(finished(ready, NOW, true), NOW)),
    "0/1 Completed 0",
  );
});

Deno.test("podSummary() reports init containers and exit codes", () => {
  const pod = {
    metadata: { name: "p" },
    spec: { initContainers: [{ name: "a" }, { name: "b" }], containers: [{}] },
    status: {
      phase: "Pending",
      initContainerStatuses: [
        { state: { terminated: { exitCode: 0, reason: "Completed" } } },
        { state: { running: {} } },
      ],
    },
  };
  assert.equal(podSummary(pod, NOW).status, "Init:1/2");
  pod.status.initContainerStatuses[1] = {
    state: { waiting: { reason: "CrashLoopBackOff" } } as never,
  };
  assert.equal(podSummary(pod, NOW).status, "Init:CrashLoopBackOff");
  const exited = {
    metadata: { name: "p" },
    spec: { containers: [{}] },
    status: {
      phase: "Failed",
      containerStatuses: [{ state: { terminated: { exitCode: 3 } } }],
    },
  };
  assert.equal(podSummary(exited, NOW).status, "ExitCode:3");
});

Deno.test("columnsFor() gives pods, deployments and other kinds kubectl's columns", () => {
  const ready = running(scheduled(pending, "node-1", NOW), {
    nowMs: NOW,
    ready: true,
    rng,
  });
  assert.deepEqual(columnsFor("Pod", false).headers, [
    "READY",
    "STATUS",
    "RESTARTS",
    "AGE",
  ]);
  const wide = columnsFor("Pod", true);
  assert.deepEqual(wide.headers.slice(4), [
    "IP",
    "NODE",
    "NOMINATED NODE",
    "READINESS GATES",
  ]);
  const cells = wide.cells(ready, NOW);
  assert.deepEqual(cells.slice(0, 4), ["1/1", "Running", "0", "90s"]);
  assert.match(cells[4], /^10\.244\.\d+\.\d+$/);
  assert.deepEqual(cells.slice(5), ["node-1", "<none>", "<none>"]);

  const deployment = {
    metadata: { name: "web", creationTimestamp: "2025-05-30T12:00:00Z" },
    spec: { replicas: 3 },
    status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  };
  const d = columnsFor("Deployment", false);
  assert.deepEqual(d.headers, ["READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
  assert.deepEqual(d.cells(deployment, NOW), ["2/3", "3", "2", "2d"]);

  const widget = {
    metadata: { name: "w", creationTimestamp: "2025-06-01T11:00:00Z" },
  };
  assert.deepEqual(columnsFor("Widget", false).headers, ["AGE"]);
  assert.deepEqual(columnsFor("Widget", true).cells(widget, NOW), ["60m"]);
  assert.deepEqual(
    columnsFor("ConfigMap", false).cells(
      { ...widget, data: { a: "1" } } as never,
      NOW,
    ),
    ["1", "60m"],
  );
});

Deno.test("alignRow() pads like kubectl's tab writer", () => {
  const rows = [["NAME", "READY", "AGE"], ["web-1", "1/1", "5s"]];
  const widths = columnWidths(rows);
  assert.deepEqual(widths, [8, 8, 6]);
  assert.equal(alignRow(rows[0], widths), "NAME    READY   AGE");
  assert.equal(alignRow(rows[1], widths), "web-1   1/1     5s");
  assert.equal(
    alignRow(["a-very-long-name", "x"], [6, 6]),
    "a-very-long-name x",
  );
});

Deno.test("columnsFor() prints the columns client/printers.ts gives FakeApiServer's Tables", () => {
  const kinds = "/Pod /Node apps/Deployment batch/Job batch/CronJob " +
    "coordination.k8s.io/Lease";
  for (const groupKind of kinds.split(" ")) {
    const [group, kind] = groupKind.split("/");
    const served = printerFor(group, kind)!.columns;
    assert.deepEqual(
      columnsFor(kind, true, group).headers,
      served.slice(1).map((c) => c.name.toUpperCase()),
      kind,
    );
    assert.deepEqual(
      columnsFor(kind, false, group).headers,
      served.slice(1).filter((c) => c.priority === 0).map((c) =>
        c.name.toUpperCase()
      ),
      kind,
    );
    assert.equal(columnsFor(kind, false).nameAt, 0, kind);
  }
});

Deno.test("columnsFor() -o wide prints selectors as kubectl: sorted requirements; empty: deployments '', replica sets <none>", () => {
  const workload = (selector?: unknown) => ({
    metadata: { name: "w", creationTimestamp: "2025-06-01T11:00:00Z" },
    spec: {
      selector,
      template: { spec: { containers: [{ name: "c", image: "i" }] } },
    },
  });
  const selector = {
    matchLabels: { tier: "web", app: "shop" },
    matchExpressions: [{
      key: "env",
      operator: "NotIn",
      values: ["qa", "dev"],
    }],
  };
  const last = (kind: string, obj: unknown) =>
    columnsFor(kind, true).cells(obj as never, NOW).at(-1);
  for (const kind of ["Deployment", "ReplicaSet"]) {
    assert.equal(
      last(kind, workload(selector)),
      "app=shop,env notin (dev,qa),tier=web",
      kind,
    );
  }
  assert.equal(last("Deployment", workload()), "");
  assert.equal(last("ReplicaSet", workload()), "<none>");
  assert.equal(
    last(
      "ReplicaSet",
      workload({ matchExpressions: [{ key: "a", operator: "Bad" }] }),
    ),
    "<error>",
  );
});

Deno.test("columnsFor() prints a cron job's unset suspend as <unset>, its time zone as <none>", () => {
  const cj = {
    metadata: { name: "c", creationTimestamp: "2025-06-01T11:00:00Z" },
    spec: { schedule: "@daily" },
  };
  assert.deepEqual(columnsFor("CronJob", false).cells(cj, NOW), [
    "@daily",
    "<none>",
    "<unset>",
    "0",
    "<none>",
    "60m",
  ]);
});

Deno.test("columnsFor() puts an event's NAME where kubectl does: nowhere, last with -o wide", () => {
  const event = PULLED_EVENT as never;
  const narrow = columnsFor("Event", false);
  assert.deepEqual(narrow.headers, [
    "LAST SEEN",
    "TYPE",
    "REASON",
    "OBJECT",
    "MESSAGE",
  ]);
  assert.equal(narrow.nameAt, undefined);
  assert.deepEqual(narrow.cells(event, NOW), [
    "60s",
    "Normal",
    "Pulled",
    "pod/web",
    "pulled",
  ]);
  const wide = columnsFor("Event", true);
  assert.equal(wide.nameAt, wide.headers.length);
  assert.deepEqual(wide.headers.slice(-2), ["FIRST SEEN", "COUNT"]);
  assert.deepEqual(wide.cells(event, NOW).slice(-2), [
    "<unknown>",
    "1",
  ]);
});
