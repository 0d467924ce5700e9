import { describe, expect, test } from "bun:test";
import {
  budgetKey,
  type CallInput,
  compileCallRules,
  compileParamPath,
  createEngineState,
  decide,
  evaluateBudget,
  type ToolRules,
  type Verdict,
} from "../../src/engine/index.ts";
import { makeInput, makeRules, patterns, sourced } from "./core-input.ts";
import { schemaOf, sinkRules } from "./helpers.ts";

/** The rules with what a call reads compiled, as the policy module builds them. */
function compiled(rules: ToolRules): ToolRules {
  return { ...rules, compiled: compileCallRules(rules) };
}

describe("compileCallRules()", () => {
  test("compileCallRules() compiles every parameter path of write_params, arg_patterns and sink_params once, and the budget key", () => {
    const rules = makeRules({
      writeParams: sourced(["path", "files[].path"]),
      argPatterns: patterns({ path: "/w/.*", "opts.Mode": "r|w" }),
      sinkParams: [sourced("to"), sourced("to", "pack:mail"), sourced("message.cc[]")],
    });
    const { paramPaths, budgetKey: key } = compileCallRules(rules);
    expect([...paramPaths.keys()]).toEqual(["path", "files[].path", "opts.Mode", "to", "message.cc[]"]);
    for (const [text, path] of paramPaths) expect(path).toEqual(compileParamPath(text));
    expect(key).toBe(budgetKey("srv", "write_file"));
  });

  const writing = makeRules({
    writeParams: sourced(["path", "files[].path"]),
    allowedPathPrefixes: sourced(["/work"]),
    argPatterns: patterns({ mode: "r|w" }),
    maxCalls: sourced(2),
  });
  const sending = sinkRules({ sinks: ["to", "message.to"] });
  const schema = schemaOf("to", "message", "body");
  test.each<[string, ToolRules, CallInput["arguments"], Verdict]>([
    [
      "a confined write inside the prefixes",
      writing,
      { path: "/work/a", files: [{ path: "/work/b" }], mode: "r" },
      "allow",
    ],
    [
      "a confined write outside them, spelled in another case",
      writing,
      { PATH: "/etc/passwd", mode: "w" },
      "deny",
    ],
    ["an argument pattern missed", writing, { path: "/work/a", Mode: "x" }, "deny"],
    ["a list where an object is expected", writing, { files: { path: "/work/b" } }, "deny"],
    [
      "a send to declared sinks",
      sending,
      { to: "a@b.example", message: { TO: "c@d.example" }, body: "hi" },
      "ask",
    ],
  ])("decide() decides %s alike with the rules compiled and without", (_case, rules, args, verdict) => {
    const plain = createEngineState();
    const ready = createEngineState();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const withoutCompiled = decide(makeInput({ rules, arguments: args, schema }), plain);
      const withCompiled = decide(makeInput({ rules: compiled(rules), arguments: args, schema }), ready);
      expect(withCompiled).toEqual(withoutCompiled);
      // The budget of 2 denies the third attempt of the writing tool either way.
      if (attempt === 0) expect(withCompiled.verdict).toBe(verdict);
    }
    expect([...ready.budgets]).toEqual([...plain.budgets]);
  });

  test("evaluateBudget() counts the call's own server and tool when its rules were compiled for others", () => {
    const state = createEngineState();
    const rules = compiled(makeRules({ server: "other", tool: "elsewhere", maxCalls: sourced(1) }));
    const input = makeInput({ rules, server: "srv", tool: "write_file" });
    expect(evaluateBudget(input, state).denies).toEqual([]);
    expect(evaluateBudget(input, state).denies).toHaveLength(1);
    expect([...state.budgets]).toEqual([[budgetKey("srv", "write_file"), 2]]);
  });
});
