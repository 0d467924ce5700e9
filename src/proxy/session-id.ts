/**
 * The client session id one `bouncer run` instance carries in its audit records and engine state:
 * `BOUNCER_SESSION`, or the parent process with its start time. Edge (reads `/proc`).
 *
 * Source: SPEC §3.7 ("Session id").
 * @module
 */

import { readFileSync } from "node:fs";

/**
 * The client session id: `BOUNCER_SESSION` when set; otherwise the parent process id, with its start
 * time where Linux tells it cheaply (`/proc/<ppid>/stat`), so a reused pid is another session.
 *
 * Source: SPEC §3.7 ("Session id").
 * @param options - The environment and the parent pid.
 * @returns The id.
 */
export function sessionId(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly ppid: number;
}): string {
  const configured = Object.hasOwn(options.env, "BOUNCER_SESSION") ? options.env.BOUNCER_SESSION : undefined;
  if (configured !== undefined && configured.trim() !== "") return configured;
  try {
    const stat = readFileSync(`/proc/${options.ppid}/stat`, "utf8");
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    if (start !== undefined && /^\d+$/.test(start)) return `${options.ppid}-${start}`;
  } catch {
    // Not Linux, or the parent is gone: the pid alone.
  }
  return String(options.ppid);
}
