/**
 * The parts of a tool's rules a call reads, compiled once when the rules are built (STYLE #4:
 * compile once, decide many): the parameter paths with their keys case-folded. Rules without them
 * (written out by hand) are compiled per call instead, alike. Pure.
 * @module
 */

import { compileParamPath, type ParamPath } from "./param-paths.ts";
import type { CompiledCallRules, ToolRules } from "./types.ts";

/**
 * Compiles what a call reads of a tool's rules.
 *
 * Source: STYLE #4; SPEC §2.4 (`write_params`, `arg_patterns`), §2.5 (`sink_params`).
 * @param rules - The rules as built (their parameter paths are read).
 * @returns Every parameter path compiled.
 * @throws Never.
 * @example compileCallRules(rules).paramPaths.get("files[].path")?.segments.length // 2
 */
export function compileCallRules(
  rules: Pick<ToolRules, "writeParams" | "argPatterns" | "sinkParams">,
): CompiledCallRules {
  const texts = [
    ...(rules.writeParams?.value ?? []),
    ...(rules.argPatterns?.value.keys() ?? []),
    ...rules.sinkParams.map((sink) => sink.value),
  ];
  const paramPaths = new Map<string, ParamPath>();
  for (const text of texts) if (!paramPaths.has(text)) paramPaths.set(text, compileParamPath(text));
  return { paramPaths };
}

/**
 * A parameter path of the rules, compiled: the one compiled with them, or one compiled now.
 * @param rules - The call's rules.
 * @param text - One of their parameter paths.
 * @returns The compiled path.
 */
export function paramPathOf(rules: ToolRules, text: string): ParamPath {
  return rules.compiled?.paramPaths.get(text) ?? compileParamPath(text);
}
