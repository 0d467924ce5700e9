/**
 * The fast path of the policy module: a policy or pack file already parsed by the runtime's own YAML
 * parser (e.g. `Bun.YAML`, at the edge) is validated and compiled by the same validators as the
 * `yaml` library's document, without loading that library. It answers only "valid, and here is the
 * compiled file" — when the text is in the plain subset `parsedValueStandsForText` accepts and the
 * value passes every check; otherwise `undefined`, and the caller reads the text with
 * `checkPolicy` / `checkPack` for the verdict and the located messages. The policy module's second
 * entry point (the edges import it directly so that the fast path loads no YAML library and no
 * engine). Pure.
 *
 * Source: SPEC §4.2 (strict validation), §4.3 (packs), §3.2 step 1 ("load and validate the policy
 * (fast)").
 * @module
 */

import { checkPackSource } from "./check-pack-source.ts";
import { checkPolicySource } from "./check-policy-source.ts";
import { parsedValueStandsForText } from "./parsed-guard.ts";
import type { Pack, PolicyFile } from "./types.ts";
import { leadingComment, valueSource } from "./value-source.ts";

/** A file parsed by the runtime: its text, and what the parser read from it. */
export interface ParsedText {
  /** The file's text. */
  readonly text: string;
  /** The parser's value for the whole text. */
  readonly value: unknown;
}

/**
 * Validates a parsed policy file: the compiled file, as `checkPolicy(text, fileName)` would return
 * it, or `undefined` when the fast path cannot tell (then call `checkPolicy`).
 *
 * @param parsed - The text and its parsed value.
 * @param fileName - The file name as the user gave it.
 * @returns The compiled policy file, or `undefined`.
 * Source: SPEC §4.2.
 * @example
 * ```ts
 * const text = "send_email: { action: ask }\n";
 * const file = checkParsedPolicy({ text, value: Bun.YAML.parse(text) }, "bouncer.yaml")
 *   ?? parsePolicy(text, "bouncer.yaml");
 * ```
 */
export function checkParsedPolicy(parsed: ParsedText, fileName: string): PolicyFile | undefined {
  if (!parsedValueStandsForText(parsed.value, parsed.text)) return undefined;
  const result = checkPolicySource(valueSource(parsed.value, { file: fileName, text: parsed.text }));
  return result.ok ? result.policy : undefined;
}

/**
 * Validates a parsed pack file: the compiled pack, as `checkPack(text, name)` would return it, or
 * `undefined` when the fast path cannot tell (then call `checkPack`) — also when the header (the
 * leading comment) is not one block of comment lines at the very start.
 *
 * @param parsed - The pack's text and its parsed value.
 * @param name - The pack's name (its file name without `.yaml`).
 * @returns The compiled pack, or `undefined`.
 * Source: SPEC §4.3.
 */
export function checkParsedPack(parsed: ParsedText, name: string): Pack | undefined {
  if (!parsedValueStandsForText(parsed.value, parsed.text)) return undefined;
  if (leadingComment(parsed.text) === undefined) return undefined;
  const source = valueSource(parsed.value, { file: `${name}.yaml`, text: parsed.text });
  const result = checkPackSource(source, name);
  return result.ok ? result.pack : undefined;
}
