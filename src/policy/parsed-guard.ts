/**
 * When a value parsed by another YAML parser (the runtime's own) can stand for what the `yaml`
 * library would read from the same text: only for texts in a plain subset of YAML, and only when the
 * value shows that nothing was merged, dropped, typed or rewritten on the way. Conservative by
 * design — a text it declines is simply read by the `yaml` library. Pure.
 *
 * What it checks:
 * - the text has no tab, control or Unicode line-break character, no line over 1,000 characters, no
 *   document marker or directive, no `__proto__` and no `<<`, and — outside comments (whole-line, or
 *   trailing ones with no quote before them) — none of `& * ! | > % @ \` ?` where a node may start
 *   (after a line start, a space or one of `[ ] { } , : -`), nor `, ] }` at the start of a line or
 *   a value: no anchors, aliases, tags, block scalars, reserved indicators, explicit keys or stray
 *   flow indicators; no number written with a radix prefix or an exponent, nor `.inf`/`.nan`; and
 *   every flow collection opens and closes on one line (the `yaml` library is stricter than some
 *   parsers about the indentation of the lines of a longer one);
 * - the value holds no null (so every mapping entry was written with a `:` indicator), no key the
 *   `yaml` library would read as a number, a boolean or null (it keeps those typed), and no string
 *   or key that is not written verbatim in the text (no escapes, folded lines or doubled quotes);
 * - the mappings hold as many keys as the text has `:` indicators (counted generously: a colon
 *   followed by a space, a line end or a flow indicator, or preceded by a quote, a bracket or a
 *   space), so no key was given twice — the other parser keeps one of two duplicates silently.
 *
 * Source: SPEC §4.2 (strict validation: duplicate keys, types), §3.2 step 1 (validate fast).
 * @module
 */

/** Longest line accepted. */
const MAX_LINE = 1000;

/** Characters that have no place in the subset. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const REFUSED_CHARACTERS = /[\t\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u0085\u2028\u2029\ufeff]/u;

/** Document markers and directives (at a line start), merge keys and the prototype's name. */
const REFUSED_SYNTAX = /^(?:---|\.\.\.|%)|<<|__proto__/mu;

/** An indicator where a node may start; a flow indicator where a block node starts. */
const NODE_INDICATOR = /(?:^|[\s[\]{},:-])[&*!|>%@`?]|^[ ]*(?:-[ ]+)*[,\]}]|:[ ]+[,\]}]/mu;

/**
 * Numbers written other than as plain decimals (radix prefixes, signed or not, exponents, `.inf`,
 * `.nan`): the parsers disagree on some of them (`+0x10`, a hex beyond 64 bits), so all go to the
 * `yaml` library.
 */
const NUMBER_FORM = /(?:^|[\s[\]{},:])[-+]?(?:0[xob]|\.(?:inf|nan)\b|\.?\d[\d._]*e[-+]?\d)/iu;

/** Plain keys the `yaml` library reads as something other than a string. */
const TYPED_KEY = /^(?:[-+.0-9~]|(?:true|false|null)$)/iu;

/**
 * Whether `value`, parsed from `text` by another YAML parser, can stand for the `yaml` library's
 * reading of `text` (see the module doc for what is checked).
 *
 * @param value - The parsed document.
 * @param text - The text it was parsed from.
 * @returns True when the value can be validated in place of the `yaml` library's document.
 * Source: SPEC §4.2.
 */
export function parsedValueStandsForText(value: unknown, text: string): boolean {
  if (REFUSED_CHARACTERS.test(text) || REFUSED_SYNTAX.test(text)) return false;
  const lines = text.split(/\r?\n/u);
  if (lines.some((line) => line.length > MAX_LINE || line.includes("\r"))) return false;
  const contentLines = lines.map(withoutComment);
  if (!contentLines.every(closesItsBrackets)) return false;
  const content = contentLines.join("\n");
  if (NODE_INDICATOR.test(content) || NUMBER_FORM.test(content)) return false;
  if (value === null || value === undefined) return content.trim() === "";
  const counted = { keys: 0 };
  return plainAndVerbatim(value, text, counted) && counted.keys === indicatorColons(content);
}

/**
 * A line without its comment: a whole-line comment, or a trailing one when no quote comes before it
 * on the line (a `#` after a space starts a comment outside quoted text).
 * @param line - One line.
 * @returns The line's content.
 */
function withoutComment(line: string): string {
  const start = line.search(/(?:^|\s)#/u);
  if (start === -1) return line;
  const before = line.slice(0, start);
  return /["']/u.test(before) ? line : before;
}

/**
 * Whether a line closes every bracket it opens (a flow collection on one line), counting brackets
 * inside quotes too (a line that merely seems unbalanced is declined, never one that is).
 * @param line - One line's content.
 * @returns True when `[`/`{` and `]`/`}` balance on the line.
 */
function closesItsBrackets(line: string): boolean {
  let depth = 0;
  for (const character of line) {
    if (character === "[" || character === "{") depth += 1;
    else if (character === "]" || character === "}") depth -= 1;
  }
  return depth === 0;
}

/**
 * Walks the value: no null, no typed-looking key, every string and key verbatim in the text.
 * @param value - A node of the parsed value.
 * @param text - The text.
 * @param counted - Keys seen so far (incremented).
 * @returns False at the first thing the subset does not allow.
 */
function plainAndVerbatim(value: unknown, text: string, counted: { keys: number }): boolean {
  if (typeof value === "string") return text.includes(value);
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value === "boolean") return true;
  if (Array.isArray(value)) return value.every((item) => plainAndVerbatim(item, text, counted));
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) {
    counted.keys += 1;
    if (key === "" || TYPED_KEY.test(key) || !text.includes(key)) return false;
    if (!plainAndVerbatim(Reflect.get(value, key), text, counted)) return false;
  }
  return true;
}

/**
 * Counts the colons that may be mapping indicators, never fewer than there are.
 * @param content - The text without whole-line comments.
 * @returns How many.
 */
function indicatorColons(content: string): number {
  let count = 0;
  for (let i = content.indexOf(":"); i !== -1; i = content.indexOf(":", i + 1)) {
    const next = content[i + 1];
    const previous = content[i - 1];
    if (
      next === undefined ||
      /[\s,[\]{}]/u.test(next) ||
      (previous !== undefined && /["'\]}\s]/u.test(previous))
    ) {
      count += 1;
    }
  }
  return count;
}
