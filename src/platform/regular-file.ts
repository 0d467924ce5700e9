/**
 * Reading a whole file that must be a regular file of UTF-8 text (a policy, a pin file, a session,
 * a client config): never
 * waits on a FIFO or a device (it is opened without blocking and looked at before any read), and
 * never turns bytes that are not UTF-8 into U+FFFD silently (a tool name `send_\xffemail` would
 * become another name). Edge (file system).
 *
 * Source: SPEC §3.3 (never a hang), §4.2 (strict validation); brief: "fail closed, lose nothing".
 * @module
 */

import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";

/** The error codes of this module besides the system's own (`ENOENT`, ...). */
export type RegularFileCode = "EISDIR" | "ENOTREG" | "ENOTUTF8" | "EFBIG";

/**
 * An error with a `code`, as Node's file-system errors carry one.
 * @param code - The code.
 * @param message - What is wrong.
 * @returns The error.
 */
function codedError(code: RegularFileCode, message: string): Error & { code: RegularFileCode } {
  return Object.assign(new Error(message), { code });
}

/**
 * Where the first byte sequence that is not UTF-8 lies, as a line and column of the text decoded
 * leniently (the first U+FFFD).
 * @param bytes - The file's bytes.
 * @returns E.g. `line 3, column 7`.
 */
function firstInvalid(bytes: Uint8Array): string {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const at = Math.max(0, text.indexOf("\uFFFD"));
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - (before.lastIndexOf("\n") + 1) + 1;
  return `line ${line}, column ${column}`;
}

/**
 * Why a file is not read as a regular file, in the words of the errors of this module.
 * @param stats - Its `stat` or `fstat`.
 * @returns The code and the reason (e.g. `it is not a regular file (a FIFO)`), or `undefined` for a
 *   regular file.
 */
export function notRegularReason(stats: Stats): { code: RegularFileCode; reason: string } | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return { code: "EISDIR", reason: "it is a folder, not a file (EISDIR)" };
  const kind = stats.isFIFO()
    ? " (a FIFO)"
    : stats.isSocket()
      ? " (a socket)"
      : stats.isCharacterDevice() || stats.isBlockDevice()
        ? " (a device)"
        : "";
  return { code: "ENOTREG", reason: `it is not a regular file${kind}` };
}

/**
 * Opens a regular file for reading without ever waiting: a FIFO is opened without blocking and
 * refused, as are a folder and a device. The caller closes the descriptor.
 *
 * Source: SPEC §3.3 (never a hang).
 * @param path - The file.
 * @returns The open descriptor (opened with `O_NONBLOCK`, which regular files ignore) and its `fstat`.
 * @throws {Error} With `code` `EISDIR` (a directory), `ENOTREG` (a FIFO, a device, a socket; the
 *   message names which), or the system's code (`ENOENT`, `EACCES`, ...); nothing is left open then.
 */
export function openRegularFile(path: string): { readonly fd: number; readonly stats: Stats } {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer (absent on Windows,
  // where there are no FIFOs at a path).
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    const refused = notRegularReason(stats);
    if (refused !== undefined) throw codedError(refused.code, refused.reason);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Reads a regular file whole, through one descriptor ({@link openRegularFile}).
 *
 * Source: SPEC §3.3 (never a hang).
 * @param path - The file.
 * @param options - `maxBytes`: a larger file is refused before it is read.
 * @returns Its bytes, and its `fstat` as read (identity, mode, size).
 * @throws {Error} With `code` `EISDIR` (a directory), `ENOTREG` (a FIFO, a device, a socket: not
 *   read), `EFBIG` (over `maxBytes`), or the system's code (`ENOENT`, `EACCES`, ...).
 */
export function readRegularFile(
  path: string,
  options: { readonly maxBytes?: number } = {},
): { readonly bytes: Buffer; readonly stats: Stats } {
  const { fd, stats } = openRegularFile(path);
  try {
    const { maxBytes } = options;
    if (maxBytes !== undefined && stats.size > maxBytes) {
      throw codedError("EFBIG", `it holds ${stats.size} bytes, more than the ${maxBytes} read at most`);
    }
    return { bytes: readFileSync(fd), stats };
  } finally {
    closeSync(fd);
  }
}

/**
 * Decodes bytes as UTF-8 text, strictly (a leading BOM kept, as `readFile(path, "utf8")` keeps it).
 *
 * Source: SPEC §4.2 (strict validation).
 * @param bytes - A file's bytes.
 * @returns The text.
 * @throws {Error} With `code` `ENOTUTF8` for bytes that are not UTF-8 (the message names the line and
 *   column).
 */
export function decodeUtf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw codedError("ENOTUTF8", `it is not UTF-8 text (${firstInvalid(bytes)})`);
  }
}

/**
 * Reads a regular file whole as UTF-8 text ({@link readRegularFile}, then {@link decodeUtf8Text}).
 *
 * Source: SPEC §3.3 (never a hang), §4.2 (strict validation).
 * @param path - The file.
 * @returns Its text.
 * @throws {Error} With `code` `EISDIR`, `ENOTREG`, `ENOTUTF8`, or the system's code.
 */
export function readRegularTextFile(path: string): string {
  return decodeUtf8Text(readRegularFile(path).bytes);
}
