/**
 * One line, one write, for the files Bouncer appends records to (the audit log, a `--record`
 * session file): a write cut short (a full disk) throws, and the next line written to the same file
 * starts with a newline, so the part is a bad line of its own and the next record is not glued to
 * it. Edge (the only state is where the last write was cut).
 *
 * Source: SPEC §3.5 ("Each line is one append of one write"), §5.9.
 * @module
 */

import { lineEncoder } from "./audit-line.ts";

/** The write itself: `fs.writeSync`'s shape (tests give one that writes short). */
export type WriteBytes = (fd: number, bytes: Uint8Array) => number;

/**
 * Appends a line with one write.
 * @param fd - The open file.
 * @param text - The line, with its `\n`.
 * @param file - Which file `fd` is (e.g. `dev:ino`): a cut is ended only by a line to that same
 *   file. Default `""` (a writer of one file).
 * @returns The bytes written (with the newline that ends a cut, when there was one).
 * @throws {Error} `short write of N of M bytes`, or what the write throws.
 */
export type LineWrite = (fd: number, text: string, file?: string) => number;

/**
 * Creates a line writer that ends a line cut short with the next line's write.
 *
 * Source: SPEC §3.5, §5.9.
 * @param write - The write (e.g. `fs.writeSync`).
 * @returns The writer, with its own encoder and its own memory of a cut.
 */
export function lineWriter(write: WriteBytes): LineWrite {
  const encode = lineEncoder();
  /** The file a write cut a line short in, when the last write there was cut. */
  let cutIn: string | undefined;
  return (fd, text, file = "") => {
    const bytes = encode(cutIn === file ? `\n${text}` : text);
    const written = write(fd, bytes);
    if (written !== bytes.length) {
      if (written > 0) cutIn = file;
      throw new Error(`short write of ${written} of ${bytes.length} bytes`);
    }
    cutIn = undefined;
    return written;
  };
}
