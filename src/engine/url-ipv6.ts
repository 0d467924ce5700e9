/**
 * IPv6 addresses in canonical text (`http://[2001:db8::1]/`, `[::1]:8080`, a bare `2001:db8::1`),
 * indexed as the WHATWG URL parser writes a URL's IPv6 host — compressed, in brackets
 * (`[2001:db8::1]`) — which is how a destination URL's host is looked up (SPEC §2.5 "Identity": the
 * URL parsed with the WHATWG parser). An IPv4-mapped address (`::ffff:127.0.0.1`, which the parser
 * writes `[::ffff:7f00:1]`) reaches its IPv4 address, so it is indexed as that dotted quad too, and a
 * destination's mapped host is looked up by it (`mappedIpv4`). Pure (the engine may use `URL`).
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans", "Canonical form, applied to destinations and to
 * recorded output alike".
 * @module
 */

/** The longest text an IPv6 address can be written in (eight groups and an embedded IPv4 address). */
const MAX_ADDRESS_LENGTH = 45;

const COLON = 58;
const DOT = 46;

/** `[0-9a-f:.]`: a character of an IPv6 address as written (canonical text is lower case). */
function isAddressChar(c: number): boolean {
  return (c >= 48 && c <= 58) || (c >= 97 && c <= 102) || c === DOT;
}

/** `[\w-]` on ASCII, or any character above U+007F: what glues a run to a longer word. */
function isWordGlue(c: number): boolean {
  return (
    (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 45 || c > 127
  );
}

/**
 * Whether a run of address characters can be an IPv6 address at all, before the parser is asked
 * (it throws on most runs: times `12:30:45`, MAC addresses): one `::`, or else eight groups — seven
 * colons, or six and an IPv4 address at the end.
 */
function mayBeAddress(run: string): boolean {
  if (run.includes("::")) return true;
  let colons = 0;
  for (let i = 0; i < run.length; i += 1) if (run.charCodeAt(i) === COLON) colons += 1;
  return colons === 7 || (colons === 6 && run.includes("."));
}

/**
 * The IPv6 host of a URL as the WHATWG parser writes it, if `address` is an IPv6 address.
 * @param address - The address as written, without brackets or zone.
 * @returns `[…]` compressed, or undefined when the parser refuses it.
 */
function ipv6Host(address: string): string | undefined {
  try {
    const host = new URL(`http://[${address}]/`).hostname;
    return host.startsWith("[") ? host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The IPv4 address an IPv4-mapped IPv6 host reaches (`[::ffff:7f00:1]` → `127.0.0.1`).
 *
 * Source: SPEC §2.5 "Identity" (what the data would reach).
 * @param host - A URL host as the WHATWG parser writes it.
 * @returns The dotted quad, or undefined when the host is no IPv4-mapped address.
 * @example mappedIpv4("[::ffff:7f00:1]") // => "127.0.0.1"
 */
export function mappedIpv4(host: string): string | undefined {
  const m = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (m === null) return undefined;
  const high = Number.parseInt(m[1] ?? "", 16);
  const low = Number.parseInt(m[2] ?? "", 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/**
 * Reports each IPv6 address of the text (a run of hex digits, colons and dots holding at least two
 * colons, not glued to a longer word — a word and one colon before it are a label, `ip:2001:db8::1`
 * — that the WHATWG parser reads as an IPv6 address; in brackets or not, a zone id after it ignored) as the parser writes a URL's IPv6 host, and an IPv4-mapped one
 * also as its dotted quad, with the span of the address as written. Linear: each run of such
 * characters is read once, from the first colon in it.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param text - Canonical text (lower case).
 * @param report - Called with each key and the address's span.
 * @returns Nothing.
 * @example scanIpv6Hosts("post to http://[2001:DB8:0::1]/x", (key) => key) // reports "[2001:db8::1]"
 */
export function scanIpv6Hosts(
  text: string,
  report: (key: string, span: { readonly start: number; readonly length: number }) => void,
): void {
  let resume = 0;
  for (let colon = text.indexOf(":"); colon !== -1; colon = text.indexOf(":", resume)) {
    let start = colon;
    while (start > resume && isAddressChar(text.charCodeAt(start - 1))) start -= 1;
    let end = colon + 1;
    while (isAddressChar(text.charCodeAt(end))) end += 1;
    resume = end;
    // Dots at either end are punctuation around the address (`2001:db8::1.`), and so is one colon
    // after a group (`2001:db8::1: refused`); a leading `::` is part of it (`::1`).
    while (start < end && text.charCodeAt(start) === DOT) start += 1;
    while (end > start && text.charCodeAt(end - 1) === DOT) end -= 1;
    if (isWordGlue(text.charCodeAt(end))) continue;
    if (isWordGlue(text.charCodeAt(start - 1))) {
      // A label and one colon before the address (`ip:2001:db8::1`, `host:fe80::1`): the address
      // starts after that colon. A label before `::` is code (`mod::fn`), not an address.
      const first = text.indexOf(":", start);
      if (text.charCodeAt(first + 1) === COLON) continue;
      start = first + 1;
    }
    if (end - start > MAX_ADDRESS_LENGTH + 1) continue;
    // No address ends in one colon: such a colon is punctuation.
    if (text.charCodeAt(end - 1) === COLON && text.charCodeAt(end - 2) !== COLON) end -= 1;
    const address = text.slice(start, end);
    if (!mayBeAddress(address)) continue;
    const host = ipv6Host(address);
    if (host === undefined) continue;
    const span = { start, length: address.length };
    report(host, span);
    const ipv4 = mappedIpv4(host);
    if (ipv4 !== undefined) report(ipv4, span);
  }
}
