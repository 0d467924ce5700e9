import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { budgetKey, createEngineState, evaluateBudget } from "../../src/engine/index.ts";
import { makeInput, makeRules, sourced } from "./core-input.ts";

function attempts(maxCalls: number | undefined, count: number): string[] {
  const state = createEngineState();
  const rules = makeRules(maxCalls === undefined ? {} : { maxCalls: sourced(maxCalls) });
  return Array.from({ length: count }, () =>
    evaluateBudget(makeInput({ rules }), state).denies.length > 0 ? "deny" : "pass",
  );
}

describe("evaluateBudget()", () => {
  test.each<[string, number | undefined, number, string[]]>([
    ["passes attempts up to max_calls and denies the rest", 2, 4, ["pass", "pass", "deny", "deny"]],
    ["denies every call with max_calls: 0", 0, 2, ["deny", "deny"]],
    ["is unlimited without max_calls", undefined, 5, ["pass", "pass", "pass", "pass", "pass"]],
    ["passes exactly one call with max_calls: 1", 1, 2, ["pass", "deny"]],
  ])("evaluateBudget() %s", (_rule, maxCalls, count, expected) => {
    expect(attempts(maxCalls, count)).toEqual(expected);
  });

  test("evaluateBudget() counts every attempt, whatever the verdict, per tool per session", () => {
    const state = createEngineState();
    const rules = makeRules({ maxCalls: sourced(1) });
    evaluateBudget(makeInput({ rules }), state);
    evaluateBudget(makeInput({ rules }), state);
    expect(state.budgets.get(budgetKey("srv", "write_file"))).toBe(2);
    const other = makeRules({ tool: "read_file", maxCalls: sourced(1) });
    expect(evaluateBudget(makeInput({ rules: other }), state).denies).toEqual([]);
  });

  test("evaluateBudget() counts attempts even without a budget", () => {
    const state = createEngineState();
    evaluateBudget(makeInput(), state);
    expect(state.budgets.get(budgetKey("srv", "write_file"))).toBe(1);
  });

  test("evaluateBudget() neither counts nor re-checks the re-decision after an approval", () => {
    const state = createEngineState();
    const rules = makeRules({ maxCalls: sourced(1) });
    expect(evaluateBudget(makeInput({ rules }), state).denies).toEqual([]);
    expect(evaluateBudget(makeInput({ rules }), state).denies).toHaveLength(1);
    expect(evaluateBudget(makeInput({ rules, countAttempt: false }), state).denies).toEqual([]);
    expect(state.budgets.get(budgetKey("srv", "write_file"))).toBe(2);
  });

  test("evaluateBudget() denies the re-decision too under max_calls: 0", () => {
    const state = createEngineState();
    const rules = makeRules({ maxCalls: sourced(0) });
    expect(evaluateBudget(makeInput({ rules, countAttempt: false }), state).denies).toHaveLength(1);
  });

  test("evaluateBudget() gives a budget_exhausted reason with the rule's source", () => {
    const state = createEngineState();
    const rules = makeRules({ tool: "delete_item", maxCalls: sourced(0, "heuristic") });
    const reason = evaluateBudget(makeInput({ rules }), state).denies[0];
    expect(reason?.code).toBe("budget_exhausted");
    expect(reason?.source).toBe("heuristic");
    expect(reason?.message).toContain('"delete_item"');
  });

  test("evaluateBudget() says a spent budget counts attempts, and where a heuristic limit comes from and how to change it", () => {
    const spend = (source: "heuristic" | "user:p.yaml"): string => {
      const state = createEngineState();
      const rules = makeRules({ tool: "delete_item", maxCalls: sourced(2, source) });
      evaluateBudget(makeInput({ rules }), state);
      evaluateBudget(makeInput({ rules }), state);
      return evaluateBudget(makeInput({ rules }), state).denies[0]?.message ?? "";
    };
    expect(spend("heuristic")).toBe(
      'Tool "delete_item" used its budget of 2 attempts this session (max_calls: 2 from the destructive-verb heuristic, which gives a tool with a destructive verb in its name (delete, remove, drop, …) or destructiveHint: true this limit; set max_calls for the tool in a policy file to change it): every attempt counts, denied and declined ones too',
    );
    expect(spend("user:p.yaml")).toBe(
      'Tool "delete_item" used its budget of 2 attempts this session (max_calls: 2): every attempt counts, denied and declined ones too',
    );
  });

  test("evaluateBudget() lets at most max_calls of N parallel first evaluations through (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 5 }), fc.nat({ max: 20 }), async (limit, n) => {
        const state = createEngineState();
        const rules = makeRules({ maxCalls: sourced(limit) });
        const results = await Promise.all(
          Array.from({ length: n }, async () => {
            await Promise.resolve();
            return evaluateBudget(makeInput({ rules }), state);
          }),
        );
        const forwarded = results.filter((r) => r.denies.length === 0).length;
        return forwarded === Math.min(limit, n);
      }),
    );
  });

  test("evaluateBudget() matches a reference model over any sequence of attempts and re-decisions (property)", () => {
    const step = fc.record({ tool: fc.constantFrom("a", "b"), countAttempt: fc.boolean() });
    fc.assert(
      fc.property(fc.nat({ max: 3 }), fc.array(step, { maxLength: 30 }), (limit, steps) => {
        const state = createEngineState();
        const model = new Map<string, number>();
        for (const { tool, countAttempt } of steps) {
          const rules = makeRules({ tool, maxCalls: sourced(limit) });
          const denied = evaluateBudget(makeInput({ rules, countAttempt }), state).denies.length > 0;
          const used = (model.get(tool) ?? 0) + (countAttempt ? 1 : 0);
          model.set(tool, used);
          const expected = limit === 0 || (countAttempt && used > limit);
          if (denied !== expected) return false;
          if ((state.budgets.get(budgetKey("srv", tool)) ?? 0) !== used) return false;
        }
        return true;
      }),
    );
  });
});
