import assert from "node:assert/strict";

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
  while (interruptWhen && !interruptWhen.test(output)) {
    const { value, done } = await reader.read();
    if (done) break;
    output += value;
  }
  if (interruptWhen) child.kill("SIGINT");
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    output += value;
  }
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
  const { output, success } = await runExample(
    "configmap_controller.ts",
    /^synced; watching ConfigMaps/m,
  );
  assert.match(output, /^annotated shop\/feature-flags with [0-9a-f]{16}$/m);
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
