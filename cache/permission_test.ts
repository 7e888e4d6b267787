/**
 * A permission Deno denied (no `--allow-net` for the server) can never
 * succeed on retry: the Reflector stops on it, the informer stops on it as
 * a fatal error (hasSynced() false for good, run() and the factory's
 * stopped() reject, health().lastError), and waitForCacheSync resolves
 * false instead of waiting forever.
 */

import assert from "node:assert/strict";
import type { KubeObject } from "../api/object.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import { eventually } from "../testing/turns.ts";
import { newSharedIndexInformer, waitForCacheSync } from "./shared_informer.ts";

const denied = () =>
  new Deno.errors.NotCapable(
    'Requires net access to "127.0.0.1:8080", run again with the --allow-net flag',
  );

Deno.test("an informer whose list Deno refuses stops with a fatal error; waitForCacheSync resolves false", async () => {
  const clock = new FakeClock();
  const source = new FakeControllerSource<KubeObject>();
  source.failNext("list", denied());
  const reported: [unknown, string][] = [];
  const informer = newSharedIndexInformer(source, {
    clock,
    errorHandler: (err, ctx) => void reported.push([err, ctx.source]),
  });
  let watchErrors = 0;
  informer.setWatchErrorHandler(() => watchErrors++);
  const stop = new AbortController();
  // Handled from the start: run() may reject before the informer is seen
  // stopped, and a rejection nobody handles yet fails the test module.
  const running = assert.rejects(
    informer.run(stop.signal),
    Deno.errors.NotCapable,
  );
  // No clock step: a denied permission is not waited out and retried.
  await eventually(() => informer.isStopped(), "the informer to stop");
  const synced = await waitForCacheSync(
    { signal: stop.signal, clock },
    informer.hasSynced,
  );
  assert.equal(synced, false);
  await running;
  assert.equal(informer.hasSynced(), false);
  assert.equal(informer.isStopped(), true);
  assert.equal(reported.length, 1);
  assert.ok(reported[0][0] instanceof Deno.errors.NotCapable);
  assert.equal(reported[0][1], "fatal");
  assert.ok(informer.health()?.lastError instanceof Deno.errors.NotCapable);
  assert.equal(watchErrors, 1);
  assert.equal(clock.hasWaiters(), false); // no backoff pending
  stop.abort();
});

Deno.test("a watch Deno refuses (a denied cause down the chain) stops a synced informer too", async () => {
  const clock = new FakeClock();
  const source = new FakeControllerSource<KubeObject>();
  source.failNext(
    "watch",
    new TypeError("Cannot open the watch", { cause: denied() }),
  );
  const informer = newSharedIndexInformer(source, {
    clock,
    errorHandler: () => {},
  });
  const stop = new AbortController();
  const running = assert.rejects(informer.run(stop.signal), TypeError);
  await eventually(() => informer.isStopped(), "the informer to stop");
  await running;
  assert.equal(informer.hasSynced(), false);
  stop.abort();
});

Deno.test("without --allow-net a KubeClient-backed factory fails at once: waitForCacheSync resolves false and stopped() rejects (subprocess)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-denied-" });
  try {
    const mod = new URL("../mod.ts", import.meta.url).href;
    const script = `${dir}/main.ts`;
    await Deno.writeTextFile(
      script,
      `import { ConfigMaps, KubeClient, KubeConfig, SharedInformerFactory } from "${mod}";
const client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:6443" }));
const factory = new SharedInformerFactory(client);
const informer = factory.informerFor(ConfigMaps);
const ac = new AbortController();
factory.start(ac.signal);
const synced = await factory.waitForCacheSync(ac.signal);
const failure = await factory.stopped().then(() => "resolved", (e) => e.constructor.name);
console.log(JSON.stringify({ synced: synced.get(ConfigMaps), failure, hasSynced: informer.hasSynced() }));
client.close();
`,
    );
    // Port 6443, not a "bad port" such as 9, which fetch refuses itself.
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--no-lock",
        "--no-config",
        "--allow-read",
        script,
      ],
      stdout: "piped",
      stderr: "piped",
      // Without the fix the child retries forever: bound it.
      signal: AbortSignal.timeout(60_000),
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), {
      synced: false,
      failure: "NotCapable",
      hasSynced: false,
    });
    // The default report: one line, the permission's own message.
    assert.equal(
      stderr,
      'configmaps: stopped on a fatal error: Requires net access to "127.0.0.1:6443", run again with the --allow-net flag\n',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
