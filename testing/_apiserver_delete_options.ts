/**
 * DeleteOptions of DELETE requests, parsed in one place from the body
 * (a `meta.k8s.io/v1` DeleteOptions) and the query (`gracePeriodSeconds`,
 * `propagationPolicy`, `dryRun`, as kubectl and client-go send them), the
 * query winning like kube-apiserver's parameter codec. Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import { badRequest, invalidOptions } from "./_apiserver_status.ts";

const POLICIES = ["Foreground", "Background", "Orphan"];

/** The parsed options of one DELETE (apimachinery `metav1.DeleteOptions`). */
export interface DeleteOptions {
  /** Seconds before the object is removed; 0 removes at once. Unset: the kind's default. */
  gracePeriodSeconds?: number;
  /** Preconditions the stored object must meet (else 409 Conflict). */
  preconditions?: { resourceVersion?: string; uid?: string };
  /** `Orphan`, `Background` or `Foreground`. */
  propagationPolicy?: string;
  /** `["All"]` for a dry run. */
  dryRun?: string[];
}

/**
 * Parse the DeleteOptions of a request.
 * @param text the request body (may be empty)
 * @param q the query
 * @throws {StatusError} 400 BadRequest for a body or number that does not
 *   parse; 422 Invalid for an unknown propagationPolicy or dryRun value
 */
export function parseDeleteOptions(
  text: string,
  q: URLSearchParams,
): DeleteOptions {
  let body: Record<string, unknown> = {};
  if (text.trim() !== "") {
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed === "object") body = parsed;
    } catch (err) {
      throw badRequest(
        `error decoding DeleteOptions: ${(err as Error).message}`,
      );
    }
  }
  const out: DeleteOptions = {};
  const grace = q.get("gracePeriodSeconds") ?? body.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace !== "") {
    const n = Number(grace);
    if (!Number.isInteger(n)) {
      throw badRequest(
        `strconv.ParseInt: parsing "${grace}": invalid syntax`,
      );
    }
    out.gracePeriodSeconds = n;
  }
  const pre = body.preconditions as DeleteOptions["preconditions"] | undefined;
  if (pre && typeof pre === "object") out.preconditions = pre;
  const policy = q.get("propagationPolicy") ?? body.propagationPolicy;
  if (typeof policy === "string" && policy !== "") {
    if (!POLICIES.includes(policy)) {
      const supported = '"Foreground", "Background", "Orphan", "nil"';
      throw invalidOptions("DeleteOptions", "propagationPolicy", [
        `Unsupported value: "${policy}": supported values: ${supported}`,
      ]);
    }
    out.propagationPolicy = policy;
  }
  const dry = q.getAll("dryRun");
  if (dry.length > 0) out.dryRun = dry;
  else if (Array.isArray(body.dryRun)) out.dryRun = body.dryRun as string[];
  checkDryRun("DeleteOptions", out.dryRun);
  return out;
}

/**
 * Whether a write is a dry run (`dryRun=All`): checked, answered, not stored.
 * @param kind the options kind named in a 422 (`CreateOptions`, `DeleteOptions`...)
 * @throws {StatusError} 422 Invalid for a value other than `All`
 */
export function checkDryRun(
  kind: string,
  dryRun: string[] | undefined,
): boolean {
  if (!dryRun || dryRun.length === 0) return false;
  if (dryRun.some((d) => d !== "All")) {
    const list = dryRun.map((d) => JSON.stringify(d)).join(", ");
    throw invalidOptions(kind, "dryRun", [
      `Unsupported value: []string{${list}}: supported values: "All"`,
    ]);
  }
  return true;
}
