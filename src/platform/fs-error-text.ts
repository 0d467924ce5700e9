/**
 * File-system errors as text for messages: plain words and the code for the ones people meet with a
 * wrong path, the runtime's own description otherwise, never the path Node appends (the message
 * names the file already). Edge.
 *
 * Source: the brief ("clear, specific error"); STYLE #11.
 * @module
 */

/** Plain words for the file-system errors people meet with a wrong path (the code stays beside them). */
const FS_ERROR_WORDS: Readonly<Record<string, string>> = {
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of the path is not a folder",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOENT: "no such file or folder",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the device",
  ENXIO: "it is a FIFO or a socket that nobody reads",
};

/**
 * Renders a file-system error for a message: for the common codes, plain words and the code
 * (`it is a folder, not a file (EISDIR)`); otherwise the runtime's code and description, without the
 * path Node adds. An error of Bouncer's own (no `syscall`) keeps its message.
 * @param error - Anything caught.
 * @returns e.g. `it is a folder, not a file (EISDIR)`.
 */
export function describeFsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  const words = typeof code === "string" && typeof syscall === "string" ? FS_ERROR_WORDS[code] : undefined;
  if (words !== undefined) return `${words} (${code as string})`;
  return error.message.replace(/, \w+ '.*'$/, "").replace(/\.$/, "");
}

/**
 * Renders why a file named on the command line (a policy, a session, an audit log, a client
 * config) cannot be read: `no such file` when it is missing — the words every such message uses —
 * else {@link describeFsError}'s (`it is a folder, not a file (EISDIR)`, `it is not a regular file
 * (a FIFO)`, `permission denied (EACCES)`).
 *
 * Source: README "Commands" (a named file that cannot be read is a usage error); the brief ("clear,
 * specific error"): one wording for one cause, whichever command meets it.
 * @param error - Anything caught while opening or reading the file.
 * @returns e.g. `no such file`.
 */
export function describeReadError(error: unknown): string {
  const { code } = (error ?? {}) as { code?: unknown };
  return code === "ENOENT" ? "no such file" : describeFsError(error);
}
