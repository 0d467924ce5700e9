/**
 * The token patterns as regular expressions: the reference the hand-written scanners of
 * src/engine/token-scan.ts must match exactly (same keys, same spans, same order). Test-only.
 * @module
 */

import { phoneKeys } from "../../src/engine/phone-iban-keys.ts";
import { asciiPhoneText } from "../../src/engine/phone-text.ts";
import {
  asciiDomainAddress,
  hostKey,
  hostSuffixes,
  isEmailShaped,
  isHostShaped,
  isPhoneShaped,
  isTokenShapedString,
} from "../../src/engine/token-shapes.ts";
import { tokenVariants } from "../../src/engine/token-variants.ts";
import { scanUrlIpv4Hosts } from "../../src/engine/url-ipv4.ts";
import { scanIpv6Hosts } from "../../src/engine/url-ipv6.ts";
import { scanUrlLabelHosts } from "../../src/engine/url-label-hosts.ts";

const SHAPES = { isEmail: isEmailShaped, isHost: isHostShaped, isToken: isTokenShapedString };

const EMAIL_AT = /[\p{L}\p{M}\p{N}._+-]+@[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+/uy;
const LOCAL_CHAR = /[\p{L}\p{M}\p{N}._+-]/u;
const PATTERNS = {
  unicode: {
    host: /(?:(?<![\p{L}\p{M}\p{N}_.-])|(?<=(?<![\p{L}\p{M}\p{N}_-])\.))[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+/gu,
    handle:
      /(?:(?<![\p{L}\p{M}\p{N}_.@#-])|(?<=(?<![\p{L}\p{M}\p{N}_.@#-])[._-]+)|(?<=\.\.[._-]*))[@#][\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.-]*[\p{L}\p{M}\p{N}_])?/gu,
    iban: /(?<![\p{L}\p{M}\p{N}])[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}/gu,
    alnum: /(?<![\p{L}\p{M}\p{N}_-])[\p{L}\p{M}\p{N}_-]{6,64}(?![\p{L}\p{M}\p{N}_-])/gu,
  },
  ascii: {
    host: /(?:(?<![\w.-])|(?<=(?<![\w-])\.))[\w-]+(?:\.[\w-]+)+/g,
    handle: /(?:(?<![\w.@#-])|(?<=(?<![\w.@#-])[._-]+)|(?<=\.\.[._-]*))[@#]\w(?:[\w.-]*\w)?/g,
    iban: /(?<![a-zA-Z0-9])[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}/g,
    alnum: /(?<![\w-])[\w-]{6,64}(?![\w-])/g,
  },
} as const;
const PHONE = /(?<![0-9+])\+?\(?[0-9](?:[ .()-]{0,2}[0-9]){6,14}(?![0-9])/g;
const DOTTED_QUAD = /^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$/;

type Visit = (key: string, start: number, end: number) => void;

function ibanKeys(match: string, visit: (key: string) => void): void {
  const push = (part: string): void => {
    const compact = part.replaceAll(" ", "").toUpperCase();
    if (compact.length >= 15 && compact.length <= 34) visit(compact);
  };
  for (let at = match.indexOf(" "); at !== -1; at = match.indexOf(" ", at + 1)) push(match.slice(0, at));
  push(match);
}

function each(text: string, pattern: RegExp, visit: (match: string, start: number) => void): void {
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) visit(m[0], m.index);
}

function emails(text: string, visit: Visit): void {
  let resume = 0;
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", Math.max(at + 1, resume))) {
    let start = at;
    while (start > resume && LOCAL_CHAR.test(text[start - 1] ?? "")) start -= 1;
    if (start === at || LOCAL_CHAR.test(text[start - 1] ?? "")) continue;
    EMAIL_AT.lastIndex = start;
    const match = EMAIL_AT.exec(text);
    if (match === null) continue;
    visit(match[0], start, start + match[0].length);
    resume = start + match[0].length;
  }
}

/**
 * Every token key of canonical text, found with the regular expressions.
 * @param text - Canonical text.
 * @param visit - Called once per key, with the token's span.
 */
export function oracleTokens(text: string, found: Visit): void {
  if (text.length < 2) return;
  // Each key, then the keys it stands for without glued punctuation or after a `+` (token-variants.ts).
  const visit: Visit = (key, start, end) => {
    found(key, start, end);
    if (!/^[._+-]|[._+-]$|[._+-]{2}|\+/.test(key)) return;
    for (const variant of tokenVariants(key, SHAPES)) found(variant, start, end);
  };
  const patterns = /[\u0080-\uffff]/.test(text) ? PATTERNS.unicode : PATTERNS.ascii;
  const at = text.includes("@");
  if (at) {
    emails(text, (key, start, end) => {
      visit(key, start, end);
      const ascii = asciiDomainAddress(key);
      if (ascii !== key) visit(ascii, start, end);
    });
  }
  if (at && text.includes('"@')) {
    for (const m of text.matchAll(
      /"([\p{L}\p{M}\p{N}._+-]+)"@([\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+)/gu,
    )) {
      visit(`${m[1]}@${m[2]}`, m.index, m.index + m[0].length);
    }
  }
  if (text.includes(".")) {
    each(text, patterns.host, (match, start) => {
      const last = match.slice(match.lastIndexOf(".") + 1);
      if (!/\p{L}/u.test(last) && !DOTTED_QUAD.test(match)) {
        // A dotted match that is no host stands for the hosts it holds without glued `_`/`-`.
        if (/^[_-]|[_-]$|[._-]{2}/.test(match)) {
          for (const variant of tokenVariants(match, SHAPES)) {
            for (const key of hostSuffixes(hostKey(variant))) visit(key, start, start + match.length);
          }
        }
        return;
      }
      for (const key of hostSuffixes(hostKey(match))) visit(key, start, start + match.length);
      // A non-ASCII host's glued punctuation is taken off before punycode.
      if (/[^\x21-\x7e]/.test(match) && /^[._+-]|[._+-]$|[._+-]{2}/.test(match)) {
        for (const variant of tokenVariants(match, SHAPES)) {
          for (const key of hostSuffixes(hostKey(variant))) visit(key, start, start + match.length);
        }
      }
    });
  }
  // IPv4 hosts of URLs in another notation, as the WHATWG parser reads them (one regex: its own cases
  // are in url-ipv4.test.ts).
  scanUrlIpv4Hosts(text, (key, span) => visit(key, span.start, span.start + span.length));
  // Hosts of one label of URLs (their own cases are in url-label-hosts.test.ts).
  scanUrlLabelHosts(text, (key, span) => visit(key, span.start, span.start + span.length));
  // IPv6 addresses, as the WHATWG parser writes them (their own cases are in url-ipv6.test.ts).
  scanIpv6Hosts(text, (key, span) => visit(key, span.start, span.start + span.length));
  if (at || text.includes("#")) {
    each(text, patterns.handle, (match, start) => {
      visit(match, start, start + match.length);
      visit(match.slice(1), start, start + match.length);
    });
  }
  if (!/\p{Nd}/u.test(text)) return;
  // Phones in any script's digits and dashes, folded to ASCII in place (same offsets).
  each(asciiPhoneText(text), PHONE, (match, start) => {
    const digits = match.replace(/[^0-9]/g, "");
    visit(`+${digits}`, start, start + match.length);
    const prefix =
      match.startsWith("+") || match.startsWith("(+") ? undefined : /^(?:00|011)(?=[0-9]{7})/.exec(digits);
    if (prefix) visit(`+${digits.slice(prefix[0].length)}`, start, start + match.length);
    // The last nine digits, which a national and an international spelling share.
    if (digits.length >= 9) visit(`tel-tail:${digits.slice(-9)}`, start, start + match.length);
    // The numbers before or after a space that are phones themselves, beside another number of 6
    // digits or more (`12-34-56 12345678`).
    const words = match.split(" ");
    const runs: [string, number][] = [];
    const digitsOf = (part: string): number => part.replace(/[^0-9]/g, "").length;
    for (let k = 1; k < words.length; k += 1) {
      const before = words.slice(0, k).join(" ");
      if (digitsOf(words.slice(k).join(" ")) >= 6) runs.push([before, 0]);
    }
    for (let k = 1; k < words.length; k += 1) {
      const after = words.slice(k).join(" ");
      if (digitsOf(words.slice(0, k).join(" ")) >= 6) runs.push([after, match.length - after.length]);
    }
    // Each group of 7 digits or more written without separators, but the whole number and a part
    // before or after a space visited below (`1234 12345678`, `12-34-56-12345678`).
    const visited = new Set(runs.filter(([run]) => isPhoneShaped(run)).map(([run, at]) => `${at}:${run}`));
    for (const group of match.matchAll(/[0-9]{7,}/g)) {
      if (group[0].length === digits.length || visited.has(`${group.index}:${group[0]}`)) continue;
      const at = start + group.index;
      for (const key of phoneKeys(group[0])) visit(key, at, at + group[0].length);
    }
    for (const [run, at] of runs) {
      if (!isPhoneShaped(run)) continue;
      for (const key of phoneKeys(run)) visit(key, start + at, start + at + run.length);
    }
  });
  each(text, patterns.iban, (match, start) =>
    ibanKeys(match, (key) => visit(key, start, start + match.length)),
  );
  each(text, patterns.alnum, (match, start) => {
    if (/[0-9\p{N}]/u.test(match)) visit(match, start, start + match.length);
  });
}
