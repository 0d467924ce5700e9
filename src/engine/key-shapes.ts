/**
 * Name tests on argument names and output keys: sink-shaped argument names (SPEC §4.4) and
 * destination-shaped output keys (SPEC §2.5 "Free text versus field values"). Pure.
 * @module
 */

/** §4.4 vocabulary: the last word, or the last two words, of a sink-shaped argument name. */
const SINK_WORDS: ReadonlySet<string> = new Set([
  "to",
  "cc",
  "bcc",
  "recipient",
  "recipients",
  "email",
  "emails",
  "email address",
  "email addresses",
  "address",
  "addresses",
  "url",
  "urls",
  "uri",
  "uris",
  "endpoint",
  "endpoints",
  "webhook",
  "webhooks",
  "channel",
  "channels",
  "channel id",
  "channel ids",
  "share with",
  "phone",
  "phones",
  "phone number",
  "phone numbers",
  "account number",
  "account numbers",
  "iban",
  "ibans",
  "destination",
  "destinations",
  "participant",
  "participants",
  "attendee",
  "attendees",
  "invitee",
  "invitees",
  "member",
  "members",
  "user email",
  "user emails",
]);

/** Verbs that make `target` sink-shaped when they are the tool name's first word (§4.4). */
const SENDING_VERBS: ReadonlySet<string> = new Set(["send", "post", "share", "upload", "publish", "invite"]);

/** §2.5 vocabulary: the last or second-to-last word of a destination-shaped key. */
const DESTINATION_KEY_WORDS: ReadonlySet<string> = new Set([
  "to",
  "cc",
  "bcc",
  "from",
  "sender",
  "recipient",
  "recipients",
  "reply",
  "email",
  "emails",
  "address",
  "addresses",
  "participants",
  "attendees",
  "invitees",
  "member",
  "members",
  "user",
  "users",
  "organizer",
  "owner",
  "shared",
  "with",
  "author",
  "channel",
  "channels",
  "iban",
  "account",
  "url",
  "urls",
  "link",
  "links",
  "website",
  "contact",
  "contacts",
  "phone",
  "handle",
  "username",
  "name",
  "names",
  "payee",
  "creditor",
  "destination",
  "target",
]);

/** A name that is one lower-case word: ASCII lower-case letters and digits. */
const ONE_WORD = /^[a-z0-9]+$/;

/**
 * Splits a name into lower-case words on `_`, `-`, whitespace and camelCase boundaries
 * (`replyTo` → `reply to`, `userIDList` → `user id list`).
 *
 * Source: SPEC §2.5 (destination-shaped keys), §4.4 (sink-shaped names).
 * @param name - An argument name or an output key.
 * @returns The words, lower-cased, without empty ones.
 * @example splitWords("shareWith_emailAddress") // ["share", "with", "email", "address"]
 */
export function splitWords(name: string): string[] {
  // A name of lower-case letters and digits only is one word (nothing below would split or change it).
  if (ONE_WORD.test(name)) return [name];
  return name
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[\s_-]+/u)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
}

/**
 * Whether an argument name is sink-shaped: its last word, or its last two words, are in the §4.4
 * vocabulary (plurals included), read through a trailing `list` or `array` (`cc_list`); `target`
 * only when the tool's first word is a sending verb. `issue_number` and `page_number` are not
 * sink-shaped.
 *
 * Source: SPEC §4.4 "Sink-shaped argument names"; review of the sink gate (`send_email(to=…,
 * cc_list=[attacker])` left `cc_list` ungated).
 * @param name - The argument name.
 * @param toolName - The tool's name (for the `target` rule).
 * @returns True when the name is sink-shaped.
 * @example isSinkShapedName("recipient_email", "send_email") // true
 */
export function isSinkShapedName(name: string, toolName: string): boolean {
  if (sinkShapedWords(splitWords(name), toolName)) return true;
  // Header names are case-insensitive, so `tO`, `BcC`, `uRL` are no camelCase words; a key written
  // as a path (`bcc[]`, `to[0]`, `message.to`) reaches a form encoder or a deep setter as one.
  const plain = name
    .replace(/(?:\[[^\]]*\])+$/u, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
  return sinkShapedWords(plain, toolName);
}

/**
 * Words naming a collection, read through at the end of an argument name: `cc_list`,
 * `recipient_list` and `attendeesArray` are the list of what the word before names (a list inherits
 * its key, as in SPEC §2.5). Not after `to`: `convert_to_array`, `add_to_list` and `to_list` name
 * a conversion or a place, not recipients.
 */
const COLLECTION_WORDS: ReadonlySet<string> = new Set(["list", "lists", "array", "arrays"]);

/**
 * A name's words without a trailing collection word ({@link COLLECTION_WORDS}): `cc list` → `cc`,
 * `url list` → `url`; unchanged for one word, or after `to` (a preposition there:
 * `convert_to_array`, `add_to_list`).
 *
 * Source: SPEC §4.4 "Sink-shaped argument names"; review of the sink gate.
 * @param words - The words of a name ({@link splitWords}).
 * @returns The words to judge the name by.
 */
export function withoutCollectionWord(words: readonly string[]): readonly string[] {
  const tail = words.at(-1);
  const readThrough =
    tail !== undefined && words.length >= 2 && COLLECTION_WORDS.has(tail) && words.at(-2) !== "to";
  return readThrough ? words.slice(0, -1) : words;
}

/**
 * Whether a name's words are sink-shaped (last word, last two words, or a sending tool's target),
 * after a trailing collection word ({@link COLLECTION_WORDS}).
 */
function sinkShapedWords(allWords: readonly string[], toolName: string): boolean {
  const words = withoutCollectionWord(allWords);
  const last = words.at(-1);
  if (last === undefined) return false;
  if (SINK_WORDS.has(last)) return true;
  if (words.length >= 2 && SINK_WORDS.has(`${words.at(-2)} ${last}`)) return true;
  return (last === "target" || last === "targets") && SENDING_VERBS.has(splitWords(toolName)[0] ?? "");
}

/**
 * Whether an output key is destination-shaped: its last or second-to-last word is in the §2.5
 * vocabulary. With `maxWords`, a key of more words is never destination-shaped (the `Key: value`
 * line rule of unstructured text uses 3).
 *
 * Source: SPEC §2.5 "Free text versus field values".
 * @param key - A mapping key or the key of a `Key: value` line.
 * @param options - `maxWords`: the most words the key may have.
 * @returns True when the key is destination-shaped.
 * @example isDestinationShapedKey("sender_name") // true
 */
export function isDestinationShapedKey(key: string, options: { readonly maxWords?: number } = {}): boolean {
  const words = splitWords(key);
  if (options.maxWords !== undefined && words.length > options.maxWords) return false;
  const last = words.at(-1);
  const secondToLast = words.at(-2);
  return (
    (last !== undefined && DESTINATION_KEY_WORDS.has(last)) ||
    (secondToLast !== undefined && DESTINATION_KEY_WORDS.has(secondToLast))
  );
}
