import assert from "node:assert/strict";
import { describeError, isConnectError } from "./errors.ts";

/** A fetch failure as Deno reports it: the details are in the cause. */
function fetchError(cause: string): TypeError {
  return new TypeError("error sending request for url", {
    cause: new Error(cause),
  });
}

const CERT =
  'client error (Connect): invalid peer certificate: certificate not valid for name "10.0.0.1"; certificate is only valid for DnsName("archive.ubuntu.com")';

Deno.test("describeError() reports a certificate error naming a DnsName as a TLS failure", () => {
  const err = fetchError(CERT);
  assert.equal(isConnectError(err), true);
  assert.equal(
    describeError(err, { server: "https://10.0.0.1:6443" }),
    "Cannot reach the API server at https://10.0.0.1:6443: TLS handshake failed",
  );
});

Deno.test("describeError() still reports a failed lookup as host name not found", () => {
  const err = fetchError(
    "client error (Connect): dns error: failed to lookup address information",
  );
  assert.equal(
    describeError(err, { server: "https://nowhere.invalid" }),
    "Cannot reach the API server at https://nowhere.invalid: host name not found",
  );
});

Deno.test("describeError() uses KubeClient's explanation of insecure-skip-tls-verify as it is", () => {
  // As KubeClient throws it (client/transport_test.ts checks that side).
  const explained = new TypeError(
    "Cannot verify the certificate of the API server at https://10.0.0.1:6443: " +
      "insecure-skip-tls-verify is set, which Deno cannot apply " +
      "per client; run deno with --unsafely-ignore-certificate-errors=10.0.0.1",
    { cause: fetchError(CERT) },
  );
  assert.equal(
    describeError(explained, { server: "https://10.0.0.1:6443" }),
    explained.message,
  );
  // A certificate failure KubeClient did not explain keeps the usual line.
  assert.equal(
    describeError(fetchError(CERT), { server: "https://10.0.0.1:6443" }),
    "Cannot reach the API server at https://10.0.0.1:6443: TLS handshake failed",
  );
});
