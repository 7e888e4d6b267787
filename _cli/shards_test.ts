import assert from "node:assert/strict";
import { main } from "../cli.ts";
import { Leases } from "../api/resources.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import {
  SHARD_GROUP_LABEL,
  SHARD_RANGES_ANNOTATION,
} from "../controller/sharding.ts";

const NOW = Date.parse("2026-01-01T00:01:00Z");

function member(name: string, holder: string, renew: string, ranges: string) {
  return {
    metadata: {
      name: `cms-${name}`,
      namespace: "kube-system",
      labels: { [SHARD_GROUP_LABEL]: "cms" },
      annotations: { [SHARD_RANGES_ANNOTATION]: ranges },
    },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      renewTime: renew,
      acquireTime: renew,
    },
  };
}

Deno.test("cli.ts shards --name prints each member's state, share, ranges and renew age", async () => {
  await using server = await FakeApiServer.start();
  server.create(
    Leases,
    member("a", "a", "2026-01-01T00:00:58.000000Z", "0x0-0x8000000000000000"),
  );
  server.create(
    Leases,
    member(
      "b",
      "b",
      "2026-01-01T00:00:10.000000Z",
      "0x8000000000000000-0x10000000000000000",
    ),
  );
  server.create(
    Leases,
    member("c", "", "2026-01-01T00:00:59.000000Z", "0x0-0x1"),
  );
  // Not of the group.
  server.create(Leases, {
    metadata: { name: "other", namespace: "kube-system" },
    spec: { holderIdentity: "x" },
  });
  const out: string[] = [];
  const code = await main([
    "shards",
    "--name",
    "cms",
    "-n",
    "kube-system",
    "-s",
    server.url,
  ], {
    stdout: (l) => out.push(l),
    stderr: (t) => out.push(`ERR ${t}`),
    clock: new FakeClock(NOW),
  });
  assert.equal(code, 0);
  assert.deepEqual(out.map((l) => l.split(/\s{3,}/)), [
    ["IDENTITY", "STATE", "SHARE", "RANGES", "RENEWED"],
    ["a", "live", "50.00%", "0x0-0x8000000000000000", "2s"],
    ["b", "expired", "50.00%", "0x8000000000000000-0x10000000000000000", "50s"],
    ["c", "released", "0.00%", "<none>", "1s"],
  ]);
});

Deno.test("cli.ts shards needs --name", async () => {
  const err: string[] = [];
  assert.equal(
    await main(["shards"], { stdout: () => {}, stderr: (t) => err.push(t) }),
    2,
  );
  assert.match(err.join(""), /shards needs --name/);
});
