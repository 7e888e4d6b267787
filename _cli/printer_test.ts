import assert from "node:assert/strict";
import { WatchPrinter, type WatchPrinterOptions } from "./printer.ts";
import type { KubeObject } from "../api/object.ts";
import { PULLED_EVENT } from "./_test_util.ts";

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const cm = (ns: string, name: string, keys = 1): KubeObject =>
  ({
    metadata: {
      namespace: ns,
      name,
      creationTimestamp: "2025-06-01T11:59:00Z",
    },
    data: Object.fromEntries(
      Array.from({ length: keys }, (_, i) => [`k${i}`, "v"]),
    ),
  }) as KubeObject;

function printer(
  opts: Partial<WatchPrinterOptions> = {},
): { p: WatchPrinter; lines: string[] } {
  const lines: string[] = [];
  const p = new WatchPrinter({
    kind: "ConfigMap",
    apiVersion: "v1",
    typeName: "configmap",
    output: "table",
    allNamespaces: true,
    write: (l) => lines.push(l),
    now: () => NOW,
    formatTime: () => "12:00:00",
    ...opts,
  });
  return { p, lines };
}

Deno.test("WatchPrinter.printInitial() sorts by namespace and name and aligns columns", () => {
  const { p, lines } = printer();
  assert.equal(
    p.printInitial([cm("b", "x"), cm("a", "long-name", 3), cm("a", "b")]),
    true,
  );
  assert.deepEqual(lines.slice(0, 4), [
    "NAMESPACE   NAME        DATA   AGE",
    "a           b           1      60s",
    "a           long-name   3      60s",
    "b           x           1      60s",
  ]);
  assert.equal(lines[4], "");
  assert.match(lines[5], /^TIME\s+EVENT\s+NAMESPACE\/NAME\s+DATA\s+AGE$/);
});

Deno.test("WatchPrinter.printEvent() lines up under the event header", () => {
  const { p, lines } = printer({ allNamespaces: false });
  p.printInitial([cm("default", "a")]);
  p.printEvent("MODIFIED", cm("default", "a", 2));
  const header = lines.at(-2)!;
  const event = lines.at(-1)!;
  assert.equal(event, "12:00:00   MODIFIED   default/a        2      60s");
  assert.equal(header.indexOf("DATA"), event.indexOf(" 2 ") + 1);
});

Deno.test("WatchPrinter with nothing synced says so by returning false, and still prints events", () => {
  const { p, lines } = printer();
  assert.equal(p.printInitial([]), false);
  // No header of an empty table (kubectl prints "No resources found." alone).
  assert.deepEqual(lines, []);
  p.printEvent("ADDED", cm("a", "new"));
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^TIME\s+EVENT\s+NAMESPACE\/NAME\s+DATA\s+AGE$/);
  assert.match(lines[1], /^12:00:00\s+ADDED\s+a\/new\s+1\s+60s$/);
});

Deno.test("WatchPrinter -o json and -o name", () => {
  const json = printer({ output: "json" });
  json.p.printInitial([cm("a", "x")]);
  json.p.printEvent("DELETED", cm("a", "x"));
  assert.deepEqual(json.lines.map((l) => JSON.parse(l).type), [
    "ADDED",
    "DELETED",
  ]);
  // Kind and apiVersion are filled in (list items lack them) on copies.
  const listed = cm("a", "x");
  const typed = printer({
    output: "json",
    kind: "Deployment",
    apiVersion: "apps/v1",
  });
  typed.p.printInitial([listed]);
  typed.p.printEvent("MODIFIED", listed);
  for (const line of typed.lines) {
    const { object } = JSON.parse(line);
    assert.deepEqual(Object.keys(object).slice(0, 3), [
      "apiVersion",
      "kind",
      "metadata",
    ]);
    assert.deepEqual([object.apiVersion, object.kind], [
      "apps/v1",
      "Deployment",
    ]);
  }
  assert.equal("kind" in listed || "apiVersion" in listed, false);
  const name = printer({ output: "name" });
  name.p.printInitial([cm("a", "x")]);
  name.p.printEvent("MODIFIED", cm("a", "x"));
  assert.deepEqual(name.lines, ["configmap/x", "MODIFIED configmap/x"]);
});

Deno.test("WatchPrinter prints events as kubectl does: NAMESPACE, no NAME, then LAST SEEN ... MESSAGE; -o wide puts NAME last", () => {
  const event = PULLED_EVENT as KubeObject;
  const { p, lines } = printer({ kind: "Event", typeName: "event" });
  p.printInitial([event]);
  assert.deepEqual(lines.slice(0, 2), [
    "NAMESPACE   LAST SEEN   TYPE     REASON   OBJECT    MESSAGE",
    "default     60s         Normal   Pulled   pod/web   pulled",
  ]);
  const wide = printer({ kind: "Event", typeName: "event", output: "wide" });
  wide.p.printInitial([event]);
  assert.match(wide.lines[0], /^NAMESPACE\s+LAST SEEN\s.*\sCOUNT\s+NAME$/);
  assert.match(wide.lines[1], /^default\s+60s\s.*\s1\s+web\.1$/);
});

Deno.test("WatchPrinter heads a cluster-scoped kind's event lines NAME, not NAMESPACE/NAME", () => {
  const ns = {
    metadata: {
      name: "team-a",
      creationTimestamp: new Date(NOW - 60_000).toISOString(),
    },
  } as KubeObject;
  const { p, lines } = printer({
    kind: "Namespace",
    typeName: "namespace",
    allNamespaces: false,
    namespaced: false,
  });
  p.printInitial([ns]);
  assert.match(lines[0], /^NAME\s/);
  assert.match(lines.at(-1)!, /^TIME\s+EVENT\s+NAME\s+STATUS\s+AGE$/);
  p.printEvent("MODIFIED", ns);
  assert.match(lines.at(-1)!, /^12:00:00\s+MODIFIED\s+team-a\s/);
});
