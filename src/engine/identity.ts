/**
 * Identities — what data sent to a destination would reach (SPEC §2.5 "Identity"): an email address,
 * a URL's origin, a phone number, an IBAN, or the canonical string. Pure.
 * @module
 */

import { percentDecode } from "./canonical.ts";
import { phoneKeys } from "./phone-iban-keys.ts";
import { asciiPhoneText } from "./phone-text.ts";
import { schemeLessHost } from "./scheme-less-hosts.ts";
import {
  asciiDomainAddress,
  hostKey,
  isEmailShaped,
  isHostShaped,
  isIbanShaped,
  isPhoneShaped,
  isTokenShapedString,
} from "./token-shapes.ts";
import { mappedIpv4 } from "./url-ipv6.ts";

/** Fields every identity has. */
interface IdentityBase {
  /** The identity: what taint and trust are decided on (for a URL, its origin). */
  readonly id: string;
  /** Token index keys to probe (for a URL, its hosts); empty when none. */
  readonly keys: readonly string[];
  /** True when the token index decides taint alone (no window search). */
  readonly token: boolean;
}

/**
 * An email address (SPEC §2.5: "an email address → the address").
 *
 * Source: SPEC §2.5 "Identity".
 */
export interface EmailIdentity extends IdentityBase {
  readonly kind: "email";
  readonly domain: string;
}

/**
 * A URL parsed with the WHATWG parser on the raw value (SPEC §2.5).
 *
 * Source: SPEC §2.5 "Identity".
 */
export interface UrlIdentity extends IdentityBase {
  readonly kind: "url";
  /** Scheme, host and port: `https://hooks.example:8443`. */
  readonly origin: string;
  /** The parsed host (ASCII). */
  readonly host: string;
  /** Origin + path, no query or fragment: what URL-prefix trust matches. */
  readonly prefix: string;
  /** Origin + path + query: what an approval of "this URL" is keyed by. */
  readonly href: string;
  /** True when only the canonical form parsed (the raw value did not): taint only, never trust. */
  readonly fromCanonical: boolean;
  /**
   * False when URL parsers are known to disagree on the raw value's host — it holds a backslash or
   * userinfo (`https://hooks.corp.example\\@evil.example/`): such a URL is never trusted.
   */
  readonly trustable: boolean;
}

/**
 * A phone number as `+` and its digits, an IBAN in upper case, or any other canonical string.
 *
 * Source: SPEC §2.5 "Identity".
 */
export interface ScalarIdentity extends IdentityBase {
  readonly kind: "phone" | "iban" | "string";
}

/**
 * What a destination value resolves to (SPEC §2.5 "Identity").
 *
 * Source: SPEC §2.5 "Identity".
 */
export type Identity = EmailIdentity | UrlIdentity | ScalarIdentity;

const SCHEME_URL = /^(?:[a-z][a-z0-9+.-]*:\/\/|(?:https?|wss?|ftp|file):)/i;
// An empty port (`evil.example:/collect`) is the default one to the WHATWG parser.
const SCHEMELESS_URL = /^([\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+)(?::[0-9]{0,5})?(?:[/?#]\S*)?$/u;
/**
 * A scheme-less URL with userinfo (`x@evil.example/collect`, `u:p@evil.example:8443`): a path, query,
 * fragment or port after the host, so that an email address is never one.
 */
const SCHEMELESS_USERINFO_URL =
  /^[^@/?#\\\s]+@([\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+)(?::[0-9]{0,5}(?=$|[/?#])|(?=[/?#]))(?:[/?#]\S*)?$/u;

/**
 * Whether a value would be parsed as a URL: it has a scheme (`x://`, or a special scheme such as
 * `https:`), or it is a scheme-less `host[:port][/path]` with a dotted host (treated as `https://`).
 *
 * Source: SPEC §2.5 "Identity".
 * @param value - A trimmed raw or canonical value.
 * @returns True when the value is URL-shaped.
 */
export function isUrlShaped(value: string): boolean {
  if (SCHEME_URL.test(value)) return !/^mailto:/i.test(value);
  const host = SCHEMELESS_URL.exec(value)?.[1];
  return host !== undefined && isHostShaped(host.toLowerCase());
}

/**
 * Whether a value is read as a URL for its identity: {@link isUrlShaped}, or a scheme-less URL with
 * userinfo, which a tool adding `https://` sends to the host after the `@` (never trusted when the
 * userinfo names a user or a password: such a URL never is; `:@host/…` is the host's URL).
 *
 * Source: SPEC §2.5 "Identity" (a scheme-less `host[:port]/path` is treated as `https://`);
 * sink-gate review of session 18 (`x@evil.example/collect` was asked, not denied).
 */
function readsAsUrl(value: string): boolean {
  if (isUrlShaped(value)) return true;
  const host = SCHEMELESS_USERINFO_URL.exec(value)?.[1];
  return host !== undefined && isHostShaped(host.toLowerCase());
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(SCHEME_URL.test(value) ? value : `https://${value}`);
  } catch {
    return undefined;
  }
}

/**
 * The host of a URL as written (lower case), when it can be read without a parser: after the
 * scheme's `//` (or at the start of a scheme-less value) and any userinfo, up to `/`, `?`, `#`, `:` or
 * the end. Undefined for anything else (an IPv6 literal, `https:host` without slashes).
 */
function writtenHost(raw: string): string | undefined {
  const rest = raw.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  if (rest === raw && SCHEME_URL.test(raw)) return undefined;
  const host = /^(?:[^@/?#\\\s]*@)?([^/?#:@\\\s[\]]+)(?=$|[/?#:])/.exec(rest)?.[1];
  return host === undefined ? undefined : host.toLowerCase();
}

/**
 * The host another URL parser reads where parsers disagree (a backslash or userinfo in the raw
 * value): the authority taken up to the first `/`, `?` or `#` — a backslash is no separator there —
 * and after its last `@`, without a port. `https://hooks.example\@evil.example/` is
 * `hooks.example` to the WHATWG parser and `evil.example` to Python's `urlsplit`.
 *
 * Source: SPEC §2.5 "Identity" (the URL parsed on the raw value), §3.4 (a question names what a
 * destination reaches).
 * @param raw - The destination as written.
 * @returns That host in lower case, or undefined when the value has no such authority.
 * @example otherReadingHost("https://hooks.example\\@evil.example/") // => "evil.example"
 */
export function otherReadingHost(raw: string): string | undefined {
  const rest = raw.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const authority = /^[^/?#]*/.exec(rest)?.[0] ?? "";
  const host = authority.slice(authority.lastIndexOf("@") + 1).replace(/:\d*$/, "");
  return host === "" || /[\s\\[\]]/.test(host) ? undefined : host.toLowerCase();
}

/**
 * A URL host as recorded text would index it: percent escapes decoded (an opaque host keeps them),
 * lower-cased, non-ASCII labels in punycode (`hostKey`).
 * @param host - A host as the WHATWG parser gives it, or as written.
 * @returns The key; the host itself when it decodes to nothing else.
 */
function textHostKey(host: string): string {
  // As canonical form decodes text: a bad escape stays as written, the rest is decoded.
  return hostKey((host.includes("%") ? percentDecode(host) : host).toLowerCase());
}

function urlIdentity(raw: string | undefined, canonical: string): UrlIdentity | undefined {
  const fromRaw = raw !== undefined && readsAsUrl(raw) ? parseUrl(raw) : undefined;
  const same = fromRaw !== undefined && raw?.toLowerCase() === canonical;
  const fromCanonical = same ? fromRaw : readsAsUrl(canonical) ? parseUrl(canonical) : undefined;
  const url = fromRaw ?? fromCanonical;
  if (url === undefined || url.hostname === "") return undefined;
  const origin = `${url.protocol}//${url.host}`;
  const hosts = [url.hostname];
  if (fromRaw !== undefined && fromCanonical !== undefined && fromCanonical.hostname !== url.hostname) {
    hosts.push(fromCanonical.hostname);
  }
  // The host as written, where the parser rewrote it (`http://3232235777/`, `0xC0A80101`: an IPv4
  // address in other notation): output text indexes it as written (taint only).
  const written = fromRaw === undefined || raw === undefined ? undefined : writtenHost(raw);
  if (written !== undefined && !hosts.includes(written)) hosts.push(written);
  const trustable =
    fromRaw !== undefined && raw?.includes("\\") === false && url.username === "" && url.password === "";
  // Where parsers disagree, the host another parser reads is probed too (taint only): output naming
  // `evil.example` taints `https://hooks.example\@evil.example/`.
  const other = trustable || raw === undefined ? undefined : otherReadingHost(raw);
  if (other !== undefined && !hosts.includes(other)) hosts.push(other);
  // A host of a scheme the WHATWG parser does not know (`s3://`, `sftp://`) is opaque: kept
  // percent-encoded (`s3://bücher.example` → `b%C3%BCcher.example`) and in its case; text indexes a
  // host lower-cased and in punycode (`hostKey`), so that form is probed too (taint only).
  for (const host of [...hosts]) {
    const key = textHostKey(host);
    if (key !== host) hosts.push(key);
  }
  // `evil.example.` is the DNS name `evil.example`: probe it as the text would index it (taint only).
  for (const host of [...hosts]) if (host.endsWith(".")) hosts.push(host.replace(/\.+$/, ""));
  // `[::ffff:7f00:1]` (written `[::ffff:127.0.0.1]`) reaches `127.0.0.1` (taint only).
  for (const host of [...hosts]) {
    const ipv4 = mappedIpv4(host);
    if (ipv4 !== undefined) hosts.push(ipv4);
  }
  return {
    kind: "url",
    id: origin,
    keys: [...new Set(hosts)].filter((host) => host !== ""),
    token: true,
    origin,
    host: url.hostname,
    prefix: `${origin}${url.pathname}`,
    href: `${origin}${url.pathname}${url.search}`,
    fromCanonical: fromRaw === undefined,
    trustable,
  };
}

/**
 * URI schemes whose value is a phone number: `tel:` (RFC 3966), `sms:`/`mms:` (RFC 5724), and the
 * messaging forms tools take (`whatsapp:+44…` is the `To` of Twilio's messaging API).
 */
const PHONE_URI = /^(?:tel|sms|smsto|mms|mmsto|callto|whatsapp|viber|signal|facetime|facetime-audio):/;

/**
 * The number of a phone URI (`whatsapp:+44…`, `tel:+44…;phone-context=…`, `sms:+44…?body=…`) and
 * what follows it (its `;` parameters or `?` query), or undefined for a value of no such scheme.
 *
 * Source: SPEC §2.5 "Identity" (a phone-shaped value); sink-gate review of session 18 (a number
 * planted in output and sent as `whatsapp:+44…` or `sms:+44…` was asked, not denied).
 * @param canonical - A canonical destination.
 * @returns The number and the rest, or undefined.
 */
function phoneUri(canonical: string): { readonly number: string; readonly rest: string } | undefined {
  const scheme = PHONE_URI.exec(canonical);
  if (scheme === null) return undefined;
  const after = canonical.slice(scheme[0].length);
  const end = after.search(/[;?]/);
  return end === -1 ? { number: after, rest: "" } : { number: after.slice(0, end), rest: after.slice(end) };
}

/** A run of digits with separators that may be a phone number, inside other text. */
const NUMBER_RUN = /\+?\d[\d\s().-]{5,}\d/g;

/**
 * The index keys of every phone number written in a text (taint only).
 * @param text - Any text (a phone URI's parameters or query).
 * @returns Their keys.
 */
function numberKeysIn(text: string): string[] {
  return [...text.matchAll(NUMBER_RUN)].flatMap(([run]) => (isPhoneShaped(run) ? phoneKeys(run) : []));
}
/**
 * Resolves one destination (already split, SPEC §2.5 "Splitting") to its identity. Emails are
 * recognised on the canonical form; URLs are parsed with the WHATWG parser on the raw value — never
 * on the percent-decoded form — and only when the raw value does not parse is the canonical form
 * used (for taint, never for trust); when both parse to different hosts, both hosts are probed.
 *
 * Source: SPEC §2.5 "Identity".
 * @param raw - The raw value, trimmed (not percent-decoded); undefined for a piece only the
 *   canonical form holds (a URL is then read from the canonical form, for taint only).
 * @param canonical - Its canonical destination form (see `canonicalize`).
 * @returns The identity; any value that is no email, URL, phone or IBAN is the canonical string.
 * @example identify("HTTPS://Hooks.Example/a?b=1", "https://hooks.example/a?b=1").id // "https://hooks.example"
 */
export function identify(raw: string | undefined, canonical: string): Identity {
  if (isEmailShaped(canonical)) {
    const ascii = asciiDomainAddress(canonical);
    return {
      kind: "email",
      id: canonical,
      keys: ascii === canonical ? [canonical] : [canonical, ascii],
      token: true,
      domain: canonical.slice(canonical.lastIndexOf("@") + 1),
    };
  }
  const url = urlIdentity(raw, canonical);
  if (url !== undefined) return url;
  const uri = phoneUri(canonical);
  if (uri !== undefined && (uri.rest !== "" || !isPhoneShaped(uri.number))) {
    // A phone URI with parameters or a query after its number, which may name other recipients
    // (`sms:+1…;+44…?body=x`, `?to=+44…`), or whose number is not read alone (`sms:+1…&to=+44…`,
    // `sms:?to=+44…`): the value is its own identity (never the number's, for trust or approvals),
    // and every number in it is probed (taint only).
    const numbers = [
      ...(isPhoneShaped(uri.number) ? phoneKeys(uri.number) : []),
      ...numberKeysIn(`${uri.number}${uri.rest}`),
    ];
    if (numbers.length > 0)
      return { kind: "string", id: canonical, keys: [...new Set([canonical, ...numbers])], token: true };
  }
  const phone = uri === undefined ? canonical : uri.number;
  if (isPhoneShaped(phone)) {
    // `+` and its digits is the index key (taint matches any spelling of the digits; a leading
    // `00` or `011` is also read as `+`), but only a number written with `+` has that identity for
    // trust and approvals: `555-987-6543` (a national number) is not `+55 59 8765 43` (a Brazilian
    // one), nor is `0113 496 0000` (a Leeds number) `+1 349 600 00`.
    // Digits of another script or dashes other than `-` are read as the number for taint only: a
    // server that drops what is not an ASCII digit reaches another one (`+1555١٢٣4567`), so such a
    // spelling is its own identity for trust and approvals (`asciiPhoneText`).
    const keys = phoneKeys(phone);
    const key = keys[0] ?? "";
    const id =
      asciiPhoneText(phone) !== phone ? canonical : phone.trimStart().startsWith("+") ? key : key.slice(1);
    return { kind: "phone", id, keys, token: true };
  }
  if (isIbanShaped(canonical)) {
    const id = canonical.replaceAll(" ", "").toUpperCase();
    return { kind: "iban", id, keys: [id], token: true };
  }
  // `//host/x`, `\\host\share`, `git@host:org/repo`: the host is probed too (taint only).
  const host = schemeLessHost(canonical);
  const keys = host === undefined ? [canonical] : [canonical, host];
  return { kind: "string", id: canonical, keys, token: isTokenShapedString(canonical) };
}
