/**
 * What `cli.ts watch` says on stderr about the list/watch, built on the
 * Reflector's status events: before the first sync, an error retrying
 * cannot fix ends the command and others get one warning; after it, one
 * warning when the watch breaks (no flood while the outage lasts) and one
 * line when it has resumed, saying whether it relisted.
 *
 * @module
 */

import type { ReflectorStatus } from "../cache/reflector.ts";

/** What {@link watchStatus} needs from the command. */
export interface WatchStatusOptions {
  /** What is watched, e.g. `"configmaps in default"`. */
  what: string;
  /** Writes raw text to stderr. */
  write: (text: string) => void;
  /** One line for an error (the CLI's `describeError`). */
  describe: (err: unknown) => string;
  /** Whether the first sync is done. */
  synced: () => boolean;
  /** Whether an error before the first sync ends the command. */
  isFatal: (err: unknown) => boolean;
  /** Called with such an error; the command then exits 1. */
  onFatal: (err: unknown) => void;
  /** Called before the first warning (to end a progress line). */
  beforeWarning?: () => void;
}

/**
 * A Reflector status listener printing the CLI's lines.
 * @param opts where to write and how to describe errors
 * @returns the listener for the informer's `onStatus`
 */
export function watchStatus(
  opts: WatchStatusOptions,
): (reflector: unknown, status: ReflectorStatus) => void {
  let warned = false;
  let syncedBefore = false;
  return (_reflector, status) => {
    const synced = opts.synced();
    if (synced && !syncedBefore) {
      // A warning before the sync is answered by the table, not a line.
      syncedBefore = true;
      warned = false;
    }
    if (status.type === "Failed") {
      if (!synced && opts.isFatal(status.error)) {
        opts.onFatal(status.error);
        return;
      }
      if (warned) return;
      warned = true;
      opts.beforeWarning?.();
      opts.write(
        synced
          ? `warning: the watch of ${opts.what} broke: ${
            opts.describe(status.error)
          }; retrying (the output may be stale until it resumes)\n`
          : `warning: ${opts.describe(status.error)}; retrying\n`,
      );
    } else if (status.type === "Recovered" && warned && synced) {
      warned = false;
      opts.write(
        `resumed watching ${opts.what} after ${
          (status.downMs / 1000).toFixed(1)
        } s${
          status.relisted
            ? " (relisted: changes made meanwhile follow as events)"
            : " (no relist needed)"
        }\n`,
      );
    }
  };
}
