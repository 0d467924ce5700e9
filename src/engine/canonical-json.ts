/**
 * Canonical JSON: sorted keys, fixed separators, no whitespace (SPEC §2.2, STYLE #7). Pure.
 * @module
 */

/** One step of the walk: a value still to write, or text to write as it is (a separator, a bracket). */
type Step = { readonly value: unknown } | string;

/**
 * Serialises a JSON-like value canonically: object keys sorted by UTF-16 code units at every level,
 * `,` and `:` as the only separators, no whitespace. Like `JSON.stringify`, object members whose value
 * is `undefined` are left out, and non-finite numbers and other non-JSON values become `null`.
 * Keys are read as own properties only, so a key named `__proto__` is serialised like any other.
 * Iterative: a value nested at any depth (a tool schema 20,000 levels deep) is serialised, no call
 * stack runs out.
 *
 * Source: SPEC §2.2 ("JSON with sorted keys"), STYLE #7.
 * @param value - A value parsed from JSON (or built from such values).
 * @returns The canonical text; equal values give equal text.
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  // Steps are taken from the end: each container pushes its pieces last first.
  const steps: Step[] = [{ value }];
  for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
    if (typeof step === "string") {
      parts.push(step);
      continue;
    }
    const item = step.value;
    if (item === null || item === undefined) parts.push("null");
    else if (typeof item === "string" || typeof item === "boolean") parts.push(JSON.stringify(item));
    else if (typeof item === "number") parts.push(Number.isFinite(item) ? JSON.stringify(item) : "null");
    else if (Array.isArray(item)) pushArray(steps, item);
    else if (typeof item === "object") pushObject(steps, item as Record<string, unknown>);
    else parts.push("null");
  }
  return parts.join("");
}

/**
 * Pushes a list's steps: `[`, its items with `,` between them, `]` (last first).
 * @param steps - The walk's stack.
 * @param list - The list.
 */
function pushArray(steps: Step[], list: readonly unknown[]): void {
  steps.push("]");
  for (let i = list.length - 1; i >= 0; i -= 1) {
    steps.push({ value: list[i] });
    if (i > 0) steps.push(",");
  }
  steps.push("[");
}

/**
 * Pushes an object's steps: `{`, each defined member as `"key":value` in key order with `,` between
 * them, `}` (last first).
 * @param steps - The walk's stack.
 * @param record - The object.
 */
function pushObject(steps: Step[], record: Record<string, unknown>): void {
  const members: [string, unknown][] = [];
  for (const key of Object.keys(record).sort()) {
    const member = Object.getOwnPropertyDescriptor(record, key)?.value;
    if (member !== undefined) members.push([key, member]);
  }
  steps.push("}");
  for (let i = members.length - 1; i >= 0; i -= 1) {
    const [key, member] = members[i] as [string, unknown];
    steps.push({ value: member });
    steps.push(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`);
  }
  steps.push("{");
}
