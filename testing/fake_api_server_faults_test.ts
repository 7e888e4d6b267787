import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { ConfigMaps } from "../api/resources.ts";
import { getJson, WatchReader } from "./_apiserver_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";

/** Watch the default namespace's ConfigMaps from `rv`. */
const watchFrom = (server: FakeApiServer, rv: string) =>
  WatchReader.open(server, `${CM}?watch=true&resourceVersion=${rv}`);

function cm(name: string, data?: Record<string, string>) {
  return { metadata: { name, namespace: "default" }, data };
}

Deno.test("FakeApiServer.faults.failNext() fails the next n requests with 429 and Retry-After", async () => {
  await using server = await FakeApiServer.start();
  server.faults.failNext(2, { status: 429, retryAfterSeconds: 3 });
  for (let i = 0; i < 2; i++) {
    const r = await getJson(server, CM);
    assert.equal(r.status, 429);
    assert.equal(r.headers.get("retry-after"), "3");
    assert.equal(r.body.reason, "TooManyRequests");
    assert.equal(
      (r.body.details as { retryAfterSeconds: number }).retryAfterSeconds,
      3,
    );
  }
  assert.equal((await getJson(server, CM)).status, 200);
});

Deno.test("FakeApiServer.faults.failNext() default bodies for 500, 503 and 504", async () => {
  await using server = await FakeApiServer.start();
  server.faults.failNext(1, { status: 500 });
  server.faults.failNext(1, { status: 503 });
  server.faults.failNext(1, { status: 504 });
  const reasons = [];
  for (let i = 0; i < 3; i++) {
    const r = await getJson(server, CM);
    reasons.push([r.status, r.body.reason, r.body.code]);
    if (r.status === 504) {
      const causes = (r.body.details as { causes: { reason: string }[] })
        .causes;
      assert.equal(causes[0].reason, "ResourceVersionTooLarge");
    }
  }
  assert.deepEqual(reasons, [
    [500, "InternalError", 500],
    [503, "ServiceUnavailable", 503],
    [504, "Timeout", 504],
  ]);
});

Deno.test("FakeApiServer.faults.failNext() with match and a custom body only fails matching requests", async () => {
  await using server = await FakeApiServer.start();
  server.faults.failNext(1, {
    status: 500,
    body: "boom",
    match: (req) => new URL(req.url).searchParams.get("watch") === "true",
  });
  assert.equal((await getJson(server, CM)).status, 200);
  const res = await fetch(`${server.url}${CM}?watch=true`);
  assert.equal(res.status, 500);
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(await res.text(), "boom");
  const w = await WatchReader.open(server, `${CM}?watch=true`);
  await w.cancel();
});

Deno.test("FakeApiServer.faults.clear() drops pending failures", async () => {
  await using server = await FakeApiServer.start();
  server.faults.failNext(5, { status: 503 });
  server.faults.clear();
  assert.equal((await getJson(server, CM)).status, 200);
});

Deno.test("FakeApiServer.faults.failNext() validates its arguments", async () => {
  await using server = await FakeApiServer.start();
  assert.throws(() => server.faults.failNext(0, { status: 500 }), RangeError);
  assert.throws(() => server.faults.failNext(1, { status: 42 }), RangeError);
  assert.throws(() => server.faults.latency(-1), RangeError);
  assert.throws(() => server.faults.closeWatchesAfter(1.5), RangeError);
  assert.throws(() => server.faults.splitWrites([-1]), RangeError);
});

Deno.test("FakeApiServer.faults.closeWatches() ends open watches cleanly", async () => {
  await using server = await FakeApiServer.start();
  const rv = server.resourceVersion();
  const w = await watchFrom(server, rv);
  server.create(ConfigMaps, cm("a"));
  server.faults.closeWatches();
  server.create(ConfigMaps, cm("b"));
  assert.deepEqual((await w.rest()).map((e) => e.object.metadata.name), ["a"]);
});

Deno.test("FakeApiServer.faults.closeWatchesAfter() ends open and later watches after n events", async () => {
  await using server = await FakeApiServer.start();
  const rv = server.resourceVersion();
  const w = await watchFrom(server, rv);
  server.faults.closeWatchesAfter(2);
  for (const n of ["a", "b", "c"]) server.create(ConfigMaps, cm(n));
  assert.deepEqual((await w.rest()).map((e) => e.object.metadata.name), [
    "a",
    "b",
  ]);
  const later = await watchFrom(server, rv);
  assert.deepEqual((await later.rest()).map((e) => e.object.metadata.name), [
    "a",
    "b",
  ]);
  server.faults.clear();
  const free = await watchFrom(server, rv);
  assert.equal((await free.take(3)).length, 3);
  await free.cancel();
});

/** A server whose ConfigMap watch `w` from `rv` is stalled, then "a" is created. */
async function stalledWatch() {
  const server = await FakeApiServer.start();
  const rv = server.resourceVersion();
  const w = await watchFrom(server, rv);
  server.faults.stallWatches(true);
  server.create(ConfigMaps, cm("a"));
  return { server, rv, w };
}

Deno.test("FakeApiServer.faults.stallWatches() keeps watches open and silent", async () => {
  const { server: started, rv, w } = await stalledWatch();
  await using server = started;
  const fresh = await watchFrom(server, rv);
  // Nothing was sent while stalled: ending the streams now shows it.
  server.faults.closeWatches();
  assert.deepEqual(await w.rest(), []);
  assert.deepEqual(await fresh.rest(), []);
});

Deno.test("FakeApiServer.faults.stallWatches(false) delivers what was held back", async () => {
  const { server: started, w } = await stalledWatch();
  await using server = started;
  server.faults.stallWatches(false);
  assert.equal((await w.next())?.object.metadata.name, "a");
  await w.cancel();
});

/** Read a body chunk by chunk as the client receives it. */
async function chunks(res: Response): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of res.body!) out.push(c);
  return out;
}

function isInsideCharacter(chunk: Uint8Array): boolean {
  // Ends with a lead byte or a continuation byte of an unfinished character.
  let i = chunk.length - 1;
  let cont = 0;
  while (i >= 0 && (chunk[i] & 0xc0) === 0x80) {
    cont++;
    i--;
  }
  if (i < 0) return false;
  const lead = chunk[i];
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > cont;
}

Deno.test("FakeApiServer.faults.splitWrites() cuts bodies at the given offsets, inside UTF-8 characters", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, cm("u", { text: "h€llo 𝄞 wörld" }));
  const whole = new TextEncoder().encode(
    JSON.stringify(server.get(ConfigMaps, "default", "u")),
  );
  const euro = whole.indexOf(0xe2); // first byte of "€"
  server.faults.splitWrites([euro + 1, euro + 2]);
  const got = await chunks(await fetch(`${server.url}${CM}/u`));
  assert.deepEqual(got.map((c) => c.length), [
    euro + 1,
    1,
    whole.length - euro - 2,
  ]);
  assert.ok(isInsideCharacter(got[0]));
  const text = new TextDecoder().decode(
    new Uint8Array(got.flatMap((c) => [...c])),
  );
  assert.equal(JSON.parse(text).data.text, "h€llo 𝄞 wörld");
});

Deno.test("FakeApiServer.faults.splitWrites('random') splits watch events, which still decode", async () => {
  await using server = await FakeApiServer.start();
  server.faults.splitWrites("random", 7);
  const rv = server.resourceVersion();
  const res = await fetch(
    `${server.url}${CM}?watch=true&resourceVersion=${rv}`,
  );
  const names = ["n0", "n1", "n2", "n3", "n4"];
  names.forEach((n, i) =>
    server.create(ConfigMaps, cm(n, { v: "é€𝄞".repeat(i + 1) }))
  );
  server.faults.closeWatches();
  const got = await chunks(res);
  assert.ok(got.length > names.length, `${got.length} chunks`);
  const lines = new TextDecoder().decode(
    new Uint8Array(got.flatMap((c) => [...c])),
  ).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.object.metadata.name), names);
});

Deno.test("FakeApiServer.faults.latency() delays requests on the server's clock", async () => {
  const clock = new FakeClock();
  await using server = await FakeApiServer.start({ clock });
  server.faults.latency(500);
  const pending = fetch(`${server.url}/healthz`);
  await clock.waitForWaiters(1);
  assert.equal(server.requests.at(-1)?.path, "/healthz");
  await clock.step(500);
  const res = await pending;
  assert.equal(await res.text(), "ok");
  server.faults.latency(0);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
});

Deno.test("FakeApiServer.requests logs every request, failed ones included", async () => {
  await using server = await FakeApiServer.start();
  server.faults.failNext(1, { status: 500 });
  await (await fetch(`${server.url}${CM}?limit=5`)).body?.cancel();
  await (await fetch(`${server.url}${CM}/x`, { method: "DELETE" })).body
    ?.cancel();
  assert.deepEqual(
    server.requests.map((r) => [r.method, r.path, r.query.get("limit")]),
    [["GET", CM, "5"], ["DELETE", `${CM}/x`, null]],
  );
  assert.ok(server.requests.every((r) => typeof r.at === "number"));
});

Deno.test("FakeApiServer with a token answers 401 to other tokens and 403 to anonymous requests", async () => {
  await using server = await FakeApiServer.start({ token: "s3cret" });
  const auth = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
  assert.equal((await getJson(server, CM, auth("s3cret"))).status, 200);
  const bad = await getJson(server, CM, auth("nope"));
  assert.equal(bad.status, 401);
  assert.equal(bad.body.reason, "Unauthorized");
  const anon = await getJson(server, CM);
  assert.equal(anon.status, 403);
  assert.equal(anon.body.reason, "Forbidden");
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(await health.text(), "ok");
});
