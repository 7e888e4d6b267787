// A throw-away PKI made with openssl (a CA, a server certificate for
// 127.0.0.1 and localhost, a client certificate in system:masters), shared
// by the TLS tests of client/ and testing/. Test-only.

/** Whether openssl can be run (the TLS tests are skipped without it). */
export async function hasOpenssl(): Promise<boolean> {
  try {
    return (await new Deno.Command("openssl", {
      args: ["version"],
      stdout: "null",
      stderr: "null",
    }).output()).success;
  } catch {
    return false;
  }
}

/** Run openssl in `cwd`; throws with its stderr when it fails. */
async function openssl(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", {
    args,
    cwd,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(
      `openssl ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

/**
 * A CA, a server certificate for 127.0.0.1 and localhost and a client
 * certificate, made with openssl; `issueClient` makes more client
 * certificates from the same CA; disposing of it removes the files.
 */
export async function makePki() {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-tls-" });
  const ec = [
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
  ];
  await openssl(
    dir,
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "1",
    "-subj",
    "/CN=kubecache-test-ca",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  const issue = async (name: string, subj: string, ext: string) => {
    await Deno.writeTextFile(`${dir}/${name}.ext`, ext);
    await openssl(
      dir,
      "req",
      ...ec,
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      subj,
    );
    await openssl(
      dir,
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      "1",
      "-extfile",
      `${name}.ext`,
    );
  };
  await issue(
    "server",
    "/CN=127.0.0.1",
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  await issue(
    "client",
    "/O=system:masters/CN=kubecache-user",
    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
  );
  const read = (f: string) => Deno.readTextFileSync(`${dir}/${f}`);
  return {
    dir,
    ca: read("ca.crt"),
    serverCert: read("server.crt"),
    serverKey: read("server.key"),
    clientCert: read("client.crt"),
    clientKey: read("client.key"),
    /** Issue another client certificate from the CA (e.g. a rotated one). */
    async issueClient(cn: string): Promise<{ cert: string; key: string }> {
      const name = `client-${cn.replace(/[^a-z0-9-]/gi, "_")}`;
      await issue(
        name,
        `/O=system:masters/CN=${cn}`,
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
      );
      return { cert: read(`${name}.crt`), key: read(`${name}.key`) };
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
