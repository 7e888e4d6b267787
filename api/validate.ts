/**
 * Argument checks of the public entry points (cache/, client/, workqueue/,
 * leaderelection/), for callers without types (plain JavaScript, `any`, a parsed config): a wrong argument throws
 * at the call — a TypeError for a wrong kind of value, a RangeError for a
 * number out of range — whose message names the call, the parameter and
 * the value (Deno std's rule), instead of an engine error later. The one
 * value formatter of the library's messages ({@link show}) and the text of
 * a caught error ({@link errorMessage}) live here too.
 *
 * @module
 */

/** A value as a message shows it: strings quoted, objects by kind. */
export function show(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) {
    const name = Object.getPrototypeOf(value)?.constructor?.name;
    return name && name !== "Object" ? `a ${name}` : "an object";
  }
  return String(value);
}

/** The text of a caught error: its message, or the thrown value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `value` is an AbortSignal. */
export function checkSignal(
  call: string,
  name: string,
  value: unknown,
): asserts value is AbortSignal {
  if (!(value instanceof AbortSignal)) {
    throw new TypeError(
      `${call}: ${name} must be an AbortSignal, got ${show(value)}`,
    );
  }
}

/** `value` is a function. */
export function checkFunction(
  call: string,
  name: string,
  value: unknown,
): void {
  if (typeof value !== "function") {
    throw new TypeError(
      `${call}: ${name} must be a function, got ${show(value)}`,
    );
  }
}

/** `value` is undefined or a plain options object (not null, not an array). */
export function checkOptions(call: string, name: string, value: unknown): void {
  if (value === undefined) return;
  checkObject(call, name, value);
}

/** `value` is an object (not null, not an array). */
export function checkObject(call: string, name: string, value: unknown): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `${call}: ${name} must be an object, got ${show(value)}`,
    );
  }
}

/** `value` is a non-empty string. */
export function checkString(call: string, name: string, value: unknown): void {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `${call}: ${name} must be a non-empty string, got ${show(value)}`,
    );
  }
}

/** kube-apiserver's DNS-1123 subdomain rule (Lease, ConfigMap, ... names). */
const DNS1123_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether `name` is a DNS-1123 subdomain of at most 253 characters. */
export function isDnsSubdomain(name: string): boolean {
  return name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
}

/**
 * `value` is an object name the API server accepts (a DNS-1123 subdomain:
 * lowercase letters, digits, '-' and '.'), so a bad name is refused at the
 * call rather than by a 422 retried forever.
 */
export function checkSubdomainName(
  call: string,
  name: string,
  value: unknown,
): void {
  checkString(call, name, value);
  if (!isDnsSubdomain(value as string)) {
    throw new RangeError(
      `${call}: ${name} must be a valid object name (lowercase letters, digits, '-' and '.', at most 253), got ${
        show(value)
      }`,
    );
  }
}

/** `value` is an integer >= `min` (a TypeError for a non-number). */
export function checkInteger(
  call: string,
  name: string,
  value: unknown,
  min: number,
): void {
  if (typeof value !== "number") {
    throw new TypeError(
      `${call}: ${name} must be an integer >= ${min}, got ${show(value)}`,
    );
  }
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(
      `${call}: ${name} must be an integer >= ${min}, got ${show(value)}`,
    );
  }
}

/** `value` is a number > 0, `Infinity` included (a TypeError for a non-number). */
export function checkPositive(
  call: string,
  name: string,
  value: unknown,
): void {
  if (typeof value !== "number") {
    throw new TypeError(
      `${call}: ${name} must be a number > 0, got ${show(value)}`,
    );
  }
  if (!(value > 0)) {
    throw new RangeError(
      `${call}: ${name} must be a number > 0, got ${show(value)}`,
    );
  }
}

/**
 * `value` is an event handler: an object with at least one of `onAdd`,
 * `onUpdate`, `onDelete` as a function, or `{}` (each is optional, but a
 * handler with keys and none of them, e.g. `{ onadd }`, is a misspelling
 * that would never be called).
 */
export function checkHandler(call: string, name: string, value: unknown): void {
  const expected =
    `${call}: ${name} must be an object with onAdd, onUpdate or onDelete`;
  if (typeof value !== "object" || value === null) {
    throw new TypeError(`${expected}, got ${show(value)}`);
  }
  const h = value as Record<string, unknown>;
  const keys = Object.keys(h);
  // `{}` is a handler that handles nothing (client-go's empty
  // ResourceEventHandlerFuncs, e.g. for an indexer-only newIndexerInformer);
  // anything else must offer one of the three.
  if (
    keys.length > 0 && typeof h.onAdd !== "function" &&
    typeof h.onUpdate !== "function" && typeof h.onDelete !== "function"
  ) {
    throw new TypeError(
      `${expected}, got ${
        show(value)
      } with none of them as a function (its keys: ${
        keys.slice(0, 5).map((k) => show(k)).join(", ")
      })`,
    );
  }
}

/**
 * `value` is an object whose `methods` are functions; `what` names it in
 * the message (e.g. "a ListerWatcher").
 */
export function checkMethods(
  call: string,
  name: string,
  value: unknown,
  what: string,
  methods: readonly string[],
): void {
  const ok = typeof value === "object" && value !== null &&
    methods.every((m) =>
      typeof (value as Record<string, unknown>)[m] === "function"
    );
  if (!ok) {
    throw new TypeError(
      `${call}: ${name} must be ${what} (with ${
        methods.length === 1
          ? `an ${methods[0]} method`
          : `${methods.join(", ")} methods`
      }), got ${show(value)}`,
    );
  }
}

/**
 * `value` is a ListerWatcher: `list` and `watch` methods taking list
 * options. A client (`KubeClient`: `list(type, ...)`, with `get` and
 * `create` too) has both names but not their meaning, so it is refused with
 * the wrapper to use.
 */
export function checkListerWatcher(
  call: string,
  name: string,
  value: unknown,
): void {
  checkMethods(call, name, value, "a ListerWatcher", ["list", "watch"]);
  const v = value as Record<string, unknown>;
  if (typeof v.get === "function" && typeof v.create === "function") {
    throw new TypeError(
      `${call}: ${name} must be a ListerWatcher such as listWatch(client, ConfigMaps), got ${
        show(value)
      }`,
    );
  }
}

/**
 * `value` is a number of milliseconds, finite and >= 0 (or undefined, unless
 * `required`).
 */
export function checkDuration(
  call: string,
  name: string,
  value: unknown,
  required = false,
): void {
  if (value === undefined && !required) return;
  if (typeof value !== "number") {
    throw new TypeError(
      `${call}: ${name} must be a number of milliseconds, got ${show(value)}`,
    );
  }
  if (!(value >= 0) || value === Infinity) {
    throw new RangeError(
      `${call}: ${name} must be a finite number of milliseconds >= 0, got ${value}`,
    );
  }
}

/** `value` is undefined or a string. */
export function checkOptionalString(
  call: string,
  name: string,
  value: unknown,
): void {
  if (value !== undefined && typeof value !== "string") {
    throw new TypeError(
      `${call}: ${name} must be a string, got ${show(value)}`,
    );
  }
}

/** `value` is undefined or a Clock (`now` and `sleep`). */
export function checkClock(call: string, name: string, value: unknown): void {
  if (value !== undefined) {
    checkMethods(call, name, value, "a Clock", ["now", "sleep"]);
  }
}

/**
 * `value` is a ResourceType: an object with string `version`, `resource`
 * and `kind` and a boolean `namespaced` (`"configmaps"` is not one; the
 * descriptor `ConfigMaps` is).
 */
export function checkResourceType(
  call: string,
  name: string,
  value: unknown,
): void {
  const t = value as Record<string, unknown> | null | undefined;
  const ok = typeof t === "object" && t !== null &&
    typeof t.resource === "string" && typeof t.version === "string" &&
    typeof t.kind === "string" && typeof t.namespaced === "boolean";
  if (!ok) {
    throw new TypeError(
      `${call}: ${name} must be a ResourceType such as ConfigMaps or resourceType({...}), got ${
        show(value)
      }`,
    );
  }
}

/** `value` is an Indexers record: index names mapped to functions. */
export function checkIndexers(
  call: string,
  name: string,
  value: unknown,
): void {
  checkOptions(call, name, value);
  for (const [index, fn] of Object.entries(value ?? {})) {
    checkFunction(call, `${name}.${index}`, fn);
  }
}
