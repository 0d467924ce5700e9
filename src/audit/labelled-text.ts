/**
 * Labelled pairs written in a string (`labelled-pairs.ts`): a JSON or JavaScript object in text
 * (`'[{"name":"X-Api-Key","value":"…"}]'`, JSON inside a JSON string) or an XML element's
 * attributes (`<add key="ApiKey" value="…"/>`) whose label is secret-like. A tool takes its request
 * body or a config file as one string, so the rule that hides such a pair's value in arguments
 * hides it there too. Only an object with no brace inside it is read (a pair's members are
 * strings): not one that holds an object (`{"name": …, "meta": {…}, "value": …}`) or a string with
 * a brace, nor YAML (`- name: DB_PASSWORD` / `value: …`) or words (`name=… value=…`). Edge (pure
 * string work).
 *
 * Source: SPEC §3.5 ("values of arguments named like secrets … become `[redacted]`").
 * @module
 */

import { isSecretPair, labelledPair } from "../platform/labelled-pairs.ts";
import { isSecretName, SECRET_NAME_PART } from "../platform/secret-shapes.ts";

/** An object with no braces inside, or an XML start tag: where a pair's members are looked for. */
const HOLDER = /\{[^{}]{1,4096}\}|<[A-Za-z_][^<>]{1,4096}>/g;

/**
 * A member: a quoted name (with the backslashes of JSON inside a JSON string, at most 31: each
 * match is bounded, so a long run of backslashes stays linear) and its `:` or `=`,
 * or an unquoted one (an XML attribute, a JavaScript object), then its value's start.
 */
const MEMBER =
  /(?:(\\{0,31})(["'])([^"'\\\r\n=:]{1,64})\1\2|(?<![\w.:-])([A-Za-z_][\w.:-]{0,63}))[ \t]*[:=][ \t]*/g;

/** What a holder with a value member holds (`value`, `Value`, `val`, `headerValue`). */
const VALUE_WORD = /val/i;

/** An opening quote and the backslashes before it. */
const OPENING = /\\*["']/y;

/** One member read: its name, where its value starts, and the string it holds (if one). */
interface Member {
  readonly name: string;
  readonly at: number;
  readonly text?: string;
}

/** Where a pair was found: the offsets of its value's and its label's values, and the label. */
export interface TextPair {
  /** Offset of the value member's value (its opening quote, if any). */
  readonly valueAt: number;
  /** Offset of the label member's value: what stays in view. */
  readonly labelAt: number;
  /** The label (the value's name, for how it is shown). */
  readonly name: string;
  /** Whether the value is a secret (a label is secret-like). */
  readonly secret: boolean;
  /** Whether the label member's own name is secret-like (`key`, `ParameterKey`): a pass would hide it. */
  readonly secretLabelName: boolean;
}

/**
 * The members of one holder (an object's text, or a start tag), with the strings they hold.
 * @param text - The whole text.
 * @param from - The holder's start.
 * @param to - The holder's end.
 * @returns The members, in order.
 */
function membersIn(text: string, from: number, to: number): Member[] {
  // Read in the holder's own text: no search runs past its end (one that did would make a text of
  // many holders without members quadratic).
  const holder = text.slice(from, to);
  const members: Member[] = [];
  MEMBER.lastIndex = 0;
  for (let match = MEMBER.exec(holder); match !== null; match = MEMBER.exec(holder)) {
    const name = match[3] ?? match[4] ?? "";
    const at = match.index + match[0].length;
    OPENING.lastIndex = at;
    const opening = OPENING.exec(holder)?.[0];
    if (opening === undefined) {
      members.push({ name, at: from + at });
      continue;
    }
    const close = holder.indexOf(opening, at + opening.length);
    if (close === -1) break;
    members.push({ name, at: from + at, text: holder.slice(at + opening.length, close) });
    MEMBER.lastIndex = close + opening.length;
  }
  return members;
}

/**
 * The labelled pairs written in a text whose label is a string: each object with no object inside
 * it, and each XML start tag, whose members make a pair ({@link labelledPair}).
 *
 * Source: SPEC §3.5.
 * @param text - Any string.
 * @returns The pairs, in order (empty when the text names no value member).
 * @example textPairs('{"name":"X-Api-Key","value":"k"}')[0]?.secret // => true
 */
export function textPairs(text: string): TextPair[] {
  if (!VALUE_WORD.test(text)) return [];
  const pairs: TextPair[] = [];
  HOLDER.lastIndex = 0;
  for (let holder = HOLDER.exec(text); holder !== null; holder = HOLDER.exec(text)) {
    // A secret pair's label, or a label member a pass would hide (`key`), is secret-like.
    if (!VALUE_WORD.test(holder[0]) || !SECRET_NAME_PART.test(holder[0])) continue;
    const members = membersIn(text, holder.index, holder.index + holder[0].length);
    const byName = new Map<string, Member>();
    for (const member of members) if (!byName.has(member.name)) byName.set(member.name, member);
    const pair = labelledPair([...byName.keys()], (name) => byName.get(name)?.text !== undefined);
    if (pair === undefined) continue;
    const labelOf = (name: string): string => byName.get(name)?.text ?? "";
    pairs.push({
      valueAt: byName.get(pair.value)?.at ?? 0,
      labelAt: byName.get(pair.label)?.at ?? 0,
      name: labelOf(pair.label),
      secret: isSecretPair(pair, labelOf),
      secretLabelName: isSecretName(pair.label),
    });
  }
  return pairs;
}
