/**
 * The TLS identity of a list and watch socket (`_http1_stream.ts`): the
 * CA it trusts and the client certificate it presents. The connection pool
 * keys idle connections by it, so it lives apart from both. Internal module.
 *
 * @module
 */

/** What a socket needs beyond the URL: the cluster's CA and a client certificate. */
export interface SocketTls {
  /** PEM of the CA to trust besides the system roots. */
  caData?: string;
  /** PEM client certificate and key. */
  clientCert?: { cert: string; key: string };
}
