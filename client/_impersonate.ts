/**
 * The request headers of an impersonation setting (client-go
 * `transport/round_trippers.go`, `NewImpersonatingRoundTripper`). Private
 * to client/.
 *
 * @module
 */

import type { ImpersonationConfig } from "./auth_info.ts";

/**
 * The `Impersonate-*` headers, in client-go's order: `Impersonate-User`,
 * `Impersonate-Uid`, one `Impersonate-Group` per group, one
 * `Impersonate-Extra-<key>` per extra value, the key escaped as client-go's
 * `headerKeyEscape` does. Computed once per client; appended to every
 * request, watches included.
 */
export function impersonationHeaders(
  imp: ImpersonationConfig | undefined,
): [string, string][] {
  if (imp === undefined) return [];
  const out: [string, string][] = [["Impersonate-User", imp.user]];
  if (imp.uid) out.push(["Impersonate-Uid", imp.uid]);
  for (const group of imp.groups ?? []) out.push(["Impersonate-Group", group]);
  for (const [key, values] of Object.entries(imp.extra ?? {})) {
    const name = `Impersonate-Extra-${headerKeyEscape(key)}`;
    for (const value of values) out.push([name, value]);
  }
  return out;
}

/**
 * A header name's token bytes (RFC 7230 `tchar`), as Go's
 * `httpguts.ValidHeaderFieldName` takes them.
 */
const TOKEN = /^[!#$&'*+\-.^_`|~0-9A-Za-z]$/;

/**
 * client-go `headerKeyEscape`: each UTF-8 byte of `key` that is not a token
 * character, and `%` itself, becomes `%XX` (upper-case hex), so the API
 * server's `url.PathUnescape` gives the key back.
 */
export function headerKeyEscape(key: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(key)) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && TOKEN.test(c)
      ? c
      : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
