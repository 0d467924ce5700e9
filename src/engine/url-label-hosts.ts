/**
 * Hosts of one label written in URLs of canonical text (`s3://exfil-bucket/x`, `gs://bucket`,
 * `http://intranet/`): the host scan finds dotted hosts only, and the alphanumeric scan needs a digit,
 * so a URL whose host has no dot was indexed by nothing, and the same URL sent verbatim was asked
 * about as "not seen". Only a host right after `://` (and any userinfo) is read so, never a bare word;
 * for the WHATWG special schemes also after the backslash forms their parser reads as `//`
 * (`http:\\intranet`, `http:/\intranet`). One regular-expression pass, no URL parsing. Pure.
 *
 * Source: SPEC §2.5 "Identity" (a URL's host is what taint is looked up by), "Index, not rescans"
 * (URLs and hosts are indexed).
 * @module
 */

import { hostKey } from "./token-shapes.ts";

/**
 * `://`, optional userinfo up to the authority's last `@` (`http://a@b@intranet/` is host
 * `intranet`, as the WHATWG parser reads it), then one host label and any trailing dots
 * (`http://intranet./x`, a sentence's full stop after `http://intranet`): no label follows a dot (a
 * dotted host is the host scan's). The authority ends at white space, `/`, `?` or `#`, so the
 * userinfo of one `://` never reaches the next: the scan stays linear.
 */
const URL_LABEL_HOST = /:\/\/(?:[^\s/?#]*@)?([\p{L}\p{M}\p{N}_-]+)(\.*)(?![\p{L}\p{M}\p{N}_.@-])/gu;
/**
 * The same after a WHATWG special scheme written with a backslash for a slash (`http:\\intranet`,
 * `http:/\intranet`, `https:\/intranet`), where a backslash also ends the authority.
 */
const LENIENT_LABEL_HOST =
  /(?<![\p{L}\p{N}+.-])(?:https?|wss?|ftp):(?:\/\\|\\[/\\])(?:[^\s/\\?#]*@)?([\p{L}\p{M}\p{N}_-]+)(\.*)(?![\p{L}\p{M}\p{N}_.@-])/gu;

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
  if (text.includes("://")) scanWith(URL_LABEL_HOST, text, report);
  if (text.includes(":\\") || text.includes(":/\\")) scanWith(LENIENT_LABEL_HOST, text, report);
}

/** Reports the host (group 1, before its trailing dots, group 2) of each match of a global expression. */
function scanWith(
  form: RegExp,
  text: string,
  report: (key: string, span: { readonly start: number; readonly length: number }) => void,
): void {
  form.lastIndex = 0;
  for (let m = form.exec(text); m !== null; m = form.exec(text)) {
    const host = m[1] ?? "";
    const start = m.index + m[0].length - (m[2] ?? "").length - host.length;
    report(hostKey(host), { start, length: host.length });
  }
}
