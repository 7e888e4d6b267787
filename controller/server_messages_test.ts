// What a program is told when a server cannot start or an informer stops:
// a taken port names the server and the address (Deno alone says "Address
// already in use (os error 98)"); a fatal informer error under a Manager is
// said once, by run()'s rejection, not once more by the informer's log.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";
import { EndpointServer } from "./health.ts";
import { Manager } from "./manager.ts";
import { WebhookRegistry } from "./webhook.ts";
import { WebhookServer } from "./webhook_server.ts";
import { TestCluster } from "./_test_util.ts";

/** A port held open for the test, released on dispose. */
function takenPort(): { port: number } & Disposable {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  return {
    port: (l.addr as Deno.NetAddr).port,
    [Symbol.dispose]: () => l.close(),
  };
}

Deno.test("a taken port names the server and the address: the Manager's metrics, health, and shared endpoint servers", async () => {
  await using c = await TestCluster.start();
  using taken = takenPort();
  const at = `127.0.0.1:${taken.port}`;
  for (
    const [opts, server] of [
      [{ metrics: { port: taken.port } }, "the metrics server"],
      [{ health: { port: taken.port } }, "the health server"],
      [
        { metrics: { port: taken.port }, health: { port: taken.port } },
        "the metrics and health server",
      ],
    ] as const
  ) {
    await using manager = new Manager(c.client(), { clock: c.clock, ...opts });
    manager.controller("cm", ConfigMaps).complete(() => {});
    await assert.rejects(
      manager.run(new AbortController().signal),
      (err: Error) => {
        assert.ok(err instanceof Deno.errors.AddrInUse);
        assert.equal(
          err.message,
          `${server} cannot listen on ${at}: the port is in use (another process, or another server of this program, has it)`,
        );
        assert.ok(err.cause instanceof Deno.errors.AddrInUse);
        return true;
      },
    );
  }
  assert.throws(
    () => new EndpointServer({ port: taken.port }, {}),
    { message: new RegExp(`^the endpoint server cannot listen on ${at}: `) },
  );
});

Deno.test("a taken port names the server and the address: FakeApiServer", async () => {
  using taken = takenPort();
  await assert.rejects(
    FakeApiServer.start({ port: taken.port }),
    (err: Error) => {
      assert.ok(err instanceof Deno.errors.AddrInUse);
      assert.match(
        err.message,
        new RegExp(
          `^FakeApiServer cannot listen on 127\\.0\\.0\\.1:${taken.port}: the port is in use`,
        ),
      );
      return true;
    },
  );
});

Deno.test({
  name: "a taken port names the server and the address: the webhook server",
  ignore: !(await hasOpenssl()),
  async fn() {
    await using pki = await makePki();
    const certFile = `${pki.dir}/tls.crt`;
    const keyFile = `${pki.dir}/tls.key`;
    await Deno.writeTextFile(certFile, pki.serverCert);
    await Deno.writeTextFile(keyFile, pki.serverKey);
    using taken = takenPort();
    await using server = new WebhookServer(
      { port: taken.port, hostname: "127.0.0.1", certFile, keyFile },
      { registry: new WebhookRegistry() },
    );
    await assert.rejects(server.start(), (err: Error) => {
      assert.ok(err instanceof Deno.errors.AddrInUse);
      assert.match(
        err.message,
        new RegExp(
          `^the webhook server cannot listen on 127\\.0\\.0\\.1:${taken.port}: the port is in use`,
        ),
      );
      return true;
    });
  },
});

Deno.test("a Manager whose informer cannot reach the server (no --allow-net for it) says so once: run() rejects naming it, the informer does not log it too", async () => {
  await using server = await FakeApiServer.start();
  // The client goes to "localhost", which --allow-net=127.0.0.1 does not
  // cover; the program prints run()'s error as docs/controllers.md shows.
  const root = new URL("../", import.meta.url);
  const script = `
    import { Manager } from ${
    JSON.stringify(new URL("controller/mod.ts", root).href)
  };
    import { ConfigMaps, KubeClient, KubeConfig } from ${
    JSON.stringify(new URL("mod.ts", root).href)
  };
    const client = new KubeClient(KubeConfig.fromOptions({
      server: ${JSON.stringify(server.url.replace("127.0.0.1", "localhost"))},
    }));
    await using manager = new Manager(client);
    manager.controller("labeller", ConfigMaps).complete(() => {});
    try {
      await manager.run(new AbortController().signal);
    } catch (err) {
      console.error(\`error: \${err instanceof Error ? err.message : err}\`);
      Deno.exitCode = 1;
    }
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--allow-net=127.0.0.1", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000), // a guard: it ends at once
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const { code, stderr } = await child.output();
  const text = new TextDecoder().decode(stderr);
  assert.equal(code, 1, text);
  assert.equal(
    text,
    `error: controller "labeller": an informer stopped before it synced: configmaps (Requires net access to "${
      new URL(server.url.replace("127.0.0.1", "localhost")).host
    }", run again with the --allow-net flag)\n`,
  );
});
