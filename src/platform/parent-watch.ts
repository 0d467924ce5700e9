/**
 * Notices that the process that started Bouncer is gone (the client was killed: its pipe may stay
 * open in a grandchild, so stdin EOF alone is not enough). Polls every second: the parent pid changed
 * (re-parented) or no longer exists. Edge.
 *
 * Source: SPEC §3.3 ("its parent process gone — polled every second"), field case F06 (b).
 * @module
 */

/** Options of {@link watchParent}. */
export interface ParentWatchOptions {
  /** Called once when the parent is gone. */
  readonly onGone: () => void;
  /** Poll interval (default 1,000 ms). */
  readonly intervalMs?: number;
}

/**
 * Whether a process exists.
 * @param pid - The pid.
 * @returns False only when the OS says there is no such process.
 */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return typeof error === "object" && error !== null && Reflect.get(error, "code") === "EPERM";
  }
}

/**
 * Starts polling the parent process.
 *
 * Source: SPEC §3.3.
 * @param options - The callback and interval.
 * @returns A function that stops the watch.
 */
export function watchParent(options: ParentWatchOptions): () => void {
  const initial = process.ppid;
  if (initial <= 1) return () => {};
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    if (process.ppid === initial && exists(initial)) return;
    stopped = true;
    clearInterval(timer);
    options.onGone();
  }, options.intervalMs ?? 1000);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
