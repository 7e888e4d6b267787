import assert from "node:assert/strict";
import { describeError, main } from "./cli.ts";
import { FakeApiServer } from "./testing/fake_api_server.ts";
import { ConfigMaps, Deployments, Pods } from "./api/resources.ts";
import { makePod, running, scheduled } from "./testing/demo_objects.ts";
import { Rng } from "./testing/rng.ts";
import type { KubeObject } from "./api/object.ts";
import { FakeClock } from "./testing/fake_clock.ts";
import { headOf, readTextUntil } from "./testing/read_text.ts";
import { kubeconfigFile } from "./_cli/_test_util.ts";
import { KubeConfig } from "./client/config.ts";
import { KubeClient } from "./client/rest.ts";

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

/** Collects output and resolves waiters once a line matches. */
class Output {
  lines: string[] = [];
  #waiters: { re: RegExp; resolve: () => void }[] = [];

  write = (text: string) => {
    this.lines.push(text);
    this.#waiters = this.#waiters.filter((w) => {
      if (!w.re.test(text)) return true;
      w.resolve();
      return false;
    });
  };

  get text(): string {
    return this.lines.join("\n");
  }

  /** Resolve once a line (already written or later) matches. */
  until(re: RegExp): Promise<void> {
    if (this.lines.some((l) => re.test(l))) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ re, resolve }));
  }
}

function pod(name: string, namespace: string, rng: Rng): KubeObject {
  const p = makePod({
    namespace,
    owner: name,
    ownerKind: "ReplicaSet",
    ownerUid: "u",
    app: name,
    image: "nginx:1",
    hash: "abc",
    createdMs: NOW,
    rng,
  });
  p.metadata.name = name;
  return running(scheduled(p, "node-1", NOW), { nowMs: NOW, ready: true, rng });
}

/** Runs `main` until `ready` resolves, then stops it; returns its exit code. */
async function watchUntil(
  argv: string[],
  ready: (out: Output, err: Output) => Promise<void>,
  opts: { stderrIsTerminal?: boolean } = {},
): Promise<{ code: number; out: Output; err: Output }> {
  const out = new Output();
  const err = new Output();
  const stop = new AbortController();
  const exit = main(argv, {
    stdout: out.write,
    stderr: err.write,
    stderrIsTerminal: opts.stderrIsTerminal ?? false,
    signal: stop.signal,
    now: () => NOW + 5000,
    formatTime: () => "12:00:05",
    demoIntervalMs: 20,
  });
  await Promise.race([ready(out, err), exit]);
  stop.abort();
  return { code: await exit, out, err };
}

/**
 * Run main(argv) until it exits on its own (an error); then delete
 * `config`, the kubeconfig file passed with `--kubeconfig`, if given.
 */
async function runToExit(
  argv: string[],
  config?: string,
): Promise<{ code: number; out: Output; err: Output }> {
  const result = await watchUntil(
    config === undefined ? argv : [...argv, "--kubeconfig", config],
    () => new Promise(() => {}),
  );
  if (config !== undefined) await Deno.remove(config);
  return result;
}

Deno.test("main() prints the synced pods as a table, then one line per event", async () => {
  await using server = await FakeApiServer.start();
  const rng = new Rng(1);
  server.create(Pods, pod("web-1", "default", rng));
  server.create(Pods, pod("web-2", "default", rng));
  server.create(Pods, pod("other", "kube-system", rng));
  const config = await kubeconfigFile(server.url, { name: "alice" });
  const { code, out } = await watchUntil(
    ["watch", "po", "--kubeconfig", config],
    async (out) => {
      await out.until(/^TIME\s+EVENT/);
      const cur = server.list(Pods, "default")[0];
      server.update(Pods, {
        ...cur,
        metadata: { ...cur.metadata, labels: { tier: "web" } },
      });
      server.delete(Pods, "default", "web-2");
      await out.until(/DELETED/);
    },
  );
  await Deno.remove(config);
  assert.equal(code, 0);
  assert.match(out.lines[0], /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
  assert.match(out.lines[1], /^web-1\s+1\/1\s+Running\s+0\s+\S+$/);
  assert.match(out.lines[2], /^web-2\s+1\/1\s+Running\s+0\s+\S+$/);
  assert.ok(!out.text.includes("other"), "kube-system is not watched");
  assert.match(
    out.text,
    /^12:00:05\s+MODIFIED\s+default\/web-1\s+1\/1\s+Running\s+0\s+\S+$/m,
  );
  assert.match(out.text, /^12:00:05\s+DELETED\s+default\/web-2\s+1\/1/m);
});

Deno.test("main() watches every namespace with -A and prints deployments' columns", async () => {
  await using server = await FakeApiServer.start();
  server.create(Deployments, {
    metadata: { name: "api", namespace: "kube-system" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "api" } },
      template: { spec: { containers: [{ name: "c", image: "img:1" }] } },
    },
    status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  } as KubeObject);
  const config = await kubeconfigFile(server.url, { name: "alice" });
  const { code, out } = await watchUntil(
    ["watch", "deployments.apps", "-A", "-o", "wide", "--kubeconfig", config],
    (out) => out.until(/^TIME/),
  );
  await Deno.remove(config);
  assert.equal(code, 0);
  assert.match(
    out.lines[0],
    /^NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/,
  );
  assert.match(
    out.lines[1],
    /^kube-system\s+api\s+2\/3\s+3\s+2\s+\S+\s+c\s+img:1\s+app=api$/,
  );
});

Deno.test("main() prints JSON lines and names with -o json and -o name", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
  const config = await kubeconfigFile(server.url, { name: "alice" });
  const json = await watchUntil(
    ["watch", "cm", "-o", "json", "--kubeconfig", config],
    async (out) => {
      await out.until(/"ADDED"/);
      server.create(ConfigMaps, {
        metadata: { name: "b", namespace: "default" },
      });
      await out.until(/"name":"b"/);
    },
  );
  const first = JSON.parse(json.out.lines[0]);
  assert.equal(first.type, "ADDED");
  assert.equal(first.object.metadata.name, "a");
  const second = JSON.parse(json.out.lines[1]);
  assert.deepEqual([second.type, second.object.metadata.name], ["ADDED", "b"]);
  // Listed objects (whose list items lack them) and events alike.
  for (const { object } of [first, second]) {
    assert.deepEqual([object.apiVersion, object.kind], ["v1", "ConfigMap"]);
  }
  const names = await watchUntil(
    ["watch", "configmaps", "-o", "name", "--kubeconfig", config],
    async (out) => {
      await out.until(/^configmap\/b$/);
      server.delete(ConfigMaps, "default", "a");
      await out.until(/DELETED/);
    },
  );
  await Deno.remove(config);
  assert.deepEqual(names.out.lines, [
    "configmap/a",
    "configmap/b",
    "DELETED configmap/a",
  ]);
});

Deno.test("main() shows list progress on a terminal, with the server's total", async () => {
  await using server = await FakeApiServer.start();
  const rng = new Rng(2);
  for (let i = 0; i < 1200; i++) {
    server.create(Pods, pod(`p-${i}`, "default", rng));
  }
  const config = await kubeconfigFile(server.url, { name: "alice" });
  const { err, out } = await watchUntil(
    ["watch", "pods", "--kubeconfig", config],
    (out) => out.until(/^TIME/),
    { stderrIsTerminal: true },
  );
  await Deno.remove(config);
  const progress = err.lines.map((l) => l.replace("\r\x1b[2K", ""));
  assert.deepEqual(progress, [
    "Loading pods: 500 of 1,200",
    "Loading pods: 1,000 of 1,200",
    "Loading pods: 1,200",
    "",
  ]);
  assert.equal(out.lines.filter((l) => l.startsWith("p-")).length, 1200);
});

Deno.test("main() names the closest resource for an unknown one", async () => {
  await using server = await FakeApiServer.start();
  const config = await kubeconfigFile(server.url, { name: "alice" });
  const { code, err } = await runToExit(["watch", "podz"], config);
  assert.equal(code, 1);
  assert.equal(
    err.text,
    'error: Cannot resolve resource type "podz": the server does not have it; did you mean "pods"?\n',
  );
});

Deno.test("main() reports 401 and 403 naming the kubeconfig user", async () => {
  await using server = await FakeApiServer.start({ token: "right" });
  const wrong = await kubeconfigFile(server.url, {
    name: "alice",
    token: "wrong",
  });
  const unauthorized = await runToExit(["watch", "pods"], wrong);
  assert.equal(unauthorized.code, 1);
  assert.match(
    unauthorized.err.text,
    new RegExp(
      `^error: Unauthorized as user "alice" at ${server.url} \\(401\\)`,
    ),
  );
  assert.equal(unauthorized.err.lines.length, 1);

  const right = await kubeconfigFile(
    server.url,
    { name: "bob", token: "right" },
    { namespace: "team" },
  );
  server.faults.failNext(1, {
    status: 403,
    match: (req) => new URL(req.url).pathname.endsWith("/pods"),
  });
  const forbidden = await runToExit(["watch", "pods"], right);
  assert.equal(forbidden.code, 1);
  assert.match(
    forbidden.err.text,
    /^error: Forbidden as user "bob" at \S+ \(403\): not allowed to list pods in namespace "team"/,
  );
});

Deno.test("main() reports an unreachable server in one line", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const config = await kubeconfigFile(`http://127.0.0.1:${port}`, {
    name: "alice",
  });
  const { code, err } = await runToExit(["watch", "pods"], config);
  assert.equal(code, 1);
  assert.equal(
    err.text,
    `error: Cannot reach the API server at http://127.0.0.1:${port}: connection refused\n`,
  );
});

Deno.test("main() reports a missing kubeconfig and suggests --demo", async (t) => {
  await t.step("an explicit path", async () => {
    const { code, err } = await runToExit([
      "watch",
      "pods",
      "--kubeconfig",
      "/nonexistent/kubeconfig",
    ]);
    assert.equal(code, 1);
    assert.match(
      err.text,
      /^error: Cannot read kubeconfig \/nonexistent\/kubeconfig: /,
    );
    assert.equal(err.lines.length, 1);
  });
  await t.step("none anywhere", async () => {
    const home = await Deno.makeTempDir();
    const saved = ["HOME", "KUBECONFIG", "KUBERNETES_SERVICE_HOST"].map((k) =>
      [k, Deno.env.get(k)] as const
    );
    Deno.env.set("HOME", home);
    Deno.env.delete("KUBECONFIG");
    Deno.env.delete("KUBERNETES_SERVICE_HOST");
    try {
      const { code, err } = await runToExit(["watch", "pods"]);
      assert.equal(code, 1);
      assert.match(
        err.text,
        /^error: Cannot find a Kubernetes config: .*\(or use --demo to watch an embedded demo cluster\)\n$/,
      );
    } finally {
      for (const [k, v] of saved) {
        v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
      }
      await Deno.remove(home);
    }
  });
});

Deno.test("main() rejects a bad command line with exit code 2", async () => {
  const err = new Output();
  assert.equal(await main(["watch"], { stderr: err.write }), 2);
  assert.match(err.text, /^error: Missing resource/);
});

Deno.test("main() --demo shows the demo cluster's pods and their changes", async () => {
  const { code, out, err } = await watchUntil(
    ["watch", "pods", "-A", "--demo"],
    async (out, err) => {
      await out.until(/^TIME/);
      await out.until(/^12:00:05\s+(ADDED|MODIFIED|DELETED)\s+\S+\//);
      // The printed URL serves the demo cluster (kubectl could use it).
      const url = err.lines[0].match(/^demo cluster at (\S+) /)?.[1];
      const res = await fetch(`${url}/api/v1/namespaces/shop/pods`);
      assert.equal(res.status, 200);
      assert.ok((await res.json()).items.length > 0);
    },
  );
  assert.equal(code, 0);
  assert.match(
    out.lines[0],
    /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/,
  );
  for (const ns of ["default", "kube-system", "shop", "payments"]) {
    assert.ok(out.lines.some((l) => l.startsWith(ns + " ")), ns);
  }
  const m = err.lines[0].match(
    /^demo cluster at (http:\/\/127\.0\.0\.1:\d+) \(try: kubectl --server (\S+) get pods -A\)\n$/,
  );
  assert.ok(m, err.lines[0]);
  assert.equal(m[2], m[1]);
});

Deno.test("main() stops quietly with exit code 0 when stdout is closed", async () => {
  const lines: string[] = [];
  const err = new Output();
  const code = await main(
    ["watch", "deployment.apps", "--demo", "-n", "shop"],
    {
      stdout: (line) => {
        if (lines.length === 3) throw new Deno.errors.BrokenPipe("Broken pipe");
        lines.push(line);
      },
      stderr: err.write,
      stderrIsTerminal: false,
      demoIntervalMs: 20,
    },
  );
  assert.equal(code, 0);
  assert.equal(lines.length, 3);
  assert.deepEqual(err.lines.filter((l) => !l.startsWith("demo cluster")), []);
});

Deno.test("cli.ts piped into a reader that stops after 3 lines exits 0 quietly", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      new URL("./cli.ts", import.meta.url).pathname,
      "watch",
      "deployment.apps",
      "--demo",
      "-n",
      "shop",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Read three lines, then close the pipe as `head -3` does.
  const { code, stderr } = await headOf(child, 3);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /^demo cluster at \S+ .*\n$/);
});

Deno.test("cli.ts gen run as a program answers (it loads its subcommand, which imports cli.ts, without waiting on itself)", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      new URL("./cli.ts", import.meta.url).pathname,
      "gen",
      "--crd",
      "/nonexistent/widgets.yaml",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A hang is the failure: kill the program if it has not answered by then.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const { code, stderr } = await child.output();
  clearTimeout(guard);
  const text = new TextDecoder().decode(stderr);
  assert.equal(code, 1, text);
  assert.match(text, /nonexistent\/widgets\.yaml/);
});

Deno.test("main() says which flag lacks its value, with exit code 2", async () => {
  const err = new Output();
  const argv = ["watch", "cm", "-n", "--kubeconfig", "x"];
  assert.equal(await main(argv, { stderr: err.write }), 2);
  assert.equal(
    err.text,
    'error: flag needs an argument: -n\nRun "cli.ts --help" for usage.\n',
  );
});

Deno.test("cli.ts watches a server given by --server and --token, with no kubeconfig", async () => {
  await using server = await FakeApiServer.start({ token: "s3cret" });
  server.create(ConfigMaps, {
    metadata: { name: "app-config", namespace: "default" },
  });
  const home = await Deno.makeTempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-read",
      new URL("./cli.ts", import.meta.url).pathname,
      "watch",
      "cm",
      "--server",
      server.url,
      "--token",
      "s3cret",
      "-o",
      "name",
    ],
    env: { HOME: home },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const first = await readTextUntil(reader, (text) => text.includes("\n"));
  child.kill("SIGINT");
  const { text } = await readTextUntil(reader, undefined, first.text);
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  await Deno.remove(home, { recursive: true }); // Deno's cache lands there
  assert.equal(stderr, "");
  assert.equal(text, "configmap/app-config\n");
  assert.equal(status.code, 0);
});

Deno.test("main() warns once when the watch breaks after the sync, and says when it has resumed", async () => {
  const clock = new FakeClock(NOW);
  let server = await FakeApiServer.start();
  const port = server.port;
  const cm = (name: string): KubeObject => ({
    metadata: { namespace: "default", name },
  });
  server.create(ConfigMaps, cm("one"));
  const config = await kubeconfigFile(server.url, { name: "alice" });
  const out = new Output();
  const err = new Output();
  const stop = new AbortController();
  const exit = main(["watch", "cm", "-n", "default", "--kubeconfig", config], {
    stdout: out.write,
    stderr: err.write,
    stderrIsTerminal: false,
    signal: stop.signal,
    now: () => NOW,
    formatTime: () => "12:00:00",
    clock,
  });
  try {
    await out.until(/^one\s/);
    // The watch has been up a while when the server dies: every reconnect
    // is refused, through three backoffs. The first reconnect may still
    // reach the closing listener, which then drops it unanswered: either
    // reason is the truth about a server going away.
    await clock.step(60_000);
    await server.close();
    await err.until(/^warning: the watch of configmaps in default broke/);
    for (let i = 0; i < 3; i++) {
      await clock.waitForWaiters(1);
      await clock.step(clock.nextDue()! - clock.now());
    }
    await clock.waitForWaiters(1);
    assert.equal(err.lines.length, 1, err.text);
    assert.match(
      err.lines[0],
      new RegExp(
        `^warning: the watch of configmaps in default broke: Cannot reach the API server at http://127\\.0\\.0\\.1:${port}: (connection refused|Cannot read the response: the connection closed before an answer); retrying`,
      ),
    );
    // Back, with the data kept and a change made meanwhile.
    server = await FakeApiServer.start({ port });
    server.create(ConfigMaps, cm("one"));
    server.create(ConfigMaps, cm("two"));
    server.compact(); // a new watch cache: the old RV answers 410
    await clock.step(clock.nextDue()! - clock.now());
    await err.until(/^resumed/);
    assert.match(
      err.lines[1],
      /^resumed watching configmaps in default after \d+\.\d s \(relisted: changes made meanwhile follow as events\)\n$/,
    );
    await out.until(/ADDED\s+(default\/)?two/);
  } finally {
    stop.abort();
    assert.equal(await exit, 0);
    await server.close();
    await Deno.remove(config);
  }
});

Deno.test("main() --demo --port serves the demo on that port and --demo-kubeconfig lets other clients find it", async () => {
  // A port that is free now: the demo takes it next.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const dir = await Deno.makeTempDir();
  const file = `${dir}/demo.kubeconfig`;
  try {
    const { code, err } = await watchUntil(
      [
        "watch",
        "pods",
        "-A",
        "--demo",
        "--port",
        String(port),
        "--demo-kubeconfig",
        file,
      ],
      async (out) => {
        await out.until(/^NAMESPACE/);
        // Another client, configured by the file alone, sees the same cluster.
        const config = await KubeConfig.fromFile(file);
        assert.equal(config.server, `http://127.0.0.1:${port}`);
        assert.equal(config.namespace, "default");
        await using client = new KubeClient(config);
        const pods = await client.list(Pods, { namespace: "shop" });
        assert.ok(pods.items.length > 0);
      },
    );
    assert.equal(code, 0);
    assert.equal(
      err.lines[0],
      `demo cluster at http://127.0.0.1:${port} (try: kubectl --server http://127.0.0.1:${port} get pods -A)\n`,
    );
    assert.equal(
      err.lines[1],
      `wrote kubeconfig ${file} (try: KUBECONFIG=${file} kubectl get pods -A)\n`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("main() --demo --port on a port in use says so and exits 1", async () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const err = new Output();
  const code = await main(["watch", "pods", "--demo", "--port", String(port)], {
    stderr: err.write,
    stdout: () => {},
  });
  assert.equal(code, 1);
  assert.equal(
    err.text,
    `error: Cannot start the demo cluster on port ${port}: the port is in use (another demo running? choose another --port)\n`,
  );
});

/** A fetch failure as Deno reports it: the details are in the cause. */
function fetchError(cause: string): TypeError {
  return new TypeError("error sending request for url", {
    cause: new Error(cause),
  });
}

const CERT =
  'client error (Connect): invalid peer certificate: certificate not valid for name "10.0.0.1"; certificate is only valid for DnsName("archive.ubuntu.com")';

Deno.test("describeError() reports a certificate error naming a DnsName as a TLS failure", () => {
  const err = fetchError(CERT);
  assert.equal(
    describeError(err, { server: "https://10.0.0.1:6443" }),
    "Cannot reach the API server at https://10.0.0.1:6443: TLS handshake failed",
  );
});

Deno.test("describeError() still reports a failed lookup as host name not found", () => {
  const err = fetchError(
    "client error (Connect): dns error: failed to lookup address information",
  );
  assert.equal(
    describeError(err, { server: "https://nowhere.invalid" }),
    "Cannot reach the API server at https://nowhere.invalid: host name not found",
  );
});

Deno.test("describeError() uses KubeClient's explanation of insecure-skip-tls-verify as it is", () => {
  // As KubeClient throws it (client/transport_test.ts checks that side).
  const explained = new TypeError(
    "Cannot verify the certificate of the API server at https://10.0.0.1:6443: " +
      "insecure-skip-tls-verify is set, which Deno cannot apply " +
      "per client; run deno with --unsafely-ignore-certificate-errors=10.0.0.1",
    { cause: fetchError(CERT) },
  );
  assert.equal(
    describeError(explained, { server: "https://10.0.0.1:6443" }),
    explained.message,
  );
  // A certificate failure KubeClient did not explain keeps the usual line.
  assert.equal(
    describeError(fetchError(CERT), { server: "https://10.0.0.1:6443" }),
    "Cannot reach the API server at https://10.0.0.1:6443: TLS handshake failed",
  );
});
