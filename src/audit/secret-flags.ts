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

import { isSecretSetting } from "../platform/labelled-pairs.ts";
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
 * Where a command's program is named: at the start of the text, or of a command in it (after a line
 * break, `|`, `;`, `&`, `(`, a quote or a backtick: `sh -c "mysql …"`, `cd /app && mysql …`, or
 * after `--`: `kubectl exec db -- mysql …`), after `docker exec` and its words (`docker exec -it db
 * mysql …`), and after up to four launchers and assignments (`sudo -E mysql …`, `env X=1 mysql
 * …`, `MYSQL_HOST=db mysql …`, `sudo -u root mysql …`); then the program's folder, if written (`/usr/bin/mysql`). Not a
 * word elsewhere: `find . -name mysql -print` runs `find`, whose `-print` is no password.
 */
const COMMAND_AT = String.raw`(?:^|[\n|;&(\x60"']|\s--\s)\s*(?:(?:docker|podman|nerdctl|kubectl|oc)(?:\s+compose)?\s+exec(?:\s+[^\s"'|;&]{1,256}){0,8}?\s+)?(?:(?:sudo|doas|env|exec|time|nohup|nice|command|npx|bunx|[A-Za-z_]\w{0,63}=[^\s"'|;&]{0,256})(?:\s+-[^\s"'|;&]{1,64}(?:\s+[^\s"'|;&-][^\s"'|;&]{0,63})?){0,4}\s+){0,4}(?:[^\s"'|;&]{0,256}[\\/])?`;

/**
 * A command's program and the rest of that command before a flag: {@link COMMAND_AT}, one of the
 * names (`.exe` allowed), then {@link SAME_COMMAND}.
 * @param names - The program names, as a pattern (`mysql|mariadb`).
 * @returns The pattern's text.
 */
function command(names: string): string {
  return String.raw`${COMMAND_AT}(?:${names})(?:\.exe)?(?=\s)${SAME_COMMAND}`;
}

/**
 * Each rule finds what stays (group `kept`) and the secret after it (group `secret`); a rule with a
 * `name` group inside `kept` counts only where that name is a secret's (`aws configure set
 * aws_secret_access_key …`; not `git config credential.helper store`: `isSecretSetting`). Only the secret is replaced; the command around it stays readable. A
 * short flag's rule holds for its program only ({@link command}): `-p` is mysql's password and
 * `find`'s `-print`, `-u user:password` curl's credentials and `docker run`'s `-u 1000:1000`.
 */
const FLAG_RULES: readonly RegExp[] = [
  new RegExp(
    String.raw`(?<kept>${command("mysql|mysqldump|mysqladmin|mariadb|mariadb-dump")}\s-p["']?)(?<secret>${VALUE})`,
    "g",
  ),
  new RegExp(String.raw`(?<kept>${command("sshpass")}\s-p\s*["']?)(?<secret>${VALUE})`, "g"),
  new RegExp(
    String.raw`(?<kept>${command("docker|podman|nerdctl|az")}\s+login\b${SAME_COMMAND}\s-p\s+["']?)(?<secret>${VALUE})`,
    "g",
  ),
  new RegExp(String.raw`(?<kept>${command("redis-cli")}\s-a\s+["']?)(?<secret>${VALUE})`, "g"),
  new RegExp(String.raw`(?<kept>${command("zip")}\s-P\s+["']?)(?<secret>${VALUE})`, "g"),
  new RegExp(String.raw`(?<kept>${command("7za?|7zz")}\s-p["']?)(?<secret>${VALUE})`, "g"),
  // SQL Server's tools: `sqlcmd -S db -U sa -P …` (and glued, `-P…`).
  new RegExp(String.raw`(?<kept>${command("sqlcmd|bcp|osql|isql")}\s-P\s*["']?)(?<secret>${VALUE})`, "g"),
  // `openssl enc -k …`: the password of an encryption.
  new RegExp(String.raw`(?<kept>${command("openssl")}\s-k\s+["']?)(?<secret>${VALUE})`, "g"),
  new RegExp(String.raw`(?<kept>\s-pass(?:in|out)?\s+pass:["']?)(?<secret>${VALUE})`, "g"),
  // HTTP clients' `user:password`: curl's `-u`/`--user` (and its proxy's `-U`/`--proxy-user`), HTTPie's and xh's `-a`/`--auth`.
  new RegExp(
    String.raw`(?<kept>${command("curl")}\s(?:-u|-U|--user|--proxy-user)(?:\s+|=)["']?[^\s:"']{0,256}:)(?<secret>${VALUE})`,
    "g",
  ),
  new RegExp(
    String.raw`(?<kept>${command("http|https|xh|xhs")}\s(?:-a|--auth)(?:\s+|=)["']?[^\s:"']{0,256}:)(?<secret>${VALUE})`,
    "g",
  ),
  new RegExp(
    String.raw`(?<kept>\bmachine\s+\S{1,256}(?:\s+login\s+\S{1,256})?\s+password\s+["']?)(?<secret>${VALUE})`,
    "g",
  ),
  // A setting given as two words: `aws configure set aws_secret_access_key …`, `npm config set
  // //registry.npmjs.org/:_authToken …`, `git config --global x.token …`, `yarn config set npmAuthToken …`.
  new RegExp(
    String.raw`(?<kept>\b(?:config|configure)\s+set\s+(?:--?[A-Za-z][\w-]{0,31}(?:\s+[^\s-]\S{0,127})?\s+){0,4}["']?(?<name>[^\s"'=]{1,128})["']?\s+["']?)(?<secret>${VALUE})`,
    "g",
  ),
  new RegExp(
    String.raw`(?<kept>(?:^|[\s;&|(])git\s+config\s+(?:--?[A-Za-z][\w-]{0,31}\s+){0,4}(?<name>[^\s"'=-][^\s"'=]{0,127})\s+["']?)(?<secret>${VALUE})`,
    "g",
  ),
  // Commands whose value is a secret whatever it is called: `gh secret set X --body …`, `dotnet
  // user-secrets set X …`.
  new RegExp(
    String.raw`(?<kept>\bgh\s+secret\s+set\b${SAME_COMMAND}\s(?:--body|-b)(?:\s+|=)["']?)(?<secret>${VALUE})`,
    "g",
  ),
  new RegExp(
    String.raw`(?<kept>\buser-secrets\s+set\s+(?:--?[A-Za-z][\w-]{0,31}\s+\S{1,256}\s+){0,4}["']?[^\s"']{1,128}["']?\s+["']?)(?<secret>${VALUE})`,
    "g",
  ),
  // A secret echoed into a command that reads it from its input.
  /(?<kept>\becho\s+["']?)(?<secret>[^\s"'|]+)(?=["']?\s*\|\s*(?:gh\s+auth\s+login\b|[^\n|;&]{0,256}?\s--(?:password-stdin|with-token|token-stdin)\b))/g,
];

/** A word one of {@link FLAG_RULES} needs: a text with none holds nothing for them. */
const ANY_RULE =
  /mysql|mariadb|sshpass|login|redis-cli|zip|7z|-pass|curl|https?(?:\.exe)?\s|xh|machine|sqlcmd|bcp|osql|isql|openssl|config|secret|echo/;

/** An XML element with text only (`<password>…</password>`), its name in group 1. */
const ELEMENT = /<([A-Za-z_][\w.:-]{0,63})>([^<]{1,4096})<\/\1>/g;

/** A flag's value that is no secret: a placeholder (`$DB_PASS`, `${X}`, `%X%`) or a mask. */
const PLACEHOLDER = /^(?:\$\{[^}]*\}|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|\*+|<[^<>]*>)$/;

/** Where a secret of the module doc stands in a text. */
export interface FlagSecret {
  /** Offset of its first character. */
  readonly start: number;
  /** Offset after its last character. */
  readonly end: number;
}

/**
 * Finds the secrets of the module doc in a text: each password after its flag, each value of a
 * secret-named setting given as two words, each secret-named XML element's text. A placeholder
 * (`-p$DB_PASS`) is none.
 *
 * Source: SPEC §3.5, §5.2.
 * @param text - Any string.
 * @returns Where they stand, in order, none overlapping (empty when the text holds none).
 * @example flagSecrets("mysql -phunter2") // => [{ start: 8, end: 15 }]
 */
export function flagSecrets(text: string): FlagSecret[] {
  const found: FlagSecret[] = [];
  if (ANY_RULE.test(text)) {
    for (const rule of FLAG_RULES) {
      rule.lastIndex = 0;
      for (const match of text.matchAll(rule)) {
        const { kept = "", secret = "", name } = match.groups ?? {};
        if (PLACEHOLDER.test(secret) || (name !== undefined && !isSecretSetting(name))) continue;
        const start = match.index + kept.length;
        found.push({ start, end: start + secret.length });
      }
    }
  }
  if (text.includes("</")) {
    for (const match of text.matchAll(ELEMENT)) {
      const [whole, name = "", inner = ""] = match;
      if (!isSecretName(name) || inner.trim() === "" || PLACEHOLDER.test(inner.trim())) continue;
      const start = match.index + whole.indexOf(">") + 1;
      found.push({ start, end: start + inner.length });
    }
  }
  return merged(found);
}

/**
 * Spans sorted and merged where they overlap or touch.
 * @param spans - Any spans.
 * @returns The merged spans, in order.
 */
function merged(spans: FlagSecret[]): FlagSecret[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a.start - b.start);
  const out: FlagSecret[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last !== undefined && span.start <= last.end)
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, span.end) };
    else out.push(span);
  }
  return out;
}

/**
 * Hides the secrets of the module doc in a text ({@link flagSecrets}): each password after its
 * flag, each secret-named setting's value, each secret-named XML element's text. A placeholder
 * (`-p$DB_PASS`) stays.
 *
 * Source: SPEC §3.5.
 * @param text - Any string.
 * @returns The text with those values replaced by `"[redacted]"`.
 * @example redactFlagSecrets("mysql -uroot -phunter2 db") // => "mysql -uroot -p[redacted] db"
 */
export function redactFlagSecrets(text: string): string {
  const spans = flagSecrets(text);
  return spans.length === 0 ? text : hideSpans(text, spans);
}

/**
 * The secrets of the module doc in an argument list (an argv: `["mysql", "-uroot", "-pS3cret"]`,
 * `["curl", "-u", "bob:S3cret"]`), found in the command line the list makes, its elements joined by
 * spaces — what `"mysql -uroot -pS3cret"` written as one string hides. A list with an element that
 * is no string, or whose first element is no program's name (`PROGRAM`), is no argv; a short
 * flag's password counts after its own program only (`["find", ".", "-name", "mysql", "-print"]`
 * holds none).
 *
 * Source: SPEC §3.5; review s18 finding A2 (an argv list's secrets were logged in clear).
 * @param list - A list of the value redacted.
 * @param program - The program a sibling member names (`{"command": "curl", "args": ["-u", …]}`):
 *   the list is judged as that program's arguments (`curl https://x -u bob:…`).
 * @returns From the index of each element holding one to where each stands in it (empty when none).
 * @example argvFlagSecrets(["mysql", "-pS3cret"]).get(1) // => [{ start: 2, end: 8 }]
 * @example argvFlagSecrets(["-u", "bob:S3cret"], "curl").get(1) // => [{ start: 4, end: 10 }]
 */
export function argvFlagSecrets(
  list: readonly unknown[],
  program?: string,
): ReadonlyMap<number, readonly FlagSecret[]> {
  if (program !== undefined && PROGRAM.test(program) && list.length > 0) {
    // The list is the arguments of a program named beside it: judged as that command line.
    const found = new Map<number, readonly FlagSecret[]>();
    for (const [index, spans] of argvFlagSecrets([program, ...list]))
      if (index > 0) found.set(index - 1, spans);
    return found.size === 0 ? NO_SECRETS : found;
  }
  if (list.length < 2 || list.length > MAX_ARGV || !list.every((item) => typeof item === "string"))
    return NO_SECRETS;
  if (!PROGRAM.test(list[0] as string)) return NO_SECRETS;
  const text = (list as readonly string[]).join(" ");
  const spans = flagSecrets(text);
  if (spans.length === 0) return NO_SECRETS;
  const found = new Map<number, FlagSecret[]>();
  let index = 0;
  let offset = 0; // where element `index` starts in `text`
  for (const span of spans) {
    for (let at = span.start; at < span.end; ) {
      while (offset + (list[index] as string).length < at) offset += (list[index++] as string).length + 1;
      const element = list[index] as string;
      const start = Math.max(at, offset) - offset;
      const end = Math.min(span.end - offset, element.length);
      if (end > start) found.set(index, [...(found.get(index) ?? []), { start, end }]);
      at = offset + element.length + 1;
    }
  }
  return found;
}

/**
 * What an argv's first element is: a program's name or path (no white space, not a flag). A list
 * that starts otherwise (`["-v", …]`, `["a tag", …]`) is no command line.
 */
const PROGRAM = /^[^\s-][^\s]{0,4095}$/;

/**
 * The program an object's sibling member names for its argument list (`command`, `cmd`,
 * `program`, `executable`), when it is a string.
 * @param object - An object of the value redacted.
 * @returns The program, or undefined.
 */
export function siblingProgram(object: object): string | undefined {
  for (const key of PROGRAM_KEYS) {
    const value: unknown = Object.hasOwn(object, key) ? Reflect.get(object, key) : undefined;
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** Members naming the program whose arguments a sibling list holds. */
const PROGRAM_KEYS: readonly string[] = ["command", "cmd", "program", "executable"];

/** Members holding a program's argument list, beside one of {@link PROGRAM_KEYS}. */
export const ARGS_KEYS: ReadonlySet<string> = new Set(["args", "arguments", "argv"]);

/** Elements of an argument list looked at as one command line at most. */
const MAX_ARGV = 4096;

/** No secrets found in a list (shared: most lists have none). */
const NO_SECRETS: ReadonlyMap<number, readonly FlagSecret[]> = new Map();

/**
 * A text with some spans of it replaced by `"[redacted]"`.
 *
 * Source: SPEC §3.5.
 * @param text - Any string.
 * @param spans - Spans of it, in order, not overlapping ({@link flagSecrets}, {@link argvFlagSecrets}).
 * @returns The text with each span hidden.
 */
export function hideSpans(text: string, spans: readonly FlagSecret[]): string {
  let out = "";
  let from = 0;
  for (const { start, end } of spans) {
    out += `${text.slice(from, start)}${HIDDEN}`;
    from = end;
  }
  return out + text.slice(from);
}
