/**
 * Signals a whole upstream process tree. POSIX: the upstream was spawned detached, so it leads its own
 * process group and `kill(-pgid, …)` reaches every descendant that stayed in the group; on Linux, the
 * descendants that left it (a grandchild that called `setsid`) are found through `/proc` while their
 * parents live, and signalled one by one. Windows: `taskkill /PID <pid> /T /F`. Edge.
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

/** A descendant outside the upstream's process group, known by its pid and its start time. */
export interface StrayProcess {
  readonly pid: number;
  /** `/proc/<pid>/stat` field 22 (clock ticks after boot): a reused pid has another. */
  readonly start: string;
}

/**
 * One process's fields from `/proc/<pid>/stat`.
 * @param pid - The process.
 * @returns State, parent, group and start time; undefined when it is gone or unreadable.
 */
function procStat(
  pid: string,
):
  | { readonly state: string; readonly ppid: number; readonly pgrp: number; readonly start: string }
  | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Fields after "(comm)": state (3), ppid (4), pgrp (5), … starttime (22).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    start: fields[19] ?? "",
  };
}

/**
 * Linux only: the descendants of the upstream (by their parent links, so only while each parent
 * lives) that are outside its process group — those its group's signal misses, such as a grandchild
 * that called `setsid`. Elsewhere, or when `/proc` cannot be read, none.
 *
 * Source: SPEC §3.3 ("No process Bouncer started outlives it").
 * @param pid - The upstream's pid (= its process group id).
 * @returns The strays, with their start times.
 */
export function strayDescendants(pid: number): StrayProcess[] {
  if (process.platform !== "linux") return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, { pid: number; pgrp: number; start: string }[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat === undefined || stat.state === "Z" || stat.state === "X") continue;
    const list = children.get(stat.ppid) ?? [];
    list.push({ pid: Number(entry), pgrp: stat.pgrp, start: stat.start });
    children.set(stat.ppid, list);
  }
  const strays: StrayProcess[] = [];
  const seen = new Set<number>([pid]);
  for (let queue = [pid], next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      queue.push(child.pid);
      if (child.pgrp !== pid) strays.push({ pid: child.pid, start: child.start });
    }
  }
  return strays;
}

/**
 * Whether a stray is still the same live process (not exited, not a zombie, its pid not reused).
 * @param stray - The stray.
 * @returns True while it runs.
 */
function strayAlive(stray: StrayProcess): boolean {
  const stat = procStat(String(stray.pid));
  return stat !== undefined && stat.start === stray.start && stat.state !== "Z" && stat.state !== "X";
}

/**
 * Signals each stray that is still the process it was (a pid reused since is left alone).
 *
 * Source: SPEC §3.3.
 * @param strays - From {@link strayDescendants}.
 * @param signal - `SIGTERM` or `SIGKILL`.
 */
export function signalStrays(strays: readonly StrayProcess[], signal: "SIGTERM" | "SIGKILL"): void {
  for (const stray of strays) {
    if (!strayAlive(stray)) continue;
    try {
      process.kill(stray.pid, signal);
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
}

/**
 * Whether any stray still runs.
 * @param strays - From {@link strayDescendants}.
 * @returns True while one does.
 */
export function anyStrayAlive(strays: readonly StrayProcess[]): boolean {
  return strays.some(strayAlive);
}
