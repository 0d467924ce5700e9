/**
 * The one rule for what is a secret by its name or its shape, shared by `bouncer init` (what it
 * masks in a diff and keeps out of a config) and the audit log (what it redacts, SPEC §3.5): names
 * such as `api_key`, `accessToken`, `PGPASSWORD`, `MYSQL_PWD`, and token shapes of well-known
 * services (GitHub, OpenAI/Anthropic, Slack, AWS, JWT, Google, Stripe, GitLab, npm, Hugging Face,
 * SendGrid, Google OAuth, Linear, Perplexity, webhook signing secrets, PyPI, Vault, DigitalOcean), HTTP `Bearer`/`Basic` credentials and PEM private keys.
 * Edge (pure string work; the only state is a bounded cache of names).
 *
 * Source: SPEC §3.5 ("arguments named like secrets (token, password, secret, key, authorization,
 * cookie)", "strings shaped like known tokens"), §5.2 ("secrets masked"), field case F11.
 * @module
 */

import { cachedByName } from "./name-cache.ts";

/**
 * Words that make a name secret-like when they are a word of it (SPEC §3.5: token, password,
 * secret, key, authorization, cookie), with their plurals and common spellings.
 */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  "token",
  "tokens",
  "password",
  "passwords",
  "passwd",
  "passphrase",
  "pwd",
  "secret",
  "secrets",
  "key",
  "keys",
  "apikey",
  "authorization",
  "auth",
  "oauth",
  "cookie",
  "cookies",
  "credential",
  "credentials",
  "pat",
  // A signed URL's signature is its credential (`X-Amz-Signature`, `X-Goog-Signature`, Azure's `sig`).
  "signature",
  "sig",
  // One-time and personal codes: what a second factor, a card or a wallet is opened with.
  "otp",
  "mfa",
  "totp",
  "hotp",
  "passcode",
  "passcodes",
  "pin",
  "pincode",
  "cvv",
  "cvc",
  "mnemonic",
]);

/**
 * Words that make a secret-like name a measure (`max_tokens`, `key_count`, `password_min_length`,
 * `token_ttl`), so that a short number under it is no secret. Not `number` or `num` alone: a
 * `pin_number` is the PIN.
 */
const MEASURE_WORDS: ReadonlySet<string> = new Set([
  "count",
  "limit",
  "max",
  "min",
  "total",
  "length",
  "len",
  "size",
  "budget",
  "used",
  "remaining",
  "ttl",
  "attempts",
  "retries",
  "expiry",
  "expires",
  "timeout",
  "lifetime",
]);

/** Words that, beside `token` or `key`, make a name a count of them (`num_tokens`, `prompt_tokens`). */
const TOKEN_COUNT_WORDS: ReadonlySet<string> = new Set(["num", "prompt", "completion", "input", "output"]);

/**
 * Endings that make a name written as one word secret-like (`accesstoken`, `clientsecret`,
 * `PGPASSWORD`, `setcookie`): no common word ends so (`tokenizer` does not).
 */
const SECRET_ENDING = /(?:tokens?|secrets?|passwords?|passwd|passphrase|cookies?|credentials?)$/;

/**
 * `key` at the end of a word is a secret only after one of these (`privatekey`, `secretkey`,
 * `apikey`; not `monkey`, `turkey`, `hockey`).
 */
const KEY_ENDING =
  /^(?:api|access|secret|private|client|auth|signing|encryption|master|session|ssh|hmac|license|app)keys?$/;

/**
 * Splits a name into lower-case words at anything but a letter or digit and at camelCase
 * (`X-Api-Key`, `apiKey`, `APIKey`, `api_key` → `api`, `key`).
 *
 * Source: SPEC §3.5 (names like token, password, secret, key…: judged word by word).
 * @param name - A name (hostile: any string).
 * @returns Its words, lower-cased.
 */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** Whether one word of a name makes it secret-like. */
function isSecretWord(word: string): boolean {
  return SECRET_WORDS.has(word) || SECRET_ENDING.test(word) || KEY_ENDING.test(word);
}

/**
 * Whether a name's words make it secret-like: one is a secret word, or the last is `pass` (`pass`,
 * `DB_PASS`, `userPass`; not `--pass-environment` or `passThrough`, where it is a verb).
 */
function isSecretWords(words: readonly string[]): boolean {
  return isRecipeOneSecret(words) || LAST_WORD_SECRETS.has(words.at(-1) ?? "") || isSecretPair(words);
}

/**
 * The rule of server identity recipe 1 (`src/proxy/server-identity.ts`): a secret word anywhere, or
 * `pass` last. The identity hash names a server's pin file, so a name this rule starts to call
 * secret would give that server new, empty pins (its tools pinned again on first sight): words
 * are added to {@link isSecretWords}' other rules instead, and `tests/proxy/server-identity.test.ts`
 * holds the hashes this rule makes.
 */
function isRecipeOneSecret(words: readonly string[]): boolean {
  return words.at(-1) === "pass" || words.some(isSecretWord);
}

/**
 * Words that name a secret as a name's last word only: `--bearer X`, `SERVICE_JWT=…`; not
 * `jwt_issuer` or `bearer_auth_header_name`, which name where the credential comes from.
 */
const LAST_WORD_SECRETS: ReadonlySet<string> = new Set(["bearer", "jwt"]);

/**
 * Two words that name a secret together though neither does alone: account recovery codes, a
 * wallet's seed phrase, a one-time verification code, a card's security code.
 */
const SECRET_PAIRS: ReadonlySet<string> = new Set([
  "recovery code",
  "recovery codes",
  "backup code",
  "backup codes",
  "verification code",
  "verification codes",
  "security code",
  "seed phrase",
  "seed words",
  "recovery phrase",
  "secret phrase",
]);

/**
 * Whether a name's last two words name a secret together ({@link SECRET_PAIRS}): `recovery_code`,
 * `user_seed_phrase`; not `security_code_scanning` or `backup_code_dir`.
 */
function isSecretPair(words: readonly string[]): boolean {
  return words.length >= 2 && SECRET_PAIRS.has(`${words.at(-2)} ${words.at(-1)}`);
}

/**
 * What every secret-like name ({@link isSecretName}) holds in some case — one of its secret words,
 * `pass`, `key`, a last-word secret (`jwt`, `bearer`) or the last word of a two-word one (`code`,
 * `phrase`, `words`) — or a `%` or `\u` (a percent- or JSON-escaped name): a text with none names no
 * secret. A quick test before a text is searched for names; built from the rule's own words, so
 * the two cannot drift apart.
 *
 * Source: SPEC §3.5.
 */
export const SECRET_NAME_PART: RegExp = new RegExp(
  [
    ...SECRET_WORDS,
    ...LAST_WORD_SECRETS,
    // A pair's first word: as necessary as its last (both must be there), and rarer in text than
    // `code`, which nearly every text holds (`encode`, `postcode`), so the quick test still filters.
    ...new Set([...SECRET_PAIRS].map((pair) => pair.slice(0, pair.indexOf(" ")))),
    "pass",
    "key",
    "%",
    "\\\\u",
  ]
    .sort((a, b) => b.length - a.length)
    .join("|"),
  "i",
);

/**
 * {@link SECRET_NAME_PART} as server identity recipe 1 first had it (without the last-word and
 * two-word secrets, or escaped names): the quick test of the redaction the identity hash removes
 * secrets by (`src/proxy/server-identity.ts`). A text it passed went unredacted by name
 * (`--jwt=…`), and so made a server's identity: judged by the later test, that identity, and with
 * it the pin file's name, would change. Frozen; a new recipe needs a new identity version.
 *
 * Source: SPEC §2.2 ("Server identity"); `tests/proxy/server-identity.test.ts` (recipe 1's hashes).
 */
export const IDENTITY_NAME_PART: RegExp =
  /token|pass|pwd|secret|key|auth|cookie|credential|pat|sig|otp|mfa|pin|cvv|cvc|mnemonic|%/i;

/**
 * Whether a name (an argument or object key, an env variable, a flag without dashes, a header) is
 * secret-like: one of its words is a secret word such as `token`, `password`, `pwd`, `secret`,
 * `key`, `authorization`, `cookie`, `credential` or `pat`, or a word ends in one written together
 * (`accesstoken`, `clientsecret`, `dbpassword`, `setcookie`, `privatekey`), or its last two words
 * name one together (`recovery_code`, `seed_phrase`, `verification_code`), or its last word is
 * `pass`, `bearer` or `jwt` (`DB_PASS`, `SERVICE_JWT`). Not `keyword`, `monkey`, `tokenizer`, `bypass`, `pass-environment`.
 *
 * Source: SPEC §3.5, §5.2; field case F11.
 * @param name - The name.
 * @returns True when a value under this name is a secret.
 * @example isSecretName("PGPASSWORD") // => true
 */
export const isSecretName: (name: string) => boolean = cachedByName((name) => isSecretWords(nameWords(name)));

/**
 * Whether a flag's name is secret-like under server identity recipe 1: a secret word anywhere in it
 * or `pass` last, as {@link isSecretName} but without its later rules (last-word and two-word
 * secrets), so that the identity of a server, and with it its pin file, stays what it was.
 *
 * Source: SPEC §2.2 ("Server identity"); review of the identity hash (a secret word added for the
 * audit log renamed the pin file of servers whose flags hold it).
 * @param name - A flag's name, without dashes.
 * @returns True when its value is left out of the identity.
 */
export const isIdentitySecretName: (name: string) => boolean = cachedByName((name) =>
  isRecipeOneSecret(nameWords(name)),
);

/**
 * Token shapes that are secrets wherever they occur in a string. Each pattern is global and finds
 * the token alone, so the text around it stays readable. Shapes that a prefix in capitals marks
 * (AWS, JWT, Google, PEM) are found in lower case too: an excerpt of output is canonical text,
 * lower-cased (`akiaiosfodnn7example` is an AWS key id again in capitals).
 *
 * Source: SPEC §3.5 ("strings shaped like known tokens"), §5.2.
 */
export const TOKEN_SHAPES: readonly RegExp[] = [
  /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub classic and OAuth tokens
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}/g, // GitHub fine-grained tokens
  // OpenAI, Anthropic (sk-ant-): with a digit, or without hyphens (not `sk-learn-and-friends-...`).
  /(?<![A-Za-z0-9_-])sk-(?:(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}|[A-Za-z0-9_]{20,})/g,
  /(?<![A-Za-z0-9_-])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}/g, // Slack
  /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Z0-9])/g, // AWS
  // AWS in lower case, as an excerpt of output (canonical text) holds it: with a digit, unlike a word.
  /(?<![a-z0-9])(?:akia|asia|abia|acca|agpa|aida|aroa|aipa|anpa|anva|apka)(?=[a-z]{0,15}[0-9])[a-z0-9]{16}(?![a-z0-9])/gi,
  // JWT (a JSON payload: `eyJ`), and any three segments after a JSON header (JWE, other payloads).
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.(?:eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*|[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/gi,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, // HTTP bearer credentials
  // HTTP basic credentials, the scheme in any case (not prose: a capital, digit, `+`, `/` or `=`
  // after the first character), and in a lower-cased excerpt after an `authorization` header name.
  /\b[Bb][Aa][Ss][Ii][Cc]\s+(?=[A-Za-z0-9+/][A-Za-z0-9+/]*[A-Z0-9+/=])[A-Za-z0-9+/]{8,}={0,2}/g,
  /(?<=\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?)basic\s+[a-z0-9+/]{8,}={0,2}/gi,
  /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/gi, // Google API keys
  /(?<![A-Za-z0-9_])(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}/g, // Stripe
  // GitLab: personal, runner, deploy, pipeline trigger, feed, incoming mail, OAuth and other tokens.
  /(?<![A-Za-z0-9_-])gl(?:pat|rt|dt|ptt|ft|imt|soat|oas|cbt|agent|ffct)-[0-9A-Za-z_-]{20,}/g,
  /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/=]{20,}/g, // webhook signing secrets (Stripe, Svix)
  /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{20,}/gi, // Google OAuth client secrets
  /(?<![A-Za-z0-9_-])pypi-AgE(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{50,}/gi, // PyPI upload tokens
  /(?<![A-Za-z0-9_.-])hv[sbr]\.[A-Za-z0-9_-]{20,}/g, // HashiCorp Vault service, batch, recovery tokens
  /(?<![A-Za-z0-9_])do[por]_v1_[a-f0-9]{64}/gi, // DigitalOcean personal, OAuth and refresh tokens
  /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}/g, // npm
  /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/g, // Hugging Face
  /(?<![A-Za-z0-9_])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/gi, // SendGrid
  /(?<![A-Za-z0-9_])ya29\.[A-Za-z0-9_-]{20,}/g, // Google OAuth access tokens
  /(?<![A-Za-z0-9_])lin_api_[A-Za-z0-9]{20,}/g, // Linear
  /(?<![A-Za-z0-9_-])pplx-[A-Za-z0-9]{20,}/g, // Perplexity
  // Webhook URLs, whose path is the credential (the host stays in view): Slack, Discord.
  /(?<=\bhooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{20,}/gi,
  /(?<=\bdiscord(?:app)?\.com\/api\/webhooks\/\d{5,}\/)[A-Za-z0-9_-]{20,}/gi,
  /-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|$)/gi, // PEM keys
];

/**
 * A password in a URL's user info (`https://bob:PASSWORD@host`), the password alone — up to the
 * last `@` before the host, as the WHATWG parser reads it (`bob:p@ss@host`: `p@ss`). Not in
 * {@link TOKEN_SHAPES}: `init` judges it apart, a placeholder password (`${DB_PASS}`) being no secret.
 *
 * Source: SPEC §3.5.
 */
export const URL_PASSWORD =
  /(?<=\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/?#]+?(?=@[^\s/?#@]*(?:[/?#\s"'<>]|$))/gi;

/**
 * The service prefixes of {@link TOKEN_SHAPES} (a regular expression source, to be used
 * case-insensitively): what a token starts with, which names the service and nothing secret.
 *
 * Source: SPEC §3.5, §5.2.
 */
export const TOKEN_PREFIX_SOURCE =
  "gh[pousr]_|github_pat_|sk-|xox[abposre]-|xapp-|a(?:kia|sia|bia|cca|gpa|ida|roa|ipa|npa|nva|pka)|eyj|aiza|[srp]k_(?:live|test)_|gl(?:pat|rt|dt|ptt|ft|imt|soat|oas|cbt|agent|ffct)-|whsec_|gocspx-|pypi-age|hv[sbr]\\.|do[por]_v1_|npm_|hf_|sg\\.|ya29\\.|lin_api_|pplx-";

/**
 * Searches for any of some patterns at once: the alternation of the case-sensitive ones and of the
 * case-insensitive ones (a string neither finds matches none of the patterns).
 *
 * Source: SPEC §3.5 (a quick test before each pattern's replacement).
 * @param patterns - Global patterns, with or without the `i` flag.
 * @returns Two non-global searches (case-sensitive, case-insensitive).
 */
export function anyOf(patterns: readonly RegExp[]): readonly RegExp[] {
  return [false, true].map(
    (caseless) =>
      new RegExp(
        patterns
          .filter((pattern) => pattern.flags.includes("i") === caseless)
          .map((pattern) => `(?:${pattern.source})`)
          .join("|") || "(?!)",
        caseless ? "i" : "",
      ),
  );
}

/** {@link TOKEN_SHAPES} searched at once. */
const ANY_TOKEN = anyOf(TOKEN_SHAPES);

/**
 * Whether a string holds a token shape ({@link TOKEN_SHAPES}).
 *
 * Source: SPEC §3.5, §5.2; field case F11.
 * @param text - Any string.
 * @returns True when a token shape occurs in it.
 */
export function hasTokenShape(text: string): boolean {
  return ANY_TOKEN.some((search) => search.test(text));
}

/**
 * Whether a secret-like name is a measure, so that a short number under it is a count, a size or a
 * time, not a secret: one of its words is a measure word (`max_tokens`, `key_count`,
 * `password_min_length`, `token_ttl`), or it is a count of tokens or keys (`tokens`,
 * `prompt_tokens`, `num_keys`). A number under `password`, `pin`, `pin_number`, `otp` or `api_key` is
 * the secret itself (`"password": 123456`).
 *
 * Source: SPEC §3.5 (values of arguments named like secrets are redacted).
 * @param name - A name (hostile: any string).
 * @returns True for a measure's name.
 * @example isCountName("max_tokens") // => true
 * @example isCountName("pin") // => false
 */
export const isCountName: (name: string) => boolean = cachedByName((name) => {
  const words = nameWords(name);
  if (!words.some(isSecretWord)) return false;
  if (words.some((word) => MEASURE_WORDS.has(word))) return true;
  const counted = words.filter(isSecretWord).every((word) => /^(?:tokens?|keys?)$/.test(word));
  return counted && (words.includes("tokens") || words.some((word) => TOKEN_COUNT_WORDS.has(word)));
});
