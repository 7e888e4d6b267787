// Helpers shared by the CLI tests (cli_test.ts at the root and _cli/'s own).

/**
 * Write a kubeconfig with one context ("fake": `server`, `user`, the
 * optional namespace and CA) to a temp file and return its path; the
 * caller removes it.
 */
export async function kubeconfigFile(
  server: string,
  user: { name: string; token?: string },
  context: { namespace?: string; caData?: string } = {},
): Promise<string> {
  // JSON strings are YAML double-quoted strings: the CA's newlines survive.
  const ca = context.caData === undefined
    ? ""
    : `, certificate-authority-data: ${JSON.stringify(context.caData)}`;
  const namespace = context.namespace === undefined
    ? ""
    : `, namespace: ${context.namespace}`;
  const path = await Deno.makeTempFile({ suffix: ".yaml" });
  await Deno.writeTextFile(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: { server: ${JSON.stringify(server)}${ca} }
users:
- name: ${user.name}
  user: ${user.token ? `{ token: ${user.token} }` : "{}"}
contexts:
- name: fake
  context: { cluster: fake, user: ${user.name}${namespace} }
current-context: fake
`,
  );
  return path;
}

/** A core/v1 Event about pod `web` ("Pulled"), last seen at 11:59 UTC on 2025-06-01. */
export const PULLED_EVENT = {
  metadata: { namespace: "default", name: "web.1" },
  involvedObject: { kind: "Pod", name: "web" },
  type: "Normal",
  reason: "Pulled",
  message: "pulled",
  lastTimestamp: "2025-06-01T11:59:00Z",
};
