/**
 * Canonical JSON: sorted keys, fixed separators, no whitespace (SPEC §2.2, STYLE #7). Pure.
 * @module
 */

/**
 * Serialises a JSON-like value canonically: object keys sorted by UTF-16 code units at every level,
 * `,` and `:` as the only separators, no whitespace. Like `JSON.stringify`, object members whose value
 * is `undefined` are left out, and non-finite numbers and other non-JSON values become `null`.
 * Keys are read as own properties only, so a key named `__proto__` is serialised like any other.
 *
 * Source: SPEC §2.2 ("JSON with sorted keys"), STYLE #7.
 * @param value - A value parsed from JSON (or built from such values).
 * @returns The canonical text; equal values give equal text.
 * @throws RangeError when the value nests so deeply that the call stack runs out.
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item)).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const member = Object.getOwnPropertyDescriptor(record, key)?.value;
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
    }
    return `{${members.join(",")}}`;
  }
  return "null";
}
