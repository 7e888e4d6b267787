import assert from "node:assert/strict";
import { headOf, readTextUntil } from "../testing/read_text.ts";

/**
 * Runs an example against the embedded demo cluster. A long-running one
 * gets Ctrl-C once its output matches `interruptWhen`; returns the whole
 * output and whether it exited cleanly.
 */
async function runExample(
  file: string,
  interruptWhen?: RegExp,
): Promise<{ output: string; success: boolean }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(file, import.meta.url).pathname, "--demo"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let output = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  if (interruptWhen) {
    ({ text: output } = await readTextUntil(
      reader,
      (t) => interruptWhen.test(t),
    ));
    child.kill("SIGINT");
  }
  ({ text: output } = await readTextUntil(reader, undefined, output));
  const status = await child.status;
  return { output, success: status.success };
}

Deno.test("examples/watch_pods.ts prints existing pods, then changes, and stops on Ctrl-C", async () => {
  const { output, success } = await runExample(
    "watch_pods.ts",
    /^(added|phase|deleted) /m,
  );
  assert.match(output, /^existing shop\/frontend-\S+ Running$/m);
  assert.ok(success, output);
});

Deno.test("examples/configmap_controller.ts annotates config maps with their data hash", async () => {
  // Handlers run after the sync is reported, one patch at a time: wait for
  // the line itself, not for "synced" (which may come before any patch).
  const { output, success } = await runExample(
    "configmap_controller.ts",
    /^annotated shop\/feature-flags with [0-9a-f]{16}$/m,
  );
  assert.match(output, /^watching ConfigMaps as /m);
  assert.ok(success, output);
});

Deno.test("examples/custom_index.ts lists pods by node through the byNode index", async () => {
  const { output, success } = await runExample("custom_index.ts");
  assert.ok(success, output);
  const counts = [...output.matchAll(/^(demo-worker-\d): (\d+) pods$/gm)];
  assert.deepEqual(counts.map((m) => m[1]), ["demo-worker-1", "demo-worker-2"]);
  const listed = output.split("\n").filter((l) => l.startsWith("  ")).length;
  assert.equal(listed, counts.reduce((n, m) => n + Number(m[2]), 0));
});

Deno.test("examples/sharded_replicas.ts splits the demo's ConfigMaps between three replicas, then two", async () => {
  const { output, success } = await runExample(
    "sharded_replicas.ts",
    /stopping replica-b[\s\S]*replica-a: owns 50\.0%, [\s\S]*replica-c: owns 50\.0%, /,
  );
  assert.match(
    output,
    /^replica-a: owns 33\.3%, \d+ ConfigMaps reconciled, members replica-a,replica-b,replica-c$/m,
  );
  assert.ok(success, output);
});

/** Runs an example without --demo under `env`; returns its exit code and stderr. */
async function runWithout(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(file, import.meta.url).pathname],
    env,
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}

Deno.test("examples end with one error line, exit 1, without a cluster", async (t) => {
  const home = await Deno.makeTempDir();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const kubeconfig = `${home}/config`;
  await Deno.writeTextFile(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:${port}" } }]
users: [{ name: u, user: {} }]
contexts: [{ name: c, context: { cluster: c, user: u } }]
current-context: c
`,
  );
  const hint = / \(run with --demo to use the embedded cluster\)\n$/;
  for (
    const file of [
      "watch_pods.ts",
      "configmap_controller.ts",
      "secret_generator.ts",
      "custom_index.ts",
    ]
  ) {
    await t.step(`${file}, no kubeconfig`, async () => {
      const { code, stderr } = await runWithout(file, { HOME: home });
      assert.equal(code, 1, stderr);
      assert.match(stderr, /^error: Cannot find a Kubernetes config/);
      assert.match(
        stderr,
        /\(or use --demo to watch an embedded demo cluster\)\n$/,
      );
      assert.equal(stderr.split("--demo").length, 2, "one hint");
      assert.equal(stderr.split("\n").length, 2, stderr);
    });
  }
  await t.step("custom_index.ts, unreachable server", async () => {
    const { code, stderr } = await runWithout("custom_index.ts", {
      HOME: home,
      KUBECONFIG: kubeconfig,
    });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^error: .*127\.0\.0\.1/);
    assert.match(stderr, hint);
    assert.equal(stderr.split("\n").length, 2, stderr);
  });
  await Deno.remove(home, { recursive: true });
});

Deno.test("examples/watch_pods.ts piped into a reader that stops after 3 lines exits 0, as cli.ts does", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("watch_pods.ts", import.meta.url).pathname,
      "--demo",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Read three lines, then close the pipe as `head -3` does.
  const { code, stderr } = await headOf(child, 3);
  assert.equal(code, 0, stderr);
  // Only where the demo cluster is: no error about the closed pipe.
  assert.match(
    stderr,
    /^demo cluster at http:\/\/127\.0\.0\.1:\d+ \(try: [^\n]*\)\n$/,
  );
});

Deno.test("examples import only public entry points and redefine none of the module's types", async () => {
  // The entry points deno.json exports, as files of the checkout.
  const exports = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  ).exports as Record<string, string>;
  const publicFiles = new Set(
    Object.values(exports).map((f) => new URL(`../${f}`, import.meta.url).href),
  );
  // The types mod.ts exports, as `deno doc` lists them.
  const doc = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", new URL("../mod.ts", import.meta.url).pathname],
    stdout: "piped",
  }).output();
  const exported = new Set<string>();
  const { nodes } = JSON.parse(new TextDecoder().decode(doc.stdout)) as {
    nodes: Record<string, {
      symbols: { name: string; declarations: { kind: string }[] }[];
    }>;
  };
  for (const { symbols } of Object.values(nodes)) {
    for (const { name, declarations } of symbols) {
      if (
        declarations.some((d) =>
          d.kind === "interface" || d.kind === "typeAlias"
        )
      ) exported.add(name);
    }
  }
  assert.ok(exported.has("Pod") && exported.has("KubeObject"));
  for await (const entry of Deno.readDir(new URL(".", import.meta.url))) {
    if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) {
      continue;
    }
    const url = new URL(entry.name, import.meta.url);
    const source = await Deno.readTextFile(url);
    for (const m of source.matchAll(/from "(\.[^"]+)"/g)) {
      const target = new URL(m[1], url);
      const local = target.href.startsWith(new URL(".", import.meta.url).href);
      assert.ok(
        publicFiles.has(target.href) || local,
        `${entry.name} imports ${m[1]}, which is not a public entry point`,
      );
    }
    for (
      const m of source.matchAll(/^(?:export )?(?:type|interface) (\w+)\b/gm)
    ) {
      assert.ok(
        !exported.has(m[1]),
        `${entry.name} defines its own ${m[1]}; use the module's`,
      );
    }
  }
});

Deno.test("an example copied out of the checkout on its own type-checks with README's import map and import mapping", async () => {
  const checkout = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  // The import map of "Using it outside the checkout", at this checkout.
  const section = readme.slice(
    readme.indexOf("### Using it outside the checkout"),
  );
  const from = section.indexOf("```json\n") + 8;
  const json = section.slice(from, section.indexOf("```", from));
  const dir = await Deno.makeTempDir({ prefix: "kubecache-copyex-" });
  try {
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      json.replaceAll("/path/to/kubecache", checkout),
    );
    const files = [
      "watch_pods.ts",
      "custom_index.ts",
      "configmap_controller.ts",
      "secret_generator.ts",
    ];
    for (const file of files) {
      // README: `../mod.ts` → `@kubecache/core`, `../X/mod.ts` or `../cli.ts`
      // → `@kubecache/core/X`, `@kubecache/core/cli`; nothing else to copy.
      const source = (await Deno.readTextFile(new URL(file, import.meta.url)))
        .replaceAll('"../mod.ts"', '"@kubecache/core"')
        .replace(/"\.\.\/(\w+)\/mod\.ts"/g, '"@kubecache/core/$1"')
        .replaceAll('"../cli.ts"', '"@kubecache/core/cli"');
      await Deno.writeTextFile(`${dir}/${file}`, source);
    }
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", ...files],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("examples/secret_generator.ts --demo says where the demo cluster is, so kubectl can drive it", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("secret_generator.ts", import.meta.url).pathname,
      "--demo",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { text } = await readTextUntil(reader, (t) => t.includes("\n"));
  // Ctrl-C once it runs (its signal handlers are installed by then).
  await readTextUntil(out, (t) => t.includes("generating Secrets"));
  child.kill("SIGINT");
  await readTextUntil(out);
  const { text: rest } = await readTextUntil(reader);
  const status = await child.status;
  assert.match(
    text,
    /^demo cluster at (http:\/\/127\.0\.0\.1:\d+) \(try: kubectl --server \1 get pods -A\)\n/,
  );
  assert.equal(rest, "");
  assert.ok(status.success);
});
