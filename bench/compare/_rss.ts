/**
 * Peak memory of a bench process, read from Linux's /proc (bench-only).
 *
 * @module
 */

/**
 * A process's peak resident set size (`VmHWM` in `/proc/<pid>/status`), in
 * MiB; undefined when it cannot be read (not Linux, or the process is gone).
 * @param pid the process id, or "self"
 */
export function peakRssMB(pid: number | "self" = "self"): number | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = status.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}
