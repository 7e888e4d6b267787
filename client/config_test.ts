import assert from "node:assert/strict";
import {
  KubeConfig,
  KubeConfigError,
  type KubeConfigOptions,
} from "./config.ts";
import { YamlError } from "./_yaml.ts";

const CA_PEM =
  "-----BEGIN CERTIFICATE-----\nMIIBcaCAfake\n-----END CERTIFICATE-----\n";
const CERT_PEM =
  "-----BEGIN CERTIFICATE-----\nMIIBclientfake\n-----END CERTIFICATE-----\n";
const KEY_PEM =
  "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIfake\n-----END EC PRIVATE KEY-----\n";

/** A temp dir with files; removed on dispose. */
async function tempFiles(files: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-config-" });
  for (const [name, text] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Set environment variables for the duration of a test (undefined unsets). */
function withEnv(vars: Record<string, string | undefined>) {
  const saved = Object.fromEntries(
    Object.keys(vars).map((k) => [k, Deno.env.get(k)]),
  );
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) Deno.env.delete(k);
      else Deno.env.set(k, val);
    }
  };
  apply(vars);
  return { [Symbol.dispose]: () => apply(saved) };
}

const KIND = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${btoa(CA_PEM)}
    server: https://127.0.0.1:38017
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: ${btoa(CERT_PEM)}
    client-key-data: ${btoa(KEY_PEM)}
`;

Deno.test("KubeConfig.fromYaml() reads a kind kubeconfig with embedded certificate data", () => {
  const config = KubeConfig.fromYaml(KIND);
  assert.equal(config.server, "https://127.0.0.1:38017");
  assert.equal(config.contextName, "kind-kind");
  assert.equal(config.userName, "kind-kind");
  assert.equal(config.namespace, "default");
  assert.equal(config.tls.caData, CA_PEM);
  assert.equal(config.tls.certData, CERT_PEM);
  assert.equal(config.tls.keyData, KEY_PEM);
  assert.equal(config.tls.insecureSkipTlsVerify, false);
  assert.deepEqual(config.auth.exec, undefined);
});

Deno.test("KubeConfig.fromFile() reads a minikube kubeconfig with relative certificate paths and extensions", async () => {
  await using files = await tempFiles({
    "ca.crt": CA_PEM,
    "profiles/minikube/client.crt": CERT_PEM,
    "profiles/minikube/client.key": KEY_PEM,
    "config": `apiVersion: v1
clusters:
- cluster:
    certificate-authority: ca.crt
    extensions:
    - extension:
        last-update: Mon, 01 Jan 2024 10:00:00 UTC
        provider: minikube.sigs.k8s.io
        version: v1.32.0
      name: cluster_info
    server: https://192.168.49.2:8443
  name: minikube
contexts:
- context:
    cluster: minikube
    extensions:
    - extension:
        last-update: Mon, 01 Jan 2024 10:00:00 UTC
        provider: minikube.sigs.k8s.io
        version: v1.32.0
      name: context_info
    namespace: default
    user: minikube
  name: minikube
current-context: minikube
kind: Config
preferences: {}
users:
- name: minikube
  user:
    client-certificate: profiles/minikube/client.crt
    client-key: profiles/minikube/client.key
`,
  });
  const config = KubeConfig.fromFile(`${files.dir}/config`);
  assert.equal(config.server, "https://192.168.49.2:8443");
  assert.equal(config.tls.caData, CA_PEM);
  assert.equal(config.tls.certData, CERT_PEM);
  assert.equal(config.tls.keyData, KEY_PEM);
});

const CLOUD = `apiVersion: v1
kind: Config
preferences: {}
current-context: arn:aws:eks:us-west-2:123456789012:cluster/prod
clusters:
- cluster:
    certificate-authority-data: ${btoa(CA_PEM)}
    server: https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com
  name: arn:aws:eks:us-west-2:123456789012:cluster/prod
- cluster:
    certificate-authority-data: ${btoa(CA_PEM)}
    server: https://34.123.45.67
  name: gke_my-project_us-central1_autopilot
- cluster:
    insecure-skip-tls-verify: true
    server: https://10.0.0.1:6443
  name: lab
contexts:
- context:
    cluster: arn:aws:eks:us-west-2:123456789012:cluster/prod
    user: arn:aws:eks:us-west-2:123456789012:cluster/prod
  name: arn:aws:eks:us-west-2:123456789012:cluster/prod
- context:
    cluster: gke_my-project_us-central1_autopilot
    namespace: team-a   # hand-edited
    user: gke_my-project_us-central1_autopilot
  name: gke_my-project_us-central1_autopilot
- {name: lab, context: {cluster: lab, user: lab-admin, namespace: "lab ns"}}
users:
- name: arn:aws:eks:us-west-2:123456789012:cluster/prod
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - us-west-2
      - eks
      - get-token
      - --cluster-name
      - prod
      - --output
      - json
      command: aws
      env:
      - name: AWS_PROFILE
        value: "prod-admin"
      interactiveMode: IfAvailable
      provideClusterInfo: false
- name: gke_my-project_us-central1_autopilot
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      env: null
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      interactiveMode: IfAvailable
      provideClusterInfo: true
- name: lab-admin
  user:
    token: 'lab''s-token'
`;

Deno.test("KubeConfig.fromYaml() reads EKS and GKE exec users and several contexts", () => {
  const eks = KubeConfig.fromYaml(CLOUD);
  assert.equal(
    eks.contextName,
    "arn:aws:eks:us-west-2:123456789012:cluster/prod",
  );
  assert.equal(
    eks.server,
    "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com",
  );
  assert.deepEqual(eks.auth.exec, {
    command: "aws",
    args: [
      "--region",
      "us-west-2",
      "eks",
      "get-token",
      "--cluster-name",
      "prod",
      "--output",
      "json",
    ],
    env: [{ name: "AWS_PROFILE", value: "prod-admin" }],
    apiVersion: "client.authentication.k8s.io/v1beta1",
    installHint: undefined,
    provideClusterInfo: false,
    interactiveMode: "IfAvailable",
  });
  const gke = KubeConfig.fromYaml(CLOUD, {
    context: "gke_my-project_us-central1_autopilot",
  });
  assert.equal(gke.namespace, "team-a");
  assert.equal(gke.auth.exec?.command, "gke-gcloud-auth-plugin");
  assert.deepEqual(gke.auth.exec?.args, []);
  assert.deepEqual(gke.auth.exec?.env, []);
  assert.equal(gke.auth.exec?.provideClusterInfo, true);
  assert.equal(
    gke.auth.exec?.installHint,
    "Install gke-gcloud-auth-plugin for use with kubectl by following https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
  );
  const lab = KubeConfig.fromYaml(CLOUD, { context: "lab" });
  assert.equal(lab.namespace, "lab ns");
  assert.equal(lab.auth.token, "lab's-token");
  assert.equal(lab.tls.insecureSkipTlsVerify, true);
  assert.equal(lab.tls.caData, undefined);
});

Deno.test("KubeConfig.fromFile() merges KUBECONFIG files the way kubectl does", async () => {
  await using files = await tempFiles({
    "a.yaml": `apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- {name: shared, cluster: {server: "https://first:6443"}}
contexts:
- {name: ctx-a, context: {cluster: shared, user: ua, namespace: from-a}}
- {name: both, context: {cluster: shared, user: ua, namespace: first-wins}}
users:
- {name: ua, user: {token: token-a}}
`,
    "b.yaml": `apiVersion: v1
kind: Config
current-context: ctx-b
clusters:
- {name: shared, cluster: {server: "https://second:6443"}}
- {name: only-b, cluster: {server: "https://b:6443"}}
contexts:
- {name: ctx-b, context: {cluster: only-b, user: ub}}
- {name: both, context: {cluster: only-b, user: ub, namespace: second}}
users:
- {name: ub, user: {token: token-b}}
`,
  });
  const list = [
    `${files.dir}/a.yaml`,
    `${files.dir}/missing.yaml`,
    `${files.dir}/b.yaml`,
  ]
    .join(":");
  using _env = withEnv({ KUBECONFIG: list });
  const current = KubeConfig.fromFile();
  assert.equal(current.contextName, "ctx-a");
  assert.equal(current.server, "https://first:6443");
  assert.equal(current.namespace, "from-a");
  const b = KubeConfig.fromFile(undefined, { context: "ctx-b" });
  assert.equal(b.server, "https://b:6443");
  assert.equal(b.auth.token, "token-b");
  const both = KubeConfig.fromFile(undefined, { context: "both" });
  assert.equal(both.namespace, "first-wins");
  assert.equal(both.server, "https://first:6443");
  // The same through an explicit list, and the order matters.
  const reversed = KubeConfig.fromFile([
    `${files.dir}/b.yaml`,
    `${files.dir}/a.yaml`,
  ]);
  assert.equal(reversed.contextName, "ctx-b");
  assert.equal(
    KubeConfig.fromFile([`${files.dir}/b.yaml`, `${files.dir}/a.yaml`], {
      context: "ctx-a",
    })
      .server,
    "https://second:6443",
  );
});

Deno.test("KubeConfig.fromFile() names line and column of broken YAML", async (t) => {
  const cases: [string, string, number, number][] = [
    [
      "tab indentation",
      "apiVersion: v1\nclusters:\n- cluster:\n\tserver: https://x\n",
      4,
      1,
    ],
    ["unterminated quote", 'apiVersion: v1\ncurrent-context: "kind\n', 2, 18],
    ["duplicate key", "apiVersion: v1\nkind: Config\nkind: Config\n", 3, 1],
    [
      "bad indentation",
      "users:\n- name: u\n  user:\n    token: t\n      extra: 1\n",
      5,
      7,
    ],
    ["unclosed flow", "preferences: {\nusers: []\n", 1, 14],
    ["tag", "users: !!seq []\n", 1, 8],
  ];
  await using files = await tempFiles(
    Object.fromEntries(cases.map(([label, text]) => [`${label}.yaml`, text])),
  );
  for (const [label, , line, column] of cases) {
    await t.step(label, () => {
      const path = `${files.dir}/${label}.yaml`;
      assert.throws(() => KubeConfig.fromFile(path), (e) => {
        assert.ok(e instanceof KubeConfigError, String(e));
        assert.equal(e.path, path);
        assert.ok(e.cause instanceof YamlError);
        assert.deepEqual(
          [e.cause.line, e.cause.column],
          [line, column],
          e.message,
        );
        assert.ok(e.message.includes(`${path}: `), e.message);
        assert.ok(
          e.message.includes(`at line ${line}, column ${column}`),
          e.message,
        );
        return true;
      });
    });
  }
});

Deno.test("KubeConfig.fromYaml() explains kubeconfigs it cannot use", async (t) => {
  const base = (user: string, extra = "") =>
    `clusters: [{name: c, cluster: {server: "https://h"${extra}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
users:
- name: u
  user:
${user}`;
  const cases: [string, string, RegExp][] = [
    ["no current-context", "clusters: []\n", /current-context is not set/],
    [
      "unknown context",
      base("    token: t\n").replace(
        "current-context: x",
        "current-context: y",
      ),
      /context "y" does not exist/,
    ],
    [
      "unknown user",
      base("    token: t\n").replace("name: u\n", "name: other\n"),
      /user "u" of context "x" does not exist/,
    ],
    [
      "no server",
      base("    token: t\n").replace('server: "https://h"', 'proxy-url: "x"'),
      /has no server/,
    ],
    [
      "auth-provider",
      base("    auth-provider:\n      name: gcp\n"),
      /auth-provider "gcp"/,
    ],
    [
      "exec apiVersion",
      base(
        "    exec:\n      command: x\n      apiVersion: client.authentication.k8s.io/v1alpha1\n",
      ),
      /must be client.authentication.k8s.io\/v1 or v1beta1/,
    ],
    [
      "args not strings",
      base(
        "    exec:\n      command: x\n      apiVersion: client.authentication.k8s.io/v1\n      args: [{a: b}]\n",
      ),
      /exec.args\[0\] must be a string/,
    ],
    [
      "certificate without key",
      base(`    client-certificate-data: ${btoa(CERT_PEM)}\n`),
      /without its key/,
    ],
    [
      "CA with insecure",
      base(
        "    token: t\n",
        `, insecure-skip-tls-verify: true, certificate-authority-data: ${
          btoa(CA_PEM)
        }`,
      ),
      /together with insecure-skip-tls-verify/,
    ],
    ["users not a list", "users: {a: b}\n", /kubeconfig.users must be a list/],
  ];
  for (const [label, text, message] of cases) {
    await t.step(label, () => {
      assert.throws(() => KubeConfig.fromYaml(text), (e) => {
        assert.ok(e instanceof KubeConfigError, String(e));
        assert.match(e.message, message);
        return true;
      });
    });
  }
});

Deno.test("KubeConfig.inCluster() reads the service account mount", async () => {
  await using files = await tempFiles({
    token: "sa-token\n",
    "ca.crt": CA_PEM,
    namespace: "apps\n",
  });
  const paths = {
    tokenPath: `${files.dir}/token`,
    caPath: `${files.dir}/ca.crt`,
    namespacePath: `${files.dir}/namespace`,
  };
  {
    using _env = withEnv({
      KUBERNETES_SERVICE_HOST: "10.96.0.1",
      KUBERNETES_SERVICE_PORT: "443",
    });
    const config = KubeConfig.inCluster(paths);
    assert.equal(config.server, "https://10.96.0.1:443");
    assert.equal(config.namespace, "apps");
    assert.equal(config.tls.caData, CA_PEM);
    assert.equal(config.auth.tokenFile, paths.tokenPath);
  }
  {
    using _env = withEnv({
      KUBERNETES_SERVICE_HOST: "fd00::1",
      KUBERNETES_SERVICE_PORT: "6443",
    });
    assert.equal(KubeConfig.inCluster(paths).server, "https://[fd00::1]:6443");
    assert.throws(
      () => KubeConfig.inCluster({ ...paths, tokenPath: `${files.dir}/nope` }),
      /cannot read token file/,
    );
  }
  {
    using _env = withEnv({
      KUBERNETES_SERVICE_HOST: undefined,
      KUBERNETES_SERVICE_PORT: undefined,
    });
    assert.throws(() => KubeConfig.inCluster(paths), KubeConfigError);
  }
});

Deno.test("KubeConfig.load() tries KUBECONFIG, then ~/.kube/config, then in-cluster", async () => {
  await using files = await tempFiles({
    "env.yaml": KIND.replace("https://127.0.0.1:38017", "https://from-env:1"),
    "home/.kube/config": KIND.replace(
      "https://127.0.0.1:38017",
      "https://from-home:1",
    ),
    "empty-home/.keep": "",
  });
  {
    using _env = withEnv({
      KUBECONFIG: `${files.dir}/env.yaml`,
      HOME: `${files.dir}/home`,
    });
    assert.equal((await KubeConfig.load()).server, "https://from-env:1");
  }
  {
    using _env = withEnv({ KUBECONFIG: undefined, HOME: `${files.dir}/home` });
    assert.equal((await KubeConfig.load()).server, "https://from-home:1");
  }
  {
    using _env = withEnv({
      KUBECONFIG: undefined,
      HOME: `${files.dir}/empty-home`,
      KUBERNETES_SERVICE_HOST: undefined,
    });
    await assert.rejects(KubeConfig.load(), /Cannot find a Kubernetes config/);
  }
});

Deno.test("KubeConfig.fromOptions() validates the server and accepts base64 certificate data", () => {
  const config = KubeConfig.fromOptions({
    server: "http://127.0.0.1:8080/",
    caData: btoa(CA_PEM),
    certData: CERT_PEM,
    keyData: btoa(KEY_PEM),
  });
  assert.equal(config.server, "http://127.0.0.1:8080");
  assert.equal(config.tls.caData, CA_PEM);
  assert.equal(config.tls.keyData, KEY_PEM);
  assert.throws(
    () => KubeConfig.fromOptions({ server: "not a url" }),
    /not a URL/,
  );
  assert.throws(
    () => KubeConfig.fromOptions({ server: "ftp://h" }),
    /expected http or https$/,
  );
  // kubectl's bare host:port: the message says to add the scheme.
  assert.throws(
    () => KubeConfig.fromOptions({ server: "127.0.0.1:8080" }),
    /not a URL; give the scheme, e\.g\. "https:\/\/127\.0\.0\.1:8080" \("http:\/\/127\.0\.0\.1:8080" for a plain-HTTP server\)$/,
  );
  assert.throws(
    () => KubeConfig.fromOptions({ server: "localhost:8080" }),
    /expected http or https; give the scheme, e\.g\. "https:\/\/localhost:8080"/,
  );
  assert.throws(
    () => KubeConfig.fromOptions({ server: "https://h", caData: "%%%" }),
    /KubeConfig.fromOptions: caData must be PEM text or base64 of it, got "%%%"/,
  );
});

Deno.test("KubeConfig.fromOptions() rejects bad input at the call, naming the option", () => {
  const rejects = (
    opts: unknown,
    cls: abstract new (...args: never[]) => Error,
    message: RegExp,
  ) =>
    assert.throws(
      () => KubeConfig.fromOptions(opts as KubeConfigOptions),
      (e) => {
        assert.ok(e instanceof cls, String(e));
        assert.match((e as Error).message, message);
        return true;
      },
    );
  rejects(
    undefined,
    TypeError,
    /^KubeConfig.fromOptions: opts must be an object, got undefined$/,
  );
  rejects({ server: 6443 }, TypeError, /server must be a string, got 6443/);
  // "not a cert" is valid base64 (of bytes that are no PEM): it used to
  // pass and fail only at the first connection.
  rejects(
    { server: "https://h", caData: "not a cert" },
    KubeConfigError,
    /^KubeConfig.fromOptions: caData must be PEM text or base64 of it, got "not a cert"$/,
  );
  rejects(
    { server: "https://h", certData: CERT_PEM, keyData: btoa("no key") },
    KubeConfigError,
    /keyData must be PEM text or base64 of it/,
  );
  rejects(
    { server: "https://h", proxyUrl: "socks4://p:1080" },
    KubeConfigError,
    /proxy-url "socks4:\/\/p:1080": the scheme must be http, https or socks5/,
  );
});

Deno.test("KubeConfig.fromYaml() applies proxy-url with the schemes clientcmd accepts", async (t) => {
  const yaml = (proxy: string) =>
    `clusters:
- name: c
  cluster: {server: "https://internal.example.test:6443", proxy-url: "${proxy}"}
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
users: [{name: u, user: {token: t}}]
`;
  for (
    const proxy of [
      "http://proxy.example.test:3128",
      "https://user:p%40ss@proxy.example.test:3129",
      "socks5://127.0.0.1:1080",
    ]
  ) {
    await t.step(proxy, () => {
      const config = KubeConfig.fromYaml(yaml(proxy));
      assert.equal(config.proxyUrl, proxy);
      assert.equal(config.server, "https://internal.example.test:6443");
    });
  }
  await t.step("without proxy-url", () => {
    const config = KubeConfig.fromYaml(
      yaml("").replace(', proxy-url: ""', ""),
    );
    assert.equal(config.proxyUrl, undefined);
  });
  for (
    const [proxy, shown] of [
      ["socks4://proxy:1080", "socks4://proxy:1080"],
      ["ftp://me:secret@proxy:21", "ftp://me:***@proxy:21"],
      ["proxy.example.test:3128", "proxy.example.test:3128"],
    ]
  ) {
    await t.step(`rejects ${proxy}`, () => {
      assert.throws(() => KubeConfig.fromYaml(yaml(proxy)), (e) => {
        assert.ok(e instanceof KubeConfigError);
        assert.ok(
          e.message.includes(`proxy-url "${shown}"`),
          e.message,
        );
        assert.ok(!e.message.includes("secret"));
        return true;
      });
    });
  }
});

Deno.test("KubeConfig.fromYaml() rejects a tls-server-name Deno cannot verify against", () => {
  const yaml = (server: string, name: string) =>
    `clusters:
- name: c
  cluster: {server: "${server}", tls-server-name: ${name}}
contexts: [{name: x, context: {cluster: c}}]
current-context: x
`;
  assert.throws(
    () =>
      KubeConfig.fromYaml(
        yaml("https://192.0.2.60:6443", "kubernetes.default.svc"),
      ),
    (e) => {
      assert.ok(e instanceof KubeConfigError);
      assert.match(
        e.message,
        /tls-server-name "kubernetes.default.svc" is not supported/,
      );
      assert.match(
        e.message,
        /Set server to https:\/\/kubernetes.default.svc:6443 and make kubernetes.default.svc resolve to 192.0.2.60/,
      );
      return true;
    },
  );
  // The name the URL already has changes nothing: accepted.
  const same = KubeConfig.fromYaml(
    yaml("https://API.example.test", "api.example.test"),
  );
  assert.equal(same.server, "https://API.example.test");
});

Deno.test("KubeConfig.fromFile() and load() reject a KUBECONFIG that names no file", async () => {
  await using files = await tempFiles({ "home/.kube/config": KIND });
  for (const value of [":", "::"]) {
    using _env = withEnv({
      KUBECONFIG: value,
      HOME: `${files.dir}/home`,
      KUBERNETES_SERVICE_HOST: undefined,
    });
    const message = /KUBECONFIG is set to ".*", which names no file/;
    assert.throws(() => KubeConfig.fromFile(), message);
    // ~/.kube/config exists, and is not used instead.
    await assert.rejects(KubeConfig.load(), message);
  }
});

Deno.test("KubeConfig.fromFile() says which setting names a missing kubeconfig and what to change", async () => {
  await using files = await tempFiles({ "home/.kube/config": KIND });
  const missing = `${files.dir}/nope.yaml`;
  {
    using _env = withEnv({ KUBECONFIG: missing, HOME: `${files.dir}/home` });
    const fromEnv = new RegExp(
      `Cannot read kubeconfig ${missing}: the file does not exist \\(named by KUBECONFIG\\); fix KUBECONFIG, or unset it to use ~/\\.kube/config$`,
    );
    assert.throws(() => KubeConfig.fromFile(), fromEnv);
    await assert.rejects(KubeConfig.load(), fromEnv);
  }
  {
    using _env = withEnv({
      KUBECONFIG: `${missing}:${files.dir}/also-missing.yaml`,
      HOME: `${files.dir}/home`,
    });
    assert.throws(
      () => KubeConfig.fromFile(),
      /Cannot load kubeconfig: none of .*nope\.yaml, .*also-missing\.yaml exists \(named by KUBECONFIG\); fix KUBECONFIG/,
    );
  }
  // A path passed in (the CLI's --kubeconfig) is not KUBECONFIG's fault.
  using _env = withEnv({ KUBECONFIG: undefined });
  assert.throws(
    () => KubeConfig.fromFile(missing),
    (err: unknown) => {
      assert.ok(err instanceof KubeConfigError);
      assert.equal(
        err.message,
        `Cannot read kubeconfig ${missing}: the file does not exist`,
      );
      assert.ok(err.cause instanceof Deno.errors.NotFound);
      return true;
    },
  );
});
