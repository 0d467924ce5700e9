/**
 * IPv4 hosts of URLs in canonical text written in another notation than dotted decimal
 * (`http://127.1/`, `http://0177.0.0.1/`, `http://0x7f.0.0.1/`, `http://2130706433/`): the WHATWG URL
 * parser reads each as the dotted quad `127.0.0.1`, which is how a destination URL's host is looked
 * up (SPEC §2.5 "Identity": the URL parsed with the WHATWG parser). Only hosts right after `://`
 * (and any userinfo) are read so, never a dotted number elsewhere (`version 3.14` is no `3.0.0.14`).
 * Pure (the engine may use `URL`).
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans", "Canonical form, applied to destinations and to
 * recorded output alike".
 * @module
 */

import { DOTTED_QUAD } from "./token-shapes.ts";

/** `://`, optional userinfo, then a host of 1 to 4 numeric labels (decimal, octal or `0x` hex). */
const URL_NUMERIC_HOST =
  /:\/\/(?:[^\s/?#@]{0,256}@)?((?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}\.?)(?![\p{L}\p{M}\p{N}_.-])/gu;

/**
 * Reports, for each URL of the text whose host is an IPv4 address in another notation, that address
 * as the WHATWG parser reads it (dotted decimal), with the span of the host as written.
 *
 * Source: SPEC §2.5 "Identity".
 * @param text - Canonical text (lower case).
 * @param report - Called with the dotted-quad key and the host's span.
 * @returns Nothing.
 * @example scanUrlIpv4Hosts("see http://127.1/x", (key) => key) // reports "127.0.0.1"
 */
export function scanUrlIpv4Hosts(
  text: string,
  report: (key: string, span: { readonly start: number; readonly length: number }) => void,
): void {
  if (!text.includes("://")) return;
  URL_NUMERIC_HOST.lastIndex = 0;
  for (let m = URL_NUMERIC_HOST.exec(text); m !== null; m = URL_NUMERIC_HOST.exec(text)) {
    const host = m[1] ?? "";
    const normalized = ipv4Of(host);
    if (normalized === undefined || normalized === host) continue;
    report(normalized, { start: m.index + m[0].length - host.length, length: host.length });
  }
}

/**
 * The dotted-quad address the WHATWG URL parser makes of a host, if it is an IPv4 address.
 * @param host - A numeric host as written.
 * @returns `a.b.c.d`, or undefined when the parser refuses it or reads no IPv4 address.
 */
function ipv4Of(host: string): string | undefined {
  try {
    const parsed = new URL(`http://${host}/`).hostname;
    return DOTTED_QUAD.test(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
