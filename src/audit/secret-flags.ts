/**
 * Secrets a command line or a credentials file gives without a secret-like name before them: a
 * short flag's password (`mysql -phunter2`, `sshpass -p …`, `docker login -p …`, `redis-cli -a …`,
 * `zip -P …`, `7z -p…`, `openssl … -pass pass:…`), the password of `curl -u user:password`, a
 * `.netrc` line (`machine h login u password p`), an XML element named like a secret
 * (`<password>…</password>`), and a token piped into `gh auth login --with-token`. A tool takes its
 * shell command as one string, so these reach the audit log as arguments. Edge (pure string work).
 *
 * Source: SPEC §3.5 ("values of arguments named like secrets (…password…) … become
 * `[redacted]`": the flag or element names the value a password).
 * @module
 */

import { isSecretName } from "../platform/secret-shapes.ts";

/** What a hidden value becomes (the text of `REDACTED` in `redact.ts`). */
const HIDDEN = "[redacted]";

/** A value: up to white space or a quote. */
const VALUE = String.raw`[^\s"']{1,4096}`;
/**
 * The rest of one command before a flag: no line break, pipe, `;` or `&`, and at most 256
 * characters (each match is bounded, so a long text of repeated command names stays linear).
 */
const SAME_COMMAND = String.raw`[^\n|;&]{0,256}?`;

/**
 * Each rule finds what stays (group 1) and the secret after it (group 2). Only the secret is
 * replaced; the command around it stays readable.
 */
const FLAG_RULES: readonly RegExp[] = [
  new RegExp(
    String.raw`(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b${SAME_COMMAND}\s-p["']?)(${VALUE})`,
    "g",
  ),
  new RegExp(String.raw`(\bsshpass\b${SAME_COMMAND}\s-p\s*["']?)(${VALUE})`, "g"),
  new RegExp(String.raw`(\b(?:docker|podman|nerdctl)\s+login\b${SAME_COMMAND}\s-p\s+["']?)(${VALUE})`, "g"),
  new RegExp(String.raw`(\bredis-cli\b${SAME_COMMAND}\s-a\s+["']?)(${VALUE})`, "g"),
  new RegExp(String.raw`(\bzip\b${SAME_COMMAND}\s-P\s+["']?)(${VALUE})`, "g"),
  new RegExp(String.raw`(\b7za?\b${SAME_COMMAND}\s-p["']?)(${VALUE})`, "g"),
  new RegExp(String.raw`(\s-pass(?:in|out)?\s+pass:["']?)(${VALUE})`, "g"),
  new RegExp(
    String.raw`((?:^|\s)(?:-u|-U|--user|--proxy-user)(?:\s+|=)["']?[^\s:"']{0,256}:)(${VALUE})`,
    "g",
  ),
  new RegExp(String.raw`(\bmachine\s+\S{1,256}(?:\s+login\s+\S{1,256})?\s+password\s+["']?)(${VALUE})`, "g"),
  /(\becho\s+["']?)([^\s"'|]+)(?=["']?\s*\|\s*gh\s+auth\s+login\b)/g,
];

/** A word one of {@link FLAG_RULES} needs: a text with none holds nothing for them. */
const ANY_RULE = /mysql|mariadb|sshpass|login|redis-cli|zip|7z|-pass|-u|-U|--user|--proxy-user|machine/;

/** An XML element with text only (`<password>…</password>`), its name in group 1. */
const ELEMENT = /<([A-Za-z_][\w.:-]{0,63})>([^<]{1,4096})<\/\1>/g;

/** A flag's value that is no secret: a placeholder (`$DB_PASS`, `${X}`, `%X%`) or a mask. */
const PLACEHOLDER = /^(?:\$\{[^}]*\}|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|\*+|<[^<>]*>)$/;

/**
 * Hides the secrets of the module doc in a text: each password after its flag, each secret-named
 * XML element's text. A placeholder (`-p$DB_PASS`) stays.
 *
 * Source: SPEC §3.5.
 * @param text - Any string.
 * @returns The text with those values replaced by `"[redacted]"`.
 * @example redactFlagSecrets("mysql -uroot -phunter2 db") // => "mysql -uroot -p[redacted] db"
 */
export function redactFlagSecrets(text: string): string {
  let out = text;
  if (ANY_RULE.test(out)) {
    for (const rule of FLAG_RULES) {
      rule.lastIndex = 0;
      out = out.replace(rule, (whole: string, kept: string, secret: string) =>
        PLACEHOLDER.test(secret) ? whole : `${kept}${HIDDEN}`,
      );
    }
  }
  if (out.includes("</")) {
    ELEMENT.lastIndex = 0;
    out = out.replace(ELEMENT, (whole: string, name: string, inner: string) =>
      isSecretName(name) && inner.trim() !== "" && !PLACEHOLDER.test(inner.trim())
        ? `<${name}>${HIDDEN}</${name}>`
        : whole,
    );
  }
  return out;
}
