/**
 * What `bouncer init` says about one file's write: that a hard-linked config will be split (in the
 * plan), and the `Wrote` line (the backup by its name, or by its full path when it is not beside the
 * path given; the split again). Edge (paths only, no I/O).
 *
 * Source: SPEC §5.2 (atomic write, backup beside the file); the review of hard-linked and symlinked
 * configs.
 * @module
 */

import path from "node:path";
import type { LoadedTarget } from "./targets.ts";

/**
 * What a write does to a hard-linked config: the atomic replace renames a new file over this name,
 * so every other name of the old file (a hard link made to share one config between two clients)
 * keeps the old content. A symlink is written through instead.
 * @param target - The config as read.
 * @returns E.g. `its 1 other hard link keeps the old content`, or undefined when the file has no other name.
 */
function hardLinkNote(target: LoadedTarget): string | undefined {
  const others = target.read.links - 1;
  if (others < 1) return undefined;
  return `${others === 1 ? "its 1 other hard link keeps" : `its ${others} other hard links keep`} the old content`;
}

/**
 * The plan's warning for a hard-linked config.
 *
 * Source: SPEC §5.2 (atomic write).
 * @param target - The config as read.
 * @returns The warning (without `warning: `), or undefined when the file has one name.
 */
export function hardLinkWarning(target: LoadedTarget): string | undefined {
  const split = hardLinkNote(target);
  if (split === undefined) return undefined;
  return `"${target.path}" is hard-linked: the write replaces it with a new file, so ${split} (link it again after the write, or use a symlink, which is written through)`;
}

/**
 * The line after a write: `Wrote "FILE" (backup "NAME")`, the backup by its full path when it is
 * not beside the path given (a symlink into another folder: the backup is beside the target), and
 * the hard links the write split.
 *
 * Source: SPEC §5.2 ("timestamped backup beside the file").
 * @param target - The config written.
 * @param backup - The backup's path.
 * @returns The line, without its line feed.
 */
export function writtenLine(target: LoadedTarget, backup: string): string {
  const beside = path.dirname(backup) === path.dirname(target.path);
  const split = hardLinkNote(target);
  return `Wrote "${target.path}" (backup "${beside ? path.basename(backup) : backup}")${split === undefined ? "" : `; ${split}`}`;
}
