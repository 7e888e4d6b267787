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
    [["watch", "pods", "--bogus"], /^Unknown flag "--bogus"$/],
    [
      ["watch", "pods", "--namspace", "shop"],
      /^Unknown flag "--namspace"; did you mean "--namespace"\?$/,
    ],
    [
      ["watch", "pods", "--all-namespace"],
      /^Unknown flag "--all-namespace"; did you mean "--all-namespaces"\?$/,
    ],
    [["watch", "pods", "--kubconfig=k"], /did you mean "--kubeconfig"\?$/],
    [["watch", "pods", "-w"], /^Unknown flag "-w": watch always watches/],
    [["watch", "pods", "--watch"], /^Unknown flag "--watch": watch always/],
    [["watch", "pods", "-n"], /^flag needs an argument: -n$/],
    [
      ["watch", "cm", "-n", "--kubeconfig", "x"],
      /^flag needs an argument: -n$/,
    ],
    [
      ["watch", "pods", "--demo", "--server", "http://x"],
      /--demo and --server/,
    ],
    [["watch", "pods", "--demo", "--kubeconfig=k"], /--demo and --kubeconfig/],
    [
      ["watch", "pods", "--insecure-skip-tls-verify=yes"],
      /Invalid value "yes"/,
    ],
    [
      [
        "watch",
        "pods",
        "--certificate-authority",
        "ca.crt",
        "--insecure-skip-tls-verify",
      ],
      /--certificate-authority and --insecure-skip-tls-verify/,
    ],
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

Deno.test("parseArgs() says which flag lacks its value, for every flag with a value", () => {
  const flags = [
    "-n",
    "--namespace",
    "-l",
    "--selector",
    "--field-selector",
    "-o",
    "--output",
    "--kubeconfig",
    "--context",
    "-s",
    "--server",
    "--token",
    "--certificate-authority",
    "--port",
    "--demo-kubeconfig",
  ];
  for (const flag of flags) {
    for (const argv of [["watch", "cm", flag], ["watch", "cm", flag, "-A"]]) {
      assert.throws(
        () => parseArgs(argv),
        (e) =>
          e instanceof UsageError &&
          e.message === `flag needs an argument: ${flag}`,
        argv.join(" "),
      );
    }
  }
  // A value that starts with "-" is passed with "=".
  const a = parseArgs(["watch", "cm", "--token=-abc"]);
  assert.equal(a.command === "watch" && a.token, "-abc");
});

Deno.test("parseArgs() reads kubectl's connection flags", () => {
  const a = parseArgs([
    "watch",
    "cm",
    "-s",
    "https://10.0.0.1:6443",
    "--token",
    "t0k",
    "--certificate-authority=/tmp/ca.crt",
  ]);
  assert.ok(a.command === "watch");
  assert.equal(a.server, "https://10.0.0.1:6443");
  assert.equal(a.token, "t0k");
  assert.equal(a.certificateAuthority, "/tmp/ca.crt");
  assert.equal(a.insecureSkipTlsVerify, undefined);
  const b = parseArgs([
    "watch",
    "cm",
    "--server=http://127.0.0.1:1",
    "--insecure-skip-tls-verify",
  ]);
  assert.ok(b.command === "watch");
  assert.equal(b.server, "http://127.0.0.1:1");
  assert.equal(b.insecureSkipTlsVerify, true);
  const c = parseArgs(["watch", "cm", "--insecure-skip-tls-verify=false"]);
  assert.equal(c.command === "watch" && c.insecureSkipTlsVerify, false);
});

Deno.test("USAGE shows no jsr: command, as no release is published", () => {
  assert.doesNotMatch(USAGE, /jsr:/);
  assert.match(USAGE, /deno run -A cli\.ts watch pods -A --demo/);
  assert.match(USAGE, /--server URL/);
});

Deno.test("USAGE gives the --kubeconfig default order as KubeConfig.load() follows it", () => {
  const line = USAGE.split("\n").find((l) => l.includes("--kubeconfig PATH"));
  assert.match(
    line ?? "",
    /\(default: \$KUBECONFIG, then ~\/\.kube\/config, then in-cluster\)$/,
  );
});

Deno.test("parseArgs() reads kubectl's --as, --as-uid and repeated --as-group; a group or uid needs --as", () => {
  const args = parseArgs([
    "watch",
    "cm",
    "--as",
    "jane",
    "--as-group=dev",
    "--as-group",
    "ops",
    "--as-uid",
    "42",
  ]);
  assert.equal(args.command, "watch");
  if (args.command !== "watch") return;
  assert.equal(args.as, "jane");
  assert.equal(args.asUid, "42");
  assert.deepEqual(args.asGroups, ["dev", "ops"]);
  assert.throws(
    () => parseArgs(["watch", "cm", "--as-group", "dev"]),
    { name: "UsageError", message: /--as-group needs --as/ },
  );
  assert.throws(
    () => parseArgs(["watch", "cm", "--demo", "--as", "jane"]),
    /--demo and --as cannot be used together/,
  );
});

Deno.test("parseArgs() reads gen: one source, the files after --crd, filters and --out", () => {
  assert.deepEqual(
    parseArgs(["gen", "--crd", "a.yaml", "b.json", "--group", "example.com"]),
    {
      command: "gen",
      fromCluster: false,
      crd: ["a.yaml", "b.json"],
      out: "kube_types",
      demo: false,
      group: "example.com",
    },
  );
  assert.deepEqual(
    parseArgs(["gen", "--from-cluster", "--demo", "--kind=Pod", "--out", "t"]),
    {
      command: "gen",
      fromCluster: true,
      crd: [],
      out: "t",
      demo: true,
      kind: "Pod",
    },
  );
  assert.equal(
    (parseArgs(["gen", "--from-cluster", "-s", "http://h:1"]) as {
      server?: string;
    }).server,
    "http://h:1",
  );
  const bad: [string[], string][] = [
    [
      ["gen"],
      "gen needs a source: --from-cluster, --crd FILE... or --openapi FILE",
    ],
    [
      ["gen", "--crd", "a.yaml", "--openapi", "o.json"],
      "Flags --crd and --openapi cannot be used together: gen reads one source",
    ],
    [["gen", "--crd"], "flag needs an argument: --crd"],
    [
      ["gen", "x.yaml"],
      'Unexpected argument "x.yaml": gen takes its files after --crd',
    ],
    [
      ["gen", "--crd", "a.yaml", "--server", "http://h"],
      "Flag --server needs --from-cluster: --crd reads files",
    ],
    [
      ["gen", "--from-cluster", "--demo", "--token", "t"],
      "Flags --demo and --token cannot be used together: --demo starts its own cluster",
    ],
    [
      ["gen", "--from-clustr"],
      'Unknown flag "--from-clustr"; did you mean "--from-cluster"?',
    ],
  ];
  for (const [argv, message] of bad) {
    assert.throws(() => parseArgs(argv), { name: "UsageError", message });
  }
  assert.match(
    USAGE,
    /cli\.ts gen \(--from-cluster \| --crd FILE\.\.\. \| --openapi FILE\)/,
  );
});

Deno.test("parseArgs() reads the demo's --port and --demo-kubeconfig, only with --demo", () => {
  const a = parseArgs([
    "watch",
    "pods",
    "--demo",
    "--port",
    "8080",
    "--demo-kubeconfig",
    "/tmp/demo.kubeconfig",
  ]);
  assert.ok(a.command === "watch");
  assert.equal(a.port, 8080);
  assert.equal(a.demoKubeconfig, "/tmp/demo.kubeconfig");
  assert.equal(
    parseArgs(["watch", "pods", "--demo"]).command === "watch" &&
      (parseArgs(["watch", "pods", "--demo"]) as { port?: number }).port,
    undefined,
  );
  for (
    const [argv, message] of [
      [
        ["watch", "pods", "--port", "8080"],
        "Flag --port needs --demo: it sets up the embedded demo cluster",
      ],
      [
        ["watch", "pods", "--demo-kubeconfig", "f"],
        "Flag --demo-kubeconfig needs --demo: it sets up the embedded demo cluster",
      ],
      [
        ["watch", "pods", "--demo", "--port", "http"],
        'Invalid --port "http": expected a port number from 1 to 65535',
      ],
      [
        ["watch", "pods", "--demo", "--port=70000"],
        'Invalid --port "70000": expected a port number from 1 to 65535',
      ],
      [
        ["watch", "pods", "--demo", "--port", "0"],
        'Invalid --port "0": expected a port number from 1 to 65535',
      ],
    ] as const
  ) {
    assert.throws(
      () => parseArgs(argv),
      (e) => e instanceof UsageError && e.message === message,
      argv.join(" "),
    );
  }
});
