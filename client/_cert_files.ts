/**
 * Client certificate and key files re-read when they change (client-go
 * `transport/cert_rotation.go` and `cachingCertificateLoader`). Private to
 * client/, where `KubeClient` asks before each request; the webhook server
 * of controller/ watches its serving certificate with it too
 * (controller-runtime's `certwatcher`).
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import { errorMessage } from "../api/validate.ts";

/** A PEM client certificate (chain) and its key. */
export interface CertPair {
  cert: string;
  key: string;
}

/** How often (ms) the files may be looked at; client-go's cache lasts a second too. */
export const CERT_CHECK_INTERVAL_MS = 1_000;

/**
 * The client certificate and key of two files, as they are now. The files
 * are looked at (`stat`) at most once per {@link CERT_CHECK_INTERVAL_MS};
 * when either changed (modification time, size or inode), both are read and
 * the pair is used only if it makes a TLS client — which fails for a
 * half-written file and for a certificate whose key is not the one read
 * (rustls checks that they belong together), so a new certificate is
 * never presented with the old key. Until a good pair is read, the last
 * good one is kept (`onWarning` is told once per bad version).
 */
export class CertFiles {
  readonly #certFile: string;
  readonly #keyFile: string;
  readonly #clock: Clock;
  readonly #onWarning: (message: string) => void;
  readonly #purpose: string;
  #pair: CertPair | undefined;
  /** The files' identity when last read (good or bad). */
  #stamp = "";
  #checkedAt = -Infinity;
  /** A check in flight: concurrent requests share it. */
  #checking: Promise<CertPair | undefined> | undefined;

  constructor(
    files: { certFile: string; keyFile: string; initial?: CertPair },
    opts: {
      clock: Clock;
      onWarning: (message: string) => void;
      /** What the pair is, in warnings. Default "client certificate". */
      purpose?: string;
    },
  ) {
    this.#purpose = opts.purpose ?? "client certificate";
    this.#certFile = files.certFile;
    this.#keyFile = files.keyFile;
    this.#pair = files.initial;
    this.#clock = opts.clock;
    this.#onWarning = opts.onWarning;
  }

  /**
   * The pair to present now: the last good one, refreshed from the files
   * when they were last looked at a second or more ago.
   */
  current(): Promise<CertPair | undefined> | CertPair | undefined {
    if (this.#clock.now() - this.#checkedAt < CERT_CHECK_INTERVAL_MS) {
      return this.#pair;
    }
    return this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
  }

  async #check(): Promise<CertPair | undefined> {
    this.#checkedAt = this.#clock.now();
    let stamp: string;
    try {
      stamp = await this.#stampOf();
    } catch (err) {
      this.#warnOnce(`stat:${errorMessage(err)}`, err);
      return this.#pair;
    }
    if (stamp === this.#stamp) return this.#pair;
    let pair: CertPair;
    try {
      pair = {
        cert: await Deno.readTextFile(this.#certFile),
        key: await Deno.readTextFile(this.#keyFile),
      };
      // A file replaced while it was read: read both again next time.
      if (await this.#stampOf() !== stamp) return this.#pair;
      Deno.createHttpClient(pair).close();
    } catch (err) {
      this.#stamp = stamp;
      this.#warnOnce(stamp, err);
      return this.#pair;
    }
    this.#stamp = stamp;
    this.#pair = pair;
    return pair;
  }

  async #stampOf(): Promise<string> {
    const [c, k] = await Promise.all([
      Deno.stat(this.#certFile),
      Deno.stat(this.#keyFile),
    ]);
    return `${c.mtime?.getTime()}:${c.size}:${c.ino}|${k.mtime?.getTime()}:${k.size}:${k.ino}`;
  }

  #warned = "";
  #warnOnce(what: string, err: unknown): void {
    if (this.#warned === what) return;
    this.#warned = what;
    this.#onWarning(
      `Cannot use ${this.#purpose} ${this.#certFile} with key ${this.#keyFile}: ${
        errorMessage(err)
      }; ${
        this.#pair ? "using the pair read before" : "no pair read yet"
      } until the files change`,
    );
  }
}
