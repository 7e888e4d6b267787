// A FakeApiServer with a KubeClient on it, for the tests of client/ and
// leaderelection/. Test-only.

import { KubeConfig } from "../client/config.ts";
import { KubeClient } from "../client/rest.ts";
import { FakeApiServer, type FakeApiServerOptions } from "./fake_api_server.ts";

/**
 * Start a FakeApiServer with `opts` and a KubeClient on it (with the
 * server's token, when it has one); disposing closes both.
 */
export async function serverWithClient(opts: FakeApiServerOptions = {}) {
  const server = await FakeApiServer.start(opts);
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, token: opts.token }),
  );
  return {
    server,
    client,
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
    },
  };
}
