/**
 * The runtime's own YAML parser, when it has one: `Bun.YAML` under Bun (native, and ~50 times faster
 * on a cold start than the `yaml` library); nothing under Deno or Node, where callers read the text
 * with the `yaml` library instead. Its value is only a candidate: the policy module decides whether
 * it can stand for the `yaml` library's reading (`checkParsedPolicy`, `checkParsedPack`). Edge
 * (runtime-specific).
 *
 * Source: SPEC §3.2 step 1 ("load and validate the policy (fast)"), §4.3 (packs), §6 (Bun).
 * @module
 */

/** The part of `Bun.YAML` used here. */
interface RuntimeYaml {
  parse(text: string): unknown;
}

/**
 * The runtime's YAML parser, if any.
 * @returns `Bun.YAML`, or `undefined` outside Bun.
 */
function runtimeYaml(): RuntimeYaml | undefined {
  const bun: unknown = Reflect.get(globalThis, "Bun");
  const yaml: unknown = typeof bun === "object" && bun !== null ? Reflect.get(bun, "YAML") : undefined;
  if (typeof yaml !== "object" || yaml === null) return undefined;
  return typeof Reflect.get(yaml, "parse") === "function" ? (yaml as RuntimeYaml) : undefined;
}

/**
 * Parses YAML text with the runtime's own parser.
 *
 * Source: SPEC §3.2 step 1, §4.3.
 * @param text - A YAML document.
 * @returns `{ value }`, or `undefined` when the runtime has no parser or its parser refuses the text
 *   (the `yaml` library then says why).
 */
export function parseYamlNatively(text: string): { readonly value: unknown } | undefined {
  const yaml = runtimeYaml();
  if (yaml === undefined) return undefined;
  try {
    return { value: yaml.parse(text) };
  } catch {
    return undefined;
  }
}
