/**
 * Which argument values are destinations (SPEC §2.5): selection from the pinned input schema,
 * flattening, and splitting of address lists and `mailto:` URLs. Pure; argument keys are hostile
 * (STYLE #6) and read through own-property checks only.
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { isUrlShaped } from "./identity.ts";
import { isSinkShapedName } from "./key-shapes.ts";
import { collectParamValues } from "./param-paths.ts";
import { extractTokens, isEmailShaped, isPhoneShaped } from "./tokens.ts";
import type { JsonObject, JsonValue, RuleSource, Sourced } from "./types.ts";

/**
 * One flattened destination string and where it came from.
 *
 * Source: SPEC §2.5 "Which arguments are destinations", "Flattening", "Splitting".
 */
export interface DestinationValue {
  /** The parameter it was selected by (`to`, `message.to`, `files[].path`): the approval key's param. */
  readonly param: string;
  /** The concrete argument path (`recipients[1]`, `message.to`). */
  readonly path: string;
  /** The raw string (a number as its JSON text). */
  readonly value: string;
  /** The rule that made it a destination. */
  readonly source: RuleSource;
}

/**
 * One destination after splitting: its raw piece, canonical form, and whether it may be trusted.
 *
 * Source: SPEC §2.5 "Which arguments are destinations", "Flattening", "Splitting".
 */
export interface DestinationPiece {
  /** The raw value, trimmed; for a piece of a list, the piece as written in the canonical list. */
  readonly raw: string;
  readonly canonical: string;
  /** SPEC §2.5: the raw form, trimmed and case-folded, already equals its canonical form. */
  readonly eligible: boolean;
}

/**
 * Inputs of {@link selectDestinations}.
 *
 * Source: SPEC §2.5 "Which arguments are destinations", "Flattening", "Splitting".
 */
export interface SelectOptions {
  readonly tool: string;
  /** The pinned input schema; without one, every argument counts as "not in the schema". */
  readonly schema?: JsonObject | undefined;
  readonly sinkParams: readonly Sourced<string>[];
  readonly heuristics: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Whether a dotted parameter path exists in the schema (`properties`, and `items` for `[]`). */
function inSchema(schema: JsonObject | undefined, param: string): boolean {
  let node: JsonValue | undefined = schema;
  for (const raw of param.split(".")) {
    const key = raw.replace(/(\[\])+$/, "");
    const properties = isObject(node) ? own(node, "properties") : undefined;
    if (!isObject(properties) || !Object.hasOwn(properties, key)) return false;
    node = own(properties, key);
    for (let lists = (raw.length - key.length) / 2; lists > 0; lists -= 1) {
      node = isObject(node) ? own(node, "items") : undefined;
    }
  }
  return true;
}

/**
 * Which arguments of an exfiltrating tool are destinations, decided from the pinned input schema
 * alone (never from the call): `named` — the declared sinks, the sink-shaped argument names and
 * every argument not in the schema; `every` — every argument, because the declared sinks are all
 * absent from the schema (`declared_not_in_schema`: fail closed) or because nothing is declared and
 * the schema has no sink-shaped argument (`no_sink_shaped`).
 *
 * Source: SPEC §2.5 "Which arguments are destinations", §4.4.
 * @param options - The tool, its pinned schema, the declared sinks and whether heuristics apply.
 * @returns The rule, with the tests `named` applies to a top-level argument name.
 * @example destinationRule({ tool: "send", schema: { properties: { to: {} } }, sinkParams: [], heuristics: true }).kind // "named"
 */
export function destinationRule(options: SelectOptions): DestinationRule {
  const { schema, sinkParams, heuristics, tool } = options;
  const properties = isObject(schema) ? own(schema, "properties") : undefined;
  const schemaNames = isObject(properties) ? Object.keys(properties) : [];
  const isSinkShaped = (name: string): boolean => heuristics && isSinkShapedName(name, tool);
  if (
    sinkParams.some((sink) => inSchema(schema, sink.value)) ||
    (sinkParams.length === 0 && schemaNames.some(isSinkShaped))
  ) {
    return {
      kind: "named",
      isSinkShaped,
      inSchema: (name) => isObject(properties) && Object.hasOwn(properties, name),
      sinkShaped: schemaNames.filter(isSinkShaped),
    };
  }
  return { kind: "every", why: sinkParams.length > 0 ? "declared_not_in_schema" : "no_sink_shaped" };
}

/**
 * The outcome of {@link destinationRule}.
 *
 * Source: SPEC §2.5 "Which arguments are destinations".
 */
export type DestinationRule =
  | {
      readonly kind: "named";
      /** Whether a top-level argument name is sink-shaped (§4.4; false when heuristics are off). */
      readonly isSinkShaped: (name: string) => boolean;
      /** Whether a top-level argument name is a property of the pinned schema. */
      readonly inSchema: (name: string) => boolean;
      /** The schema's sink-shaped property names, in schema order. */
      readonly sinkShaped: readonly string[];
    }
  | { readonly kind: "every"; readonly why: "declared_not_in_schema" | "no_sink_shaped" };

/**
 * Flattens an argument value: strings as they are, numbers as their JSON text, lists element by
 * element, objects by their keys and values recursively; booleans and null contribute nothing.
 *
 * Source: SPEC §2.5 "Flattening".
 * @param value - Any argument value.
 * @param path - Its concrete path, used for the paths of the strings found.
 * @returns Every string with its concrete path, in document order.
 */
export function flattenValue(value: JsonValue, path: string): { path: string; value: string }[] {
  const out: { path: string; value: string }[] = [];
  const stack: { path: string; value: JsonValue }[] = [{ path, value }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const v = item.value;
    if (typeof v === "string") out.push({ path: item.path, value: v });
    else if (typeof v === "number") out.push({ path: item.path, value: JSON.stringify(v) });
    else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1)
        stack.push({ path: `${item.path}[${i}]`, value: v[i] ?? null });
    } else if (isObject(v)) {
      for (const [key, child] of Object.entries(v).reverse()) {
        stack.push({ path: `${item.path}.${key}`, value: child });
        stack.push({ path: item.path, value: key });
      }
    }
  }
  return out;
}

/**
 * Selects the destination values of a call from the pinned schema (SPEC §2.5 "Which arguments are
 * destinations"): with a declared sink in the schema, the declared sinks plus sink-shaped arguments
 * plus arguments not in the schema; with declared sinks none of which is in the schema, every
 * argument; with none declared, the sink-shaped arguments plus arguments not in the schema when the
 * schema has a sink-shaped argument, otherwise every argument. A path that meets a value of the wrong
 * shape takes that whole value (fail closed).
 *
 * Source: SPEC §2.5, §4.4.
 * @param args - The call's arguments.
 * @param options - Tool name, pinned schema, declared sinks, whether heuristics apply.
 * @returns Every flattened destination string with its parameter and path.
 */
export function selectDestinations(args: JsonObject, options: SelectOptions): DestinationValue[] {
  const rule = destinationRule(options);
  const argNames = Object.keys(args);
  const declared = new Map<string, RuleSource>();
  const direct = new Map<string, RuleSource>();
  for (const sink of options.sinkParams) if (!declared.has(sink.value)) declared.set(sink.value, sink.source);
  const addArg = (name: string, source: RuleSource): void => {
    if (!direct.has(name) && !declared.has(name)) direct.set(name, source);
  };
  if (rule.kind === "named") {
    for (const name of argNames) if (rule.isSinkShaped(name)) addArg(name, "heuristic");
    for (const name of argNames) if (!rule.inSchema(name)) addArg(name, "default");
  } else {
    for (const name of argNames) addArg(name, "default");
  }
  const out: DestinationValue[] = [];
  const seen = new Set<string>();
  const push = (param: string, source: RuleSource, reached: { path: string; value: JsonValue }): void => {
    for (const flat of flattenValue(reached.value, reached.path)) {
      const key = `${flat.path}\u0000${flat.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ param, path: flat.path, value: flat.value, source });
    }
  };
  for (const [param, source] of declared) {
    const { values, mismatches } = collectParamValues(args, param);
    for (const reached of [...values, ...mismatches]) push(param, source, reached);
  }
  for (const [name, source] of direct) push(name, source, { path: name, value: own(args, name) ?? null });
  return out;
}

/** Splits on `,` and `;` outside double quotes and angle brackets. */
function splitList(text: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let angle = false;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === "<" && !quoted) angle = true;
    else if (ch === ">" && !quoted) angle = false;
    else if ((ch === "," || ch === ";") && !quoted && !angle) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

function isAddress(part: string): boolean {
  const reduced = canonicalize(part, { destination: true });
  return isEmailShaped(reduced) || isPhoneShaped(reduced);
}

/** A `mailto:` URL, also as `Name <mailto:…>` or percent-encoded: what `canonicalize` strips. */
function isMailto(trimmed: string): boolean {
  return /^(?:[^<>]*<\s*)?mailto:/.test(canonicalize(trimmed));
}

/**
 * `a@x?cc=b@y&subject=…` (a `mailto:` URL after canonicalisation) → the addresses of its path and its
 * `to`/`cc`/`bcc` fields. For a destination (`sink`), failing closed, also every address-shaped
 * piece of any other field and every piece of a field that is no `name=value` header field
 * (`a@x?,b@y`: a mail library may split that on the comma, so nothing after the `?` is dropped
 * unseen). Recorded output needs no more: what is not a piece is indexed as free text.
 */
function mailtoParts(canonical: string, sink: boolean): string[] | undefined {
  const at = canonical.indexOf("?");
  if (at === -1) return undefined;
  const head = splitList(canonical.slice(0, at));
  if (!head.every(isAddress)) return undefined;
  const parts = [...head];
  for (const field of canonical.slice(at + 1).split("&")) {
    const eq = field.indexOf("=");
    const name = (eq === -1 ? field : field.slice(0, eq)).trim();
    const value = eq === -1 ? "" : field.slice(eq + 1);
    if (["to", "cc", "bcc"].includes(name)) parts.push(...splitList(value));
    else if (!sink) continue;
    else if (!/^[a-z][a-z0-9-]*$/.test(name)) parts.push(...splitList(field));
    else parts.push(...splitList(value).filter(isAddress));
  }
  return parts;
}

/**
 * Options of {@link destinationPieces}.
 *
 * Source: SPEC §2.5 "Splitting".
 */
export interface PieceOptions {
  /**
   * Split a destination argument of a gated call (true) rather than a field value of recorded
   * output (default false). A destination fails closed: a `?` splits only a `mailto:` URL (whose
   * other query fields keep their addresses), a URL followed by `,addr` is split, and addresses
   * written inside a piece that is no address are added as pieces of their own (never trusted). For
   * output these would turn free text into field values, so they apply to destinations only.
   */
  readonly sink?: boolean;
}

/**
 * Splits one flattened destination string into destinations: an address list (`a@x.example,
 * b@y.example`, `;`-separated, `Name <addr>` items) becomes one destination per address, and a
 * `mailto:` URL one per address of its path and its `to`/`cc`/`bcc` query fields. Pieces that are
 * empty after canonicalisation are dropped. With `sink` (a gated call's argument), failing closed
 * as {@link PieceOptions} says; otherwise URL-shaped values are never split.
 *
 * Source: SPEC §2.5 "Splitting", "Canonical form" (trust only for already-canonical raw values),
 * "Flattening" (one bad element decides for the call).
 * @param raw - A flattened destination string (or a field value of recorded output).
 * @param options - `sink` for a destination argument of a gated call.
 * @returns The destinations it holds (none when it is empty).
 * @example destinationPieces("a@evil.example, boss@corp.example").map((p) => p.canonical) // ["a@evil.example", "boss@corp.example"]
 */
export function destinationPieces(raw: string, options: PieceOptions = {}): DestinationPiece[] {
  const sink = options.sink === true;
  const finish = sink ? withEmbedded : (pieces: DestinationPiece[]): DestinationPiece[] => pieces;
  const trimmed = raw.trim();
  const canonical = canonicalize(trimmed, { destination: true });
  if (canonical === "") return [];
  const single = finish([{ raw: trimmed, canonical, eligible: trimmed.toLowerCase() === canonical }]);
  if (!/[,;?]/.test(canonical) || (!sink && isUrlShaped(trimmed))) return single;
  const whole = canonical.replace(/^[^<>]*<([^<>]*[,;?][^<>]*)>$/, "$1");
  const listed = splitList(whole);
  const isList = listed.length > 1 || (listed.length === 1 && listed[0] !== whole);
  const mailto = sink && !(whole.includes("?") && isMailto(trimmed)) ? undefined : mailtoParts(whole, sink);
  const parts = mailto ?? (isList && listed.some(isAddress) ? listed : undefined);
  if (parts === undefined) return single;
  const wholeEligible = trimmed.toLowerCase() === whole;
  return finish(
    parts.flatMap((part) => {
      const piece = canonicalize(part, { destination: true });
      return piece === "" ? [] : [{ raw: part, canonical: piece, eligible: wholeEligible && piece === part }];
    }),
  );
}

/**
 * The pieces, each followed by the email addresses written inside it when it is no address itself
 * (`attacker@evil.example (boss)`, a group `team: a@x.example`, addresses separated by spaces or
 * `|`, a URL followed by a space and an address). The added pieces are never trusted, so they can
 * only add a deny or a question (SPEC §2.5 "Flattening": one bad element decides for the call).
 * A URL without white space is left whole (its host decides).
 */
function withEmbedded(pieces: DestinationPiece[]): DestinationPiece[] {
  if (!pieces.some(({ canonical }) => canonical.includes("@"))) return pieces;
  const out: DestinationPiece[] = [];
  for (const piece of pieces) {
    out.push(piece);
    const { canonical } = piece;
    if (!canonical.includes("@") || isEmailShaped(canonical)) continue;
    if (!/\s/.test(canonical) && isUrlShaped(canonical)) continue;
    const seen = new Set<string>();
    extractTokens(canonical, (key) => {
      if (key === canonical || seen.has(key) || !isEmailShaped(key)) return;
      seen.add(key);
      out.push({ raw: key, canonical: key, eligible: false });
    });
  }
  return out;
}
