// Impersonation (kubectl --as, kubeconfig as/as-uid/as-groups/as-user-extra):
// the Impersonate-* headers client-go's transport sends, on every request
// and watch, from a kubeconfig and from fromOptions.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { KubeConfig, KubeConfigError } from "./config.ts";
import { KubeClient } from "./rest.ts";
import { headerKeyEscape } from "./_impersonate.ts";

/** A server recording the Impersonate-* headers of each request. */
function recordingServer() {
  const seen: { path: string; headers: [string, string][] }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => {
      const url = new URL(req.url);
      const headers = [...req.headers].filter(([k]) =>
        k.startsWith("impersonate-")
      );
      seen.push({ path: `${url.pathname}${url.search}`, headers });
      if (url.searchParams.get("watch") === "true") {
        return new Response(
          '{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"default","resourceVersion":"2"}}}\n',
        );
      }
      return Response.json({
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: { resourceVersion: "1" },
        items: [],
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("KubeConfig.fromFile reads as, as-uid, as-groups and as-user-extra, and KubeClient sends client-go's Impersonate-* headers on lists and watches", async () => {
  await using server = recordingServer();
  const config = KubeConfig.fromYaml(`apiVersion: v1
kind: Config
current-context: admin
clusters: [{name: c, cluster: {server: "${server.url}"}}]
users:
- name: admin
  user:
    token: secret-token
    as: jane@example.com
    as-uid: "1234"
    as-groups: [developers, "system:authenticated"]
    as-user-extra:
      scopes.example.com/team: [a, b]
      reason: [on call]
contexts: [{name: admin, context: {cluster: c, user: admin}}]
`);
  assert.deepEqual(config.impersonate, {
    user: "jane@example.com",
    uid: "1234",
    groups: ["developers", "system:authenticated"],
    extra: { "scopes.example.com/team": ["a", "b"], reason: ["on call"] },
  });
  await using client = new KubeClient(config);
  await client.list(ConfigMaps, { namespace: "default" });
  const events = await client.watch(ConfigMaps, { namespace: "default" });
  for await (const _ of events);
  assert.equal(server.seen.length, 2);
  for (const { headers } of server.seen) {
    // Deno joins repeated headers with ", " when read back.
    assert.deepEqual(Object.fromEntries(headers), {
      "impersonate-user": "jane@example.com",
      "impersonate-uid": "1234",
      "impersonate-group": "developers, system:authenticated",
      "impersonate-extra-scopes.example.com%2fteam": "a, b",
      "impersonate-extra-reason": "on call",
    });
  }
});

Deno.test("KubeConfig.fromOptions({ impersonate }) sends the headers; a user is required", async () => {
  await using server = recordingServer();
  await using client = new KubeClient(KubeConfig.fromOptions({
    server: server.url,
    impersonate: { user: "system:serviceaccount:ns:sa", groups: ["g1"] },
  }));
  await client.list(ConfigMaps);
  assert.deepEqual(Object.fromEntries(server.seen[0].headers), {
    "impersonate-user": "system:serviceaccount:ns:sa",
    "impersonate-group": "g1",
  });
  assert.throws(
    () =>
      KubeConfig.fromOptions({
        server: server.url,
        impersonate: { groups: ["g1"] } as never,
      }),
    {
      name: "TypeError",
      message:
        "KubeConfig.fromOptions: impersonate.user must be a non-empty string (the user to act as), got undefined",
    },
  );
  assert.throws(
    () =>
      KubeConfig.fromOptions({
        server: server.url,
        impersonate: { user: "u", groups: ["a", 3] } as never,
      }),
    /impersonate.groups\[1\] must be a string, got 3/,
  );
  assert.throws(
    () =>
      KubeConfig.fromYaml(`current-context: x
clusters: [{name: c, cluster: {server: "${server.url}"}}]
users: [{name: u, user: {as-groups: [g]}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`),
    (err) =>
      err instanceof KubeConfigError &&
      /as-uid, as-groups or as-user-extra without as/.test(err.message),
  );
});

Deno.test("headerKeyEscape escapes as client-go's (non-token bytes and % as %XX, UTF-8 bytewise)", () => {
  // client-go escapes every byte outside RFC 7230 token characters, and %.
  assert.equal(headerKeyEscape("key"), "key");
  assert.equal(headerKeyEscape("example.com/key"), "example.com%2Fkey");
  assert.equal(headerKeyEscape("100%"), "100%25");
  assert.equal(headerKeyEscape("ünïcode"), "%C3%BCn%C3%AFcode");
  assert.equal(headerKeyEscape("a b"), "a%20b");
  assert.equal(headerKeyEscape("!#$&'*+-.^_`|~09AZaz"), "!#$&'*+-.^_`|~09AZaz");
});
