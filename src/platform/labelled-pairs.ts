/**
 * Labelled pairs: an object (or an XML element's attributes) that names a setting in one member and
 * holds its value in another, as HTTP, Kubernetes, CI, CloudFormation and .NET tools pass headers,
 * variables and parameters — `{"name": "DB_PASSWORD", "value": "…"}`, `{"headerName":
 * "Authorization", "headerValue": "…"}`, `{"ParameterKey": "DbPassword", "ParameterValue": "…"}`,
 * `<add key="ApiKey" value="…"/>`. The label is the value's name: the value is a secret when the
 * label names a secret (`isSecretSetting`). One rule for the audit log (objects, and in text the
 * objects and XML start tags `labelled-text.ts` reads: not YAML, so a Kubernetes manifest's `- name:
 * DB_PASSWORD` / `value: …` lines are not read as a pair) and `init` (JSON-valued arguments). Edge
 * (pure string work).
 *
 * Source: SPEC §3.5 ("values of arguments named like secrets … become `[redacted]`"), §5.2
 * ("secrets masked"): the label is the name.
 * @module
 */

import { cachedByName } from "./name-cache.ts";
import { isSecretName, nameWords } from "./secret-shapes.ts";

/** Member names that label a pair whole (`{"key": "X-Api-Key", "value": "…"}`). */
const LABEL_KEYS: ReadonlySet<string> = new Set([
  "name",
  "key",
  "header",
  "field",
  "variable",
  "label",
  "env",
]);

/** The last word of a member name that labels a pair (`headerName`, `ParameterKey`, `OptionName`). */
const LABEL_WORDS: ReadonlySet<string> = new Set(["name", "key", "label"]);

/** The last word of a member name that holds a labelled pair's value (`value`, `headerValue`). */
const VALUE_WORDS: ReadonlySet<string> = new Set(["value", "val"]);

/** A member name's part in a pair: label or value, and the words before its last (`header`). */
interface PairRole {
  readonly role: "label" | "value";
  readonly prefix: string;
}

/**
 * What part a member name plays in a pair, if any. A name ending in `key` labels only when it is
 * no key's name itself (`ParameterKey`, `headerKey`; not `apiKey`, `privateKey`, `accessKey`,
 * whose value is the key).
 */
const roleOf: (key: string) => PairRole | false = cachedByName((key): PairRole | false => {
  if (LABEL_KEYS.has(key.toLowerCase())) return { role: "label", prefix: "" };
  const words = nameWords(key);
  const last = words.at(-1) ?? "";
  const prefix = words.slice(0, -1).join(" ");
  if (VALUE_WORDS.has(last)) return { role: "value", prefix };
  if (!LABEL_WORDS.has(last)) return false;
  if (last === "key" && isSecretName(words.join(""))) return false;
  return { role: "label", prefix };
});

/** A labelled pair found among an object's member names. */
export interface LabelledPair {
  /** The member whose value names the setting (`headerName`). */
  readonly label: string;
  /** The member that holds the setting's value (`headerValue`). */
  readonly value: string;
  /** Other members that label the same value (`{"name": …, "key": …, "value": …}`). */
  readonly otherLabels: readonly string[];
}

/**
 * The labelled pair among an object's member names, if it is one: the first member named as a
 * value (`value`, `val`, `headerValue`, `ParameterValue`) and the first label that goes with it — a
 * member named `name`, `key`, `header`, `field`, `variable`, `label` or `env`, or one whose last
 * word is `name`, `key` or `label` (`headerName`, `ParameterKey`, `OptionName`; not a key's own
 * name such as `apiKey`), with the value's words before the last (`header`, `Parameter`) or with
 * none on either side. Which members hold strings is the caller's test.
 *
 * Source: SPEC §3.5, §5.2.
 * @param keys - The object's member names, in order (hostile: any strings).
 * @param isString - Whether a member holds a string (a label must).
 * @returns The pair, or undefined when the object is none.
 * @example labelledPair(["ParameterKey", "ParameterValue"], () => true)?.label // => "ParameterKey"
 */
export function labelledPair(
  keys: readonly string[],
  isString: (key: string) => boolean,
): LabelledPair | undefined {
  if (keys.length < 2) return undefined;
  const value = keys.find((key) => {
    const role = roleOf(key);
    return role !== false && role.role === "value";
  });
  if (value === undefined) return undefined;
  const valuePrefix = (roleOf(value) as PairRole).prefix;
  const labels = keys.filter((key) => {
    const role = roleOf(key);
    return (
      role !== false &&
      role.role === "label" &&
      (role.prefix === valuePrefix || role.prefix === "" || valuePrefix === "") &&
      isString(key)
    );
  });
  const [label, ...otherLabels] = labels;
  return label === undefined ? undefined : { label, value, otherLabels };
}

/**
 * Last words of a setting's name that make it a setting about a secret, not the secret: where it is
 * fetched or sent (`token_endpoint`, `auth_url`, `jwks_uri`), what kind it is (`key_type`) or what
 * keeps it (`credential.helper`).
 */
const ABOUT_A_SECRET: ReadonlySet<string> = new Set(["endpoint", "url", "uri", "type", "helper"]);

/**
 * Whether a setting's name (a labelled pair's label, a setting given as two words: `git config
 * credential.helper store`) names a secret: it is secret-like (`isSecretName`) and its last word
 * is none of {@link ABOUT_A_SECRET}. `isSecretName` itself is unchanged (a server's identity is
 * computed with it).
 *
 * Source: SPEC §3.5, §5.2.
 * @param name - The setting's name.
 * @returns True when a value under it is a secret.
 * @example isSecretSetting("DB_PASSWORD") // => true
 * @example isSecretSetting("token_endpoint") // => false
 */
export function isSecretSetting(name: string): boolean {
  return isSecretName(name) && !ABOUT_A_SECRET.has(nameWords(name).at(-1) ?? "");
}

/**
 * Whether a labelled pair's value is a secret: one of its labels' values names a secret
 * ({@link isSecretSetting}: `Authorization`, `DB_PASSWORD`, `X-Api-Key`, `/prod/db/password`; not
 * `token_endpoint`).
 *
 * Source: SPEC §3.5, §5.2.
 * @param pair - From {@link labelledPair}.
 * @param labelOf - The string a label member holds.
 * @returns True when the value member holds a secret.
 */
export function isSecretPair(pair: LabelledPair, labelOf: (key: string) => string): boolean {
  return [pair.label, ...pair.otherLabels].some((key) => isSecretSetting(labelOf(key)));
}
