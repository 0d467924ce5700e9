/**
 * Helpers over `jsonc-parser`'s syntax tree for client configs: the depth guard run before parsing,
 * duplicate-key refusal, property maps, decoded values (null-prototype objects) and parse errors in
 * words. Pure.
 *
 * Source: SPEC §5.2, field cases F12 (JSONC), F13 (rewriters that broke configs).
 * @module
 */

import { createScanner, type Node, type ParseError, printParseErrorCode } from "jsonc-parser";
import { ConfigSyntaxError, lineColumn } from "./config-syntax-error.ts";

/** Deeper than this a config is refused before it is parsed (the parser recurses: a stack overflow). */
export const MAX_DEPTH = 1000;

/** `jsonc-parser`'s token kinds for brackets and the end (its `SyntaxKind` is a const enum). */
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

/**
 * Where a JSON/JSONC text first nests deeper than {@link MAX_DEPTH}, found with the library's
 * scanner (strings and comments skipped, no recursion).
 * @param text - The file's text.
 * @returns The offset of the bracket that goes too deep, or undefined.
 */
export function tooDeepAt(text: string): number | undefined {
  const scanner = createScanner(text, false);
  let depth = 0;
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_DEPTH) return scanner.getTokenOffset();
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) depth -= 1;
  }
  return undefined;
}

/**
 * The properties of an object node by key (the last one wins; duplicates were refused before).
 *
 * Source: SPEC §5.2.
 * @param node - An object node.
 * @returns Key → property node.
 */
export function propertyMap(node: Node): Map<string, Node> {
  const map = new Map<string, Node>();
  for (const property of node.children ?? []) {
    const key = property.children?.[0]?.value;
    if (typeof key === "string") map.set(key, property);
  }
  return map;
}

/**
 * Refuses an object with two properties of the same name: a client would read only one of them, and
 * which one differs between parsers.
 * @param text - The config text.
 * @param node - An object node.
 * @throws {ConfigSyntaxError} At the second occurrence.
 */
export function assertUniqueKeys(text: string, node: Node): void {
  const seen = new Set<string>();
  for (const property of node.children ?? []) {
    const key = property.children?.[0];
    if (typeof key?.value !== "string") continue;
    if (seen.has(key.value)) {
      throw new ConfigSyntaxError(`duplicate key "${key.value}"`, lineColumn(text, key.offset));
    }
    seen.add(key.value);
  }
}

/**
 * The value of a syntax-tree node, with null-prototype objects so that keys such as `__proto__` stay
 * plain data (STYLE #6).
 *
 * Source: SPEC §5.2.
 * @param node - Any node.
 * @returns The decoded value.
 */
export function nodeValue(node: Node): unknown {
  if (node.type === "array") return (node.children ?? []).map(nodeValue);
  if (node.type !== "object") return node.value;
  const object: Record<string, unknown> = Object.create(null);
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (typeof key?.value !== "string" || value === undefined) continue;
    Object.defineProperty(object, key.value, {
      value: nodeValue(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/**
 * A parse error in words: `CloseBraceExpected` → `close brace expected`.
 * @param error - A jsonc-parser error.
 * @returns The description.
 */
export function describeError(error: ParseError): string {
  return printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
}
