/**
 * Hosts of one label written in URLs of canonical text (`s3://exfil-bucket/x`, `gs://bucket`,
 * `http://intranet/`): the host scan finds dotted hosts only, and the alphanumeric scan needs a digit,
 * so a URL whose host has no dot was indexed by nothing, and the same URL sent verbatim was asked
 * about as "not seen". Only a host right after `://` (and any userinfo) is read so, never a bare word.
 * Pure (the engine may use `URL`).
 *
 * Source: SPEC §2.5 "Identity" (a URL's host is what taint is looked up by), "Index, not rescans"
 * (URLs and hosts are indexed).
 * @module
 */

import { hostKey } from "./token-shapes.ts";

/** `://`, optional userinfo, then one host label: no dot follows it (a dotted host is the host scan's). */
const URL_LABEL_HOST = /:\/\/(?:[^\s/?#@]{0,256}@)?([\p{L}\p{M}\p{N}_-]+)(?![\p{L}\p{M}\p{N}_.@-])/gu;

/**
 * Reports, for each URL of the text whose host is a single label, that host as a destination URL's
 * host is looked up by (ASCII letters as written, other letters in punycode), with its span.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param text - Canonical text (lower case).
 * @param report - Called with the host key and the host's span as written.
 * @returns Nothing.
 * @example scanUrlLabelHosts("upload to s3://exfil-bucket/x", (key) => key) // reports "exfil-bucket"
 */
export function scanUrlLabelHosts(
  text: string,
  report: (key: string, span: { readonly start: number; readonly length: number }) => void,
): void {
  if (!text.includes("://")) return;
  URL_LABEL_HOST.lastIndex = 0;
  for (let m = URL_LABEL_HOST.exec(text); m !== null; m = URL_LABEL_HOST.exec(text)) {
    const host = m[1] ?? "";
    report(hostKey(host), { start: m.index + m[0].length - host.length, length: host.length });
  }
}
