/**
 * The kubeconfig `watch --demo --demo-kubeconfig FILE` writes, so other
 * programs (kubectl, a second controller replica) find the demo cluster by
 * `KUBECONFIG=FILE` alone.
 *
 * @module
 */

/** The name of the demo's cluster, user and context in the kubeconfig. */
export const DEMO_CONTEXT = "kubecache-demo";

/**
 * A kubeconfig (YAML, as kubectl writes one) whose current context is the
 * demo cluster at `server`, with an anonymous user and namespace `default`.
 * @param server the demo cluster's URL, e.g. `http://127.0.0.1:8080`
 * @returns the file's text
 */
export function demoKubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
current-context: ${DEMO_CONTEXT}
clusters:
- name: ${DEMO_CONTEXT}
  cluster:
    server: ${server}
contexts:
- name: ${DEMO_CONTEXT}
  context:
    cluster: ${DEMO_CONTEXT}
    user: ${DEMO_CONTEXT}
    namespace: default
users:
- name: ${DEMO_CONTEXT}
  user: {}
`;
}
