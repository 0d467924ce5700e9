/**
 * The parts of a tool's rules a call reads, compiled once when the rules are built (STYLE #4:
 * compile once, decide many): the budget counter's key and the parameter paths with their keys
 * case-folded. Rules without them (written out by hand) are compiled per call instead, alike. Pure.
 * @module
 */

import { compileParamPath, type ParamPath } from "./param-paths.ts";
import { budgetKey } from "./state.ts";
import type { CallInput, CompiledCallRules, ToolRules } from "./types.ts";

/**
 * Compiles what a call reads of a tool's rules.
 *
 * Source: STYLE #4; SPEC §2.3 (budget per tool), §2.4 (`write_params`, `arg_patterns`), §2.5
 * (`sink_params`).
 * @param rules - The rules as built (server, tool and parameter paths are read).
 * @returns The budget key and every parameter path compiled.
 * @throws Never.
 * @example compileCallRules(rules).paramPaths.get("files[].path")?.segments.length // 2
 */
export function compileCallRules(
  rules: Pick<ToolRules, "server" | "tool" | "writeParams" | "argPatterns" | "sinkParams">,
): CompiledCallRules {
  const texts = [
    ...(rules.writeParams?.value ?? []),
    ...(rules.argPatterns?.value.keys() ?? []),
    ...rules.sinkParams.map((sink) => sink.value),
  ];
  const paramPaths = new Map<string, ParamPath>();
  for (const text of texts) if (!paramPaths.has(text)) paramPaths.set(text, compileParamPath(text));
  return { budgetKey: budgetKey(rules.server, rules.tool), paramPaths };
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

/**
 * The budget counter key of a call: the one compiled with its rules when they are the call's
 * server's and tool's, else made now.
 * @param input - The call (server, tool, rules).
 * @returns `budgetKey(input.server, input.tool)`.
 */
export function callBudgetKey(input: CallInput): string {
  const { compiled, server, tool } = input.rules;
  return compiled !== undefined && server === input.server && tool === input.tool
    ? compiled.budgetKey
    : budgetKey(input.server, input.tool);
}
