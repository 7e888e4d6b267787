// The webhook server over real HTTPS with openssl-made certificates: it
// serves the registry, swaps a rotated certificate in on the same port
// while a call on the old one finishes, keeps the old pair when the new
// files do not match, and counts calls as controller-runtime does.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";
import { MetricsRegistry } from "./metrics.ts";
import { WebhookRegistry } from "./webhook.ts";
import { WebhookServer } from "./webhook_server.ts";

const PATH = "/validate--v1-configmap";
const noOpenssl = !(await hasOpenssl());

function review(uid: string) {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      operation: "CREATE",
      userInfo: {},
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: uid } },
    },
  });
}

/** POST a review through a client that trusts only `ca`; the answer's uid. */
async function call(
  port: number,
  ca: string,
  uid: string,
  path = PATH,
): Promise<string> {
  using client = Deno.createHttpClient({ caCerts: [ca] });
  const res = await fetch(`https://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: review(uid),
    client,
  });
  const body = await res.json();
  return body.response.uid;
}

async function refuses(port: number, ca: string): Promise<boolean> {
  try {
    await call(port, ca, "x");
    return false;
  } catch {
    return true;
  }
}

/** Step the clock a second at a time until `cond` holds: real file and socket I/O, bounded at 10 s. */
async function until(
  clock: FakeClock,
  cond: () => Promise<boolean>,
  what: string,
) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    clock.step(1_000);
    await new Promise((r) => setTimeout(r, 20));
    if (await cond()) return;
  }
  throw new Error(`gave up after 10 s waiting for ${what}`);
}

async function setup() {
  const pki1 = await makePki();
  const pki2 = await makePki();
  const certFile = `${pki1.dir}/tls.crt`;
  const keyFile = `${pki1.dir}/tls.key`;
  await Deno.writeTextFile(certFile, pki1.serverCert);
  await Deno.writeTextFile(keyFile, pki1.serverKey);
  return {
    pki1,
    pki2,
    certFile,
    keyFile,
    async [Symbol.asyncDispose]() {
      await pki1[Symbol.asyncDispose]();
      await pki2[Symbol.asyncDispose]();
    },
  };
}

Deno.test({
  name:
    "WebhookServer: serves the registry over HTTPS and counts calls as controller-runtime",
  ignore: noOpenssl,
  async fn() {
    await using f = await setup();
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).validator({});
    const metrics = new MetricsRegistry();
    await using server = new WebhookServer(
      {
        port: 0,
        hostname: "127.0.0.1",
        certFile: f.certFile,
        keyFile: f.keyFile,
      },
      { registry, metrics, clock: new FakeClock() },
    );
    assert.equal(server.listening, false);
    await server.start();
    assert.equal(server.listening, true);
    const port = server.addr!.port;
    assert.equal(await call(port, f.pki1.ca, "a"), "a");
    assert.equal(await call(port, f.pki1.ca, "b"), "b");
    const text = metrics.expose();
    const label = `webhook="${PATH}"`;
    assert.match(
      text,
      new RegExp(
        `^controller_runtime_webhook_requests_total\\{code="200",${label}\\} 2$`,
        "m",
      ),
    );
    assert.match(
      text,
      new RegExp(
        `^controller_runtime_webhook_requests_total\\{code="500",${label}\\} 0$`,
        "m",
      ),
    );
    assert.match(
      text,
      new RegExp(
        `^controller_runtime_webhook_requests_in_flight\\{${label}\\} 0$`,
        "m",
      ),
    );
    assert.match(
      text,
      new RegExp(
        `^controller_runtime_webhook_latency_seconds_count\\{${label}\\} 2$`,
        "m",
      ),
    );
    // controller-runtime's buckets: 1e-8 s times powers of ten.
    assert.match(
      text,
      /controller_runtime_webhook_latency_seconds_bucket\{webhook="[^"]+",le="1e-08"\} /,
    );
    // Garbage is answered with a coded denial, never a crash.
    {
      using client = Deno.createHttpClient({ caCerts: [f.pki1.ca] });
      const res = await fetch(`https://127.0.0.1:${port}${PATH}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "\u0000garbage",
        client,
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).response.status.code, 400);
    }
    await server.close();
    assert.equal(server.listening, false);
  },
});

Deno.test({
  name:
    "WebhookServer: a rotated certificate is served on the same port; a call in flight on the old one finishes",
  ignore: noOpenssl,
  async fn() {
    await using f = await setup();
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).validator({});
    const gate = Promise.withResolvers<void>();
    const entered = Promise.withResolvers<void>();
    registry.handle("/slow", async (req) => {
      entered.resolve();
      await gate.promise;
      return { uid: req.uid, allowed: true };
    });
    const clock = new FakeClock();
    await using server = new WebhookServer(
      {
        port: 0,
        hostname: "127.0.0.1",
        certFile: f.certFile,
        keyFile: f.keyFile,
      },
      { registry, clock },
    );
    await server.start();
    const port = server.addr!.port;
    assert.equal(await call(port, f.pki1.ca, "before"), "before");
    assert.equal(await refuses(port, f.pki2.ca), true);
    const slow = call(port, f.pki1.ca, "slow", "/slow");
    await entered.promise;

    // cert-manager rewrites the secret: a certificate of another CA.
    await Deno.writeTextFile(f.certFile, f.pki2.serverCert);
    await Deno.writeTextFile(f.keyFile, f.pki2.serverKey);
    await until(
      clock,
      async () => !(await refuses(port, f.pki2.ca)),
      "the new certificate",
    );
    assert.equal(server.addr!.port, port);
    assert.equal(await call(port, f.pki2.ca, "after"), "after");
    assert.equal(await refuses(port, f.pki1.ca), true);
    gate.resolve();
    assert.equal(await slow, "slow");
  },
});

Deno.test({
  name:
    "WebhookServer: a new certificate with a key that is not its own is not used; the old pair serves on",
  ignore: noOpenssl,
  async fn() {
    await using f = await setup();
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).validator({});
    const clock = new FakeClock();
    const warnings: string[] = [];
    await using server = new WebhookServer(
      {
        port: 0,
        hostname: "127.0.0.1",
        certFile: f.certFile,
        keyFile: f.keyFile,
      },
      { registry, clock, onWarning: (m) => warnings.push(m) },
    );
    await server.start();
    const port = server.addr!.port;
    // Half-way through a rotation: the certificate is new, the key old.
    await Deno.writeTextFile(f.certFile, f.pki2.serverCert);
    await until(clock, () => Promise.resolve(warnings.length > 0), "a warning");
    assert.match(
      warnings[0],
      /^Cannot use webhook serving certificate .*tls\.crt with key .*tls\.key: /,
    );
    assert.equal(await call(port, f.pki1.ca, "still"), "still");
    // The key arrives: the pair is used.
    await Deno.writeTextFile(f.keyFile, f.pki2.serverKey);
    await until(
      clock,
      async () => !(await refuses(port, f.pki2.ca)),
      "the completed pair",
    );
    assert.equal(warnings.length, 1);
  },
});

Deno.test({
  name: "WebhookServer: start rejects when the files cannot be read",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    const warnings: string[] = [];
    await using server = new WebhookServer(
      {
        port: 0,
        hostname: "127.0.0.1",
        certFile: "/nonexistent/tls.crt",
        keyFile: "/nonexistent/tls.key",
      },
      { registry, onWarning: (m) => warnings.push(m) },
    );
    await assert.rejects(
      server.start(),
      /WebhookServer.start: cannot use certificate \/nonexistent\/tls.crt/,
    );
    assert.equal(warnings.length, 1);
    assert.equal(server.listening, false);
  },
});
