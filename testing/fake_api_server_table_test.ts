/**
 * FakeApiServer's server-side conversions: meta.k8s.io Tables with
 * kubectl's columns (the same printers the CLI uses) and ages on the
 * server's clock, `includeObject`, PartialObjectMetadata on get, list and
 * watch, and the 406 answers. The recorded transcript
 * (table-and-metadata.json) is replayed in fake_api_server_fixtures_test.ts.
 */

import assert from "node:assert/strict";
import {
  ConfigMaps,
  CronJobs,
  Events,
  Jobs,
  Leases,
  Nodes,
  Pods,
} from "../api/resources.ts";
import type { CronJob, Job } from "../api/types.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { completedJob, getJson } from "./_apiserver_test_util.ts";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const META = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
const META_LIST =
  "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";

interface TableBody {
  kind: string;
  apiVersion: string;
  metadata: Record<string, unknown>;
  columnDefinitions:
    | { name: string; priority: number; type: string; format: string }[]
    | null;
  rows: { cells: unknown[]; object: Record<string, unknown> | null }[];
}

const accept = (a: string) => ({ headers: { accept: a } });

Deno.test("FakeApiServer Tables carry kubectl's pod and node columns, aged on the server's clock", async () => {
  const clock = new FakeClock(Date.UTC(2025, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  server.create(Pods, {
    metadata: { name: "p1", namespace: "default" },
    spec: { nodeName: "node-t", containers: [{ name: "main" }] },
    status: { phase: "Pending" },
  } as never);
  await clock.step(5_000);
  const { status, body } = await getJson(
    server,
    "/api/v1/namespaces/default/pods",
    accept(TABLE),
  );
  assert.equal(status, 200);
  const t = body as unknown as TableBody;
  assert.equal(t.kind, "Table");
  assert.deepEqual(
    t.columnDefinitions!.map((c) => [c.name, c.priority]),
    [
      ["Name", 0],
      ["Ready", 0],
      ["Status", 0],
      ["Restarts", 0],
      ["Age", 0],
      ["IP", 1],
      ["Node", 1],
      ["Nominated Node", 1],
      ["Readiness Gates", 1],
    ],
  );
  assert.deepEqual(t.rows[0].cells, [
    "p1",
    "0/1",
    "Pending",
    "0",
    "5s",
    "<none>",
    "node-t",
    "<none>",
    "<none>",
  ]);
  assert.equal(t.rows[0].object!.kind, "PartialObjectMetadata");

  server.create(Nodes, {
    metadata: { name: "n1" },
    status: { addresses: [{ type: "InternalIP", address: "10.1.2.3" }] },
  } as never);
  const nodes = (await getJson(server, "/api/v1/nodes", accept(TABLE)))
    .body as unknown as TableBody;
  assert.deepEqual(
    nodes.columnDefinitions!.filter((c) => c.priority === 1).map((c) => c.name),
    [
      "Internal-IP",
      "External-IP",
      "OS-Image",
      "Kernel-Version",
      "Container-Runtime",
    ],
  );
  assert.deepEqual(nodes.rows[0].cells.slice(5), [
    "10.1.2.3",
    "<none>",
    "<unknown>",
    "<unknown>",
    "<unknown>",
  ]);
});

Deno.test("FakeApiServer Table rows follow includeObject; ConfigMap Data is a number; v1beta1 is served", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, {
    metadata: { name: "c", namespace: "default" },
    data: { a: "1", b: "2" },
  } as never);
  const path = "/api/v1/namespaces/default/configmaps";
  const none =
    (await getJson(server, `${path}?includeObject=None`, accept(TABLE)))
      .body as unknown as TableBody;
  assert.deepEqual(none.rows, [{
    cells: ["c", 2, none.rows[0].cells[2]],
    object: null,
  }]);
  const full =
    (await getJson(server, `${path}?includeObject=Object`, accept(TABLE)))
      .body as unknown as TableBody;
  assert.deepEqual((full.rows[0].object as { data: unknown }).data, {
    a: "1",
    b: "2",
  });
  const beta = (await getJson(
    server,
    path,
    accept("application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
  )).body as unknown as TableBody;
  assert.equal(beta.apiVersion, "meta.k8s.io/v1beta1");
  assert.equal(beta.rows[0].object!.apiVersion, "meta.k8s.io/v1beta1");
  const bad = await getJson(server, `${path}?includeObject=All`, accept(TABLE));
  assert.equal(bad.status, 400);
});

Deno.test("FakeApiServer answers 406 for an unknown as= and for a list/object mismatch", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, { metadata: { name: "c", namespace: "default" } });
  const path = "/api/v1/namespaces/default/configmaps";
  const foo = await getJson(
    server,
    path,
    accept("application/json;as=Foo;v=v1;g=meta.k8s.io"),
  );
  assert.equal(foo.status, 406);
  assert.equal(foo.body.reason, "NotAcceptable");
  const fallback = await getJson(
    server,
    path,
    accept("application/json;as=Foo;v=v1;g=meta.k8s.io,application/json"),
  );
  assert.equal(fallback.body.kind, "ConfigMapList");
  const listAsOne = await getJson(server, path, accept(META));
  assert.equal(listAsOne.status, 406);
  assert.match(
    String(listAsOne.body.message),
    /is a list \(\*core\.ConfigMapList\)/,
  );
  const oneAsList = await getJson(server, `${path}/c`, accept(META_LIST));
  assert.equal(oneAsList.status, 406);
  assert.match(
    String(oneAsList.body.message),
    /is not a list \(\*core\.ConfigMap\)/,
  );
  const missing = await getJson(server, `${path}/nope`, accept(META_LIST));
  assert.equal(
    missing.status,
    404,
    "the object is read before it is converted",
  );
  const one = await getJson(server, `${path}/c`, accept(META));
  assert.deepEqual(Object.keys(one.body), ["kind", "apiVersion", "metadata"]);
});

Deno.test("FakeApiServer watches as PartialObjectMetadata and as Table (columns only on the first event)", async () => {
  const clock = new FakeClock(Date.now());
  await using server = await FakeApiServer.start({ clock });
  const path =
    "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=5";
  const open = (a: string) => fetch(server.url + path, accept(a));
  const [meta, table, metaList] = await Promise.all([
    open(META),
    open(TABLE),
    open(META_LIST),
  ]);
  server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
  server.create(ConfigMaps, { metadata: { name: "b", namespace: "default" } });
  await clock.step(5_000);
  const lines = async (r: Response) =>
    (await r.text()).split("\n").filter((l) => l).map((l) => JSON.parse(l));
  const m = await lines(meta);
  assert.deepEqual(
    m.map((e) => [e.type, e.object.kind, e.object.metadata.name]),
    [
      ["ADDED", "PartialObjectMetadata", "a"],
      ["ADDED", "PartialObjectMetadata", "b"],
    ],
  );
  const t = await lines(table);
  assert.equal(t.length, 2);
  assert.equal(t[0].object.columnDefinitions.length, 3);
  assert.equal(t[1].object.columnDefinitions, null);
  assert.deepEqual(t[1].object.rows[0].cells.slice(0, 2), ["b", 0]);
  assert.deepEqual(
    await lines(metaList),
    [],
    "the stream ends at the first event",
  );
});

Deno.test("FakeApiServer Tables carry kubectl's lease, job, cronjob and event columns and cells", async () => {
  const clock = new FakeClock(Date.UTC(2025, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  const at = (s: number) =>
    new Date(Date.UTC(2025, 0, 1) + s * 1000)
      .toISOString().replace(".000Z", "Z");
  server.create(Leases, {
    metadata: { name: "held", namespace: "default" },
    spec: { holderIdentity: "node-a_1" },
  });
  server.create(Leases, { metadata: { name: "free", namespace: "default" } });
  server.create(
    Jobs,
    completedJob("done", 3, [at(0), at(150)], {
      selector: {
        matchLabels: { "job-name": "done" },
        matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
      },
      template: { spec: { containers: [{ name: "w", image: "busybox" }] } },
    }),
  );
  server.create(Jobs, {
    metadata: { name: "busy", namespace: "default" },
    // No pod template: the columns it fills stay empty.
    spec: { parallelism: 4 } as Job["spec"],
    status: {
      startTime: at(0),
      conditions: [{ type: "Complete", status: "False" }],
    },
  });
  server.create(CronJobs, {
    metadata: { name: "nightly", namespace: "default" },
    spec: {
      schedule: "0 3 * * *",
      timeZone: "Etc/UTC",
      suspend: false,
      jobTemplate: {
        spec: {
          template: { spec: { containers: [{ name: "b", image: "backup" }] } },
        },
      },
    },
    status: { active: [{ name: "nightly-1" }], lastScheduleTime: at(60) },
  });
  server.create(CronJobs, {
    metadata: { name: "bare", namespace: "default" },
    spec: { schedule: "@hourly" } as CronJob["spec"],
  });
  server.create(Events, {
    metadata: { name: "web.1", namespace: "default" },
    involvedObject: {
      kind: "Pod",
      name: "web",
      fieldPath: "spec.containers{c}",
    },
    reason: "BackOff",
    message: "Back-off restarting failed container\n",
    type: "Warning",
    count: 4,
    firstTimestamp: at(10),
    lastTimestamp: at(200),
    source: { component: "kubelet", host: "node-a" },
  });
  server.create(Events, {
    metadata: { name: "new.1", namespace: "default" },
    involvedObject: { kind: "Node" },
    reason: "Starting",
    type: "Normal",
    eventTime: at(240).replace("Z", ".000000Z"),
    reportingComponent: "kube-proxy",
  } as never);
  await clock.step(300_000);

  const table = async (path: string) =>
    (await getJson(server, path, accept(TABLE))).body as unknown as TableBody;
  // "Name | Suspend:boolean | Containers*" (* for priority 1)
  const columns = (t: TableBody) =>
    t.columnDefinitions!.map((c) =>
      `${c.name}${c.priority ? "*" : ""}${
        c.type === "string" ? "" : `:${c.type}`
      }`
    ).join(" | ");
  // One JSON array per row: counts stay numbers.
  const rows = (t: TableBody) => t.rows.map((r) => JSON.stringify(r.cells));

  // Per kind: its path, its columns, its rows (sorted by name).
  const kinds: [string, string, string[]][] = [[
    "/apis/coordination.k8s.io/v1/namespaces/default/leases",
    "Name | Holder | Age",
    ['["free","","5m"]', '["held","node-a_1","5m"]'],
  ], [
    "/apis/batch/v1/namespaces/default/jobs",
    "Name | Status | Completions | Duration | Age | Containers* | Images* | Selector*",
    [
      '["busy","Running","0/1 of 4","5m","5m","","","<none>"]',
      '["done","Complete","3/3","2m30s","5m","w","busybox","job-name=done,tier in (a,b)"]',
    ],
  ], [
    "/apis/batch/v1/namespaces/default/cronjobs",
    "Name | Schedule | Timezone | Suspend:boolean | Active:integer | Last Schedule | Age | Containers* | Images* | Selector*",
    [
      '["bare","@hourly","<none>","False",0,"<none>","5m","","","<none>"]',
      '["nightly","0 3 * * *","Etc/UTC","False",1,"4m","5m","b","backup","<none>"]',
    ],
  ], [
    "/api/v1/namespaces/default/events",
    "Last Seen | Type | Reason | Object | Subobject* | Source* | Message | First Seen* | Count* | Name*",
    [
      '["60s","Normal","Starting","node","","kube-proxy","","60s",1,"new.1"]',
      '["100s","Warning","BackOff","pod/web","spec.containers{c}","kubelet, node-a","Back-off restarting failed container","4m50s",4,"web.1"]',
    ],
  ]];
  for (const [path, wantColumns, wantRows] of kinds) {
    const t = await table(path);
    assert.equal(columns(t), wantColumns, path);
    assert.deepEqual(rows(t), wantRows, path);
  }
  // "bare" got the apiserver's CronJob defaults (SUSPEND False, not <unset>).
  assert.deepEqual(server.get(CronJobs, "default", "bare")!.spec, {
    schedule: "@hourly",
    concurrencyPolicy: "Allow",
    suspend: false,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
  });
  // An event's Name is the last column, still the one of format "name".
  const events = await table("/api/v1/namespaces/default/events");
  assert.equal(events.columnDefinitions![9].format, "name");
});
