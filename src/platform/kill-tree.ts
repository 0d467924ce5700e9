/**
 * Signals a whole upstream process tree. POSIX: the upstream was spawned detached, so it leads its own
 * process group and `kill(-pgid, …)` reaches every descendant that stayed in the group. Windows:
 * `taskkill /PID <pid> /T /F`. Edge.
 *
 * Source: SPEC §3.3 ("signal the upstream's process group … on Windows taskkill /PID <pid> /T /F"),
 * STYLE #17, field case F06.
 * @module
 */

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Options of {@link signalProcessTree} and {@link isProcessTreeAlive}. */
export interface ProcessTreeOptions {
  /** Default: the running platform. */
  readonly platform?: "posix" | "win32";
}

/**
 * The error code of a failed `process.kill`.
 * @param error - What `process.kill` threw.
 * @returns The code, or undefined.
 */
function errorCode(error: unknown): unknown {
  return typeof error === "object" && error !== null ? Reflect.get(error, "code") : undefined;
}

/**
 * Sends a signal to the process group led by `pid` (POSIX), or kills the tree (Windows: taskkill
 * `/T /F` whatever the signal — Windows has no SIGTERM for console programs). A group that is already
 * gone is not an error.
 *
 * Source: SPEC §3.3.
 * @param pid - The upstream's pid (= its process group id on POSIX).
 * @param signal - `SIGTERM` or `SIGKILL`.
 * @param options - Platform override.
 * @returns True when a signal was delivered (or taskkill started).
 */
export function signalProcessTree(
  pid: number,
  signal: "SIGTERM" | "SIGKILL",
  options: ProcessTreeOptions = {},
): boolean {
  const platform = options.platform ?? (process.platform === "win32" ? "win32" : "posix");
  if (platform === "win32") {
    try {
      const child = spawn("taskkill", ["/PID", String(pid), "/T", "/F"], {
        stdio: "ignore",
        windowsHide: true,
      });
      child.on("error", () => {});
      return true;
    } catch {
      return false;
    }
  }
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    // No such group (yet: a child signalled before it made its own group) or no right to it: the
    // child itself still gets the signal.
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Linux only: whether the group has a member that is not a zombie (a killed process stays a zombie
 * until its new parent reaps it, which some container inits do slowly).
 * @param pgid - The process group.
 * @returns True or false; undefined when `/proc` cannot tell.
 */
function hasLiveMember(pgid: number): boolean | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after "(comm)": state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

/**
 * Whether any process of the tree still exists (POSIX: any member of the group, zombies not counted
 * where `/proc` tells; Windows: the root process).
 *
 * Source: SPEC §3.3.
 * @param pid - The upstream's pid.
 * @param options - Platform override.
 * @returns True while something is left.
 */
export function isProcessTreeAlive(pid: number, options: ProcessTreeOptions = {}): boolean {
  const platform = options.platform ?? (process.platform === "win32" ? "win32" : "posix");
  const target = platform === "win32" ? pid : -pid;
  try {
    process.kill(target, 0);
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
  if (platform === "win32" || process.platform !== "linux") return true;
  return hasLiveMember(pid) ?? true;
}
