import assert from "node:assert/strict";
import { parseArgs, USAGE, UsageError } from "./args.ts";

Deno.test("parseArgs() reads kubectl-style flags", () => {
  assert.deepEqual(
    parseArgs([
      "watch",
      "po",
      "-n",
      "shop",
      "-l",
      "app=web",
      "--field-selector=spec.nodeName=n1",
      "-o",
      "wide",
      "--kubeconfig",
      "/tmp/kc",
      "--context=kind",
    ]),
    {
      command: "watch",
      resource: "po",
      namespace: "shop",
      allNamespaces: false,
      labelSelector: "app=web",
      fieldSelector: "spec.nodeName=n1",
      output: "wide",
      kubeconfig: "/tmp/kc",
      context: "kind",
      demo: false,
    },
  );
  const a = parseArgs(["watch", "--demo", "-A", "deploy", "-ojson"]);
  assert.equal(a.command, "watch");
  if (a.command !== "watch") return;
  assert.equal(a.resource, "deploy");
  assert.equal(a.allNamespaces, true);
  assert.equal(a.demo, true);
  assert.equal(a.output, "json");
  const b = parseArgs(["watch", "pods", "-nkube-system", "--namespace=x"]);
  assert.equal(b.command === "watch" && b.namespace, "x");
});

Deno.test("parseArgs() returns help for -h anywhere", () => {
  assert.deepEqual(parseArgs(["watch", "pods", "-h"]), { command: "help" });
  assert.deepEqual(parseArgs(["--help"]), { command: "help" });
});

Deno.test("parseArgs() rejects bad command lines with a reason", () => {
  const cases: [string[], RegExp][] = [
    [[], /Missing command/],
    [["get", "pods"], /Unknown command "get"/],
    [["watch"], /Missing resource/],
    [["watch", "pods", "svc"], /Unexpected argument "svc"/],
    [["watch", "pods", "--bogus"], /Unknown flag "--bogus"/],
    [["watch", "pods", "-n"], /Flag "-n" needs a value/],
    [["watch", "pods", "-o", "yaml"], /Unknown output format "yaml"/],
    [["watch", "pods", "-n", "a", "-A"], /-n and -A cannot be used together/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(() => parseArgs(argv), (e) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, message);
      return true;
    });
  }
});

Deno.test("USAGE gives the --kubeconfig default order as KubeConfig.load() follows it", () => {
  const line = USAGE.split("\n").find((l) => l.includes("--kubeconfig PATH"));
  assert.match(
    line ?? "",
    /\(default: \$KUBECONFIG, then ~\/\.kube\/config, then in-cluster\)$/,
  );
});
