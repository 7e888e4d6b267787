// What a server of this module says when it cannot listen: which server and
// which address, where Deno says only "Address already in use (os error
// 98)" and node:https "listen EADDRINUSE". Every server the module starts
// (the Manager's metrics and health endpoints, the webhook server,
// FakeApiServer) reports through it. Not exported from the entry points.

/**
 * `err` from listening on `hostname:port`, said again for `server` ("the
 * metrics server"): a taken port becomes a `Deno.errors.AddrInUse` whose
 * message names the server and the address (the original as `cause`);
 * anything else is returned as it is.
 */
export function listenError(
  server: string,
  hostname: string,
  port: number,
  err: unknown,
): unknown {
  const inUse = err instanceof Deno.errors.AddrInUse ||
    (err as { code?: unknown } | null)?.code === "EADDRINUSE";
  if (!inUse) return err;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return new Deno.errors.AddrInUse(
    `${server} cannot listen on ${host}:${port}: the port is in use (another process, or another server of this program, has it)`,
    { cause: err },
  );
}
