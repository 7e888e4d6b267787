// Impersonation (kubectl --as, kubeconfig as/as-uid/as-groups/as-user-extra):
// the Impersonate-* headers client-go's transport sends, on every request
// and watch, from a kubeconfig and from fromOptions.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { KubeConfig, KubeConfigError } from "./config.ts";
import { KubeClient } from "./rest.ts";
import { headerKeyEscape } from "./_impersonate.ts";

/**
 * A plain-TCP HTTP/1.1 server recording the Impersonate-* header lines of
 * each request as sent (a `Headers` object would join repeated lines, as
 * Deno.serve's does): one JSON list answer, or one watch event.
 */
function recordingServer() {
  const seen: { path: string; lines: string[] }[] = [];
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      const buf = new Uint8Array(64 * 1024);
      let len = 0;
      let head = "";
      while (!head.includes("\r\n\r\n")) {
        const n = await conn.read(buf.subarray(len));
        if (n === null) break;
        len += n;
        head = new TextDecoder().decode(buf.subarray(0, len));
      }
      const [requestLine, ...lines] = head.split("\r\n\r\n")[0].split("\r\n");
      const path = requestLine.split(" ")[1];
      seen.push({
        path,
        lines: lines.filter((l) => /^impersonate-/i.test(l)),
      });
      const body = path.includes("watch=true")
        ? '{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"default","resourceVersion":"2"}}}\n'
        : '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}';
      await conn.write(
        new TextEncoder().encode(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        ),
      );
      conn.close();
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    seen,
    async [Symbol.asyncDispose]() {
      listener.close();
      await served.catch(() => {});
    },
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
  for (const { lines } of server.seen) {
    // One line per group and per extra value, as client-go sends them: a
    // Go server would read "developers, system:authenticated" as one group.
    assert.deepEqual(lines.map((l) => l.toLowerCase()).sort(), [
      "impersonate-extra-reason: on call",
      "impersonate-extra-scopes.example.com%2fteam: a",
      "impersonate-extra-scopes.example.com%2fteam: b",
      "impersonate-group: developers",
      "impersonate-group: system:authenticated",
      "impersonate-uid: 1234",
      "impersonate-user: jane@example.com",
    ]);
  }
});

Deno.test("KubeConfig.fromOptions({ impersonate }) sends the headers; a user is required", async () => {
  await using server = recordingServer();
  await using client = new KubeClient(KubeConfig.fromOptions({
    server: server.url,
    impersonate: { user: "system:serviceaccount:ns:sa", groups: ["g1"] },
  }));
  await client.list(ConfigMaps);
  await client.create(ConfigMaps, { metadata: { name: "a" } });
  for (const { lines } of server.seen) {
    assert.deepEqual(lines.map((l) => l.toLowerCase()).sort(), [
      "impersonate-group: g1",
      "impersonate-user: system:serviceaccount:ns:sa",
    ]);
  }
  // Several groups cannot be sent through a proxy (fetch joins them).
  assert.throws(
    () =>
      new KubeClient(KubeConfig.fromOptions({
        server: server.url,
        proxyUrl: "http://127.0.0.1:3128",
        impersonate: { user: "u", groups: ["a", "b"] },
      })),
    (err) =>
      err instanceof KubeConfigError && /through a proxy-url/.test(err.message),
  );
  // Nor through a proxy of the environment, which fetch would follow.
  const saved = Deno.env.get("HTTPS_PROXY");
  Deno.env.set("HTTPS_PROXY", "http://127.0.0.1:3128");
  try {
    assert.throws(
      () =>
        new KubeClient(KubeConfig.fromOptions({
          server: server.url,
          impersonate: { user: "u", groups: ["a", "b"] },
        })),
      /through a proxy of the environment/,
    );
  } finally {
    if (saved === undefined) Deno.env.delete("HTTPS_PROXY");
    else Deno.env.set("HTTPS_PROXY", saved);
  }
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
      KubeConfig.fromOptions({
        server: server.url,
        impersonate: { user: "u\r\nAuthorization: Bearer x" },
      }),
    /impersonate.user must be a string without line breaks/,
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
