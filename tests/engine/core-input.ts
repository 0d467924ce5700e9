/**
 * Small builders for engine-core tests (pinning, budget, constraints, decide): a {@link ToolRules}
 * value with quiet defaults and a {@link CallInput} around it. Not a test file.
 * @module
 */

import type { CallInput, RuleSource, Sourced, ToolRules } from "../../src/engine/index.ts";

/**
 * Wraps a value with a policy source.
 * @param value - The value.
 * @param source - Its source (default `user:bouncer.yaml`).
 * @returns The sourced value.
 */
export function sourced<T>(value: T, source: RuleSource = "user:bouncer.yaml"): Sourced<T> {
  return { value, source };
}

/**
 * Builds tool rules that object to nothing: action allow, not exfiltrating, no budget, no paths.
 * @param overrides - Keys to set.
 * @returns The rules.
 */
export function makeRules(overrides: Partial<ToolRules> = {}): ToolRules {
  return {
    server: "srv",
    tool: "write_file",
    action: sourced("allow", "default"),
    exfiltrating: sourced(false),
    sinkParams: [],
    trustedDestinations: [],
    onTainted: sourced("deny", "default"),
    taintFields: sourced("lenient", "default"),
    unclassified: sourced("allow", "default"),
    taintMinLength: 6,
    heuristics: true,
    ...overrides,
  };
}

/**
 * Compiles an `arg_patterns` map the way the policy does: anchored `^(?:…)$`, Unicode.
 * @param patterns - Argument name to regex source.
 * @returns The sourced map.
 */
export function patterns(patterns: Record<string, string>): Sourced<ReadonlyMap<string, RegExp>> {
  return sourced(new Map(Object.entries(patterns).map(([k, p]) => [k, new RegExp(`^(?:${p})$`, "u")])));
}

/**
 * Builds a call input for the rules' server and tool: pinned, no arguments, POSIX paths under
 * `/work` with home `/home/u`, counting the attempt.
 * @param overrides - Keys to set.
 * @returns The call input.
 */
export function makeInput(overrides: Partial<CallInput> = {}): CallInput {
  const rules = overrides.rules ?? makeRules();
  return {
    server: rules.server,
    tool: rules.tool,
    arguments: {},
    rules,
    pin: { kind: "pinned" },
    paths: { cwd: "/work", home: "/home/u", platform: "posix" },
    countAttempt: true,
    ...overrides,
  };
}
