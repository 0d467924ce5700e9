/**
 * The text of audit log lines from their bytes: UTF-8 only, a line of other bytes as a marker the
 * reader reports (`audit-reader.ts`), never decoded with U+FFFD in it. Edge.
 *
 * Source: SPEC §3.5, §5.6; README "Commands".
 * @module
 */

import { isUtf8 } from "node:buffer";

/**
 * What a line that is not UTF-8 reads as (a NUL first: no JSON text starts so, so no record is lost
 * to it): `parseAuditLine` reports it as such, never as a record decoded with U+FFFD in it.
 */
export const NOT_UTF8_LINE = "\u0000(not UTF-8)";

/** A decoder that throws on bytes that are not UTF-8. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The text of one audit line's bytes, or a marker `parseAuditLine` reports as `not UTF-8 text`.
 *
 * Source: README "Commands" (a file that is not UTF-8 is not read as text); review of `bouncer audit`
 * (a line of other bytes was shown with U+FFFD in it, as if Bouncer had written that).
 * @param bytes - The line, without its newline.
 * @returns Its text.
 */
export function auditLineText(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return NOT_UTF8_LINE;
  }
}

/**
 * The text of a whole log file's bytes: as UTF-8 when they are, else line by line, each line that is
 * not UTF-8 as the marker of {@link auditLineText} (the line numbers stay those of the file).
 * @param bytes - The file's bytes.
 * @returns The text.
 */
export function auditText(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  const lines: string[] = [];
  let start = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) {
    lines.push(auditLineText(bytes.subarray(start, at)));
    start = at + 1;
  }
  lines.push(auditLineText(bytes.subarray(start)));
  return lines.join("\n");
}
