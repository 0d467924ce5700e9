import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  answerKey,
  applyAnswer,
  budgetKey,
  type CallInput,
  createEngineState,
  type Decision,
  decide,
  type JsonObject,
  type JsonValue,
  type PinStatus,
  type ToolRules,
} from "../../src/engine/index.ts";
import { makeInput, makeRules, patterns, sourced } from "./core-input.ts";
import { recordResult, sinkCall, sinkRules, textResult, WORKED_INBOX } from "./helpers.ts";

const changed: PinStatus = {
  kind: "changed",
  hash: "h-new",
  diff: {
    descriptionChanged: true,
    titleChanged: false,
    propertiesAdded: [],
    propertiesRemoved: [],
    schemaChanged: false,
    outputSchemaChanged: false,
    annotationsChanged: false,
  },
};
const spent = sourced(0);

function summary(decision: Decision): string {
  return `${decision.verdict}/${decision.contract}/${decision.reasons.map((r) => r.code).join(",")}`;
}

describe("decide() combination table", () => {
  test.each<[string, PinStatus, Partial<ToolRules>, string]>([
    ["allows with contract default when nothing objects", { kind: "pinned" }, {}, "allow/default/"],
    [
      "denies by pinning first when every contract denies",
      { kind: "unknown" },
      { maxCalls: spent, action: sourced("deny") },
      "deny/pinning/pin_unknown,budget_exhausted,action_denied",
    ],
    [
      "denies by budget before constraint",
      { kind: "pinned" },
      { maxCalls: spent, action: sourced("deny") },
      "deny/budget/budget_exhausted,action_denied",
    ],
    [
      "denies by constraint alone",
      { kind: "pinned" },
      { action: sourced("deny") },
      "deny/constraint/action_denied",
    ],
    [
      "lets a deny beat an ask of an earlier contract",
      changed,
      { action: sourced("deny") },
      "deny/constraint/action_denied",
    ],
    [
      "puts every question into one ask named after the first asking contract",
      changed,
      { action: sourced("ask") },
      "ask/pinning/pin_changed,action_ask",
    ],
    ["asks about a new tool", { kind: "new", hash: "h", suspicious: false }, {}, "ask/pinning/pin_new"],
  ])("decide() %s", (_rule, pin, overrides, expected) => {
    const decision = decide(makeInput({ pin, rules: makeRules(overrides) }), createEngineState());
    expect(summary(decision)).toBe(expected);
  });

  test("decide() asks once with a question per contract", () => {
    const decision = decide(
      makeInput({ pin: changed, rules: makeRules({ action: sourced("ask") }) }),
      createEngineState(),
    );
    expect(decision.verdict === "ask" && decision.questions.map((q) => q.kind)).toEqual([
      "changed_tool",
      "action",
    ]);
  });

  test.each<[string, Partial<ToolRules>, string]>([
    [
      "asks about an unclassified tool under unclassified: ask",
      { unclassified: sourced("ask") },
      "ask/sink_gate/unclassified_tool",
    ],
    [
      "allows an unclassified tool under unclassified: allow",
      { unclassified: sourced("allow") },
      "allow/default/",
    ],
  ])("decide() %s", (_rule, overrides, expected) => {
    const { exfiltrating: _classified, ...rules } = makeRules(overrides);
    expect(summary(decide(makeInput({ rules }), createEngineState()))).toBe(expected);
  });

  test("decide() says what an accept of an unclassified tool covers, with and without Remember", () => {
    const { exfiltrating: _classified, ...rules } = makeRules({ unclassified: sourced("ask") });
    const decision = decide(makeInput({ rules }), createEngineState());
    expect(decision.verdict === "ask" && decision.questions[0].message).toBe(
      'Allow tool "write_file" on server "srv", which no policy classifies? Accept allows this call; with "Remember for this session" on, also every later call of "write_file" in this session, whatever its arguments. Decline blocks this call; with Remember on, every later call of "write_file" too.',
    );
  });

  test("decide() does not ask about a classified tool under unclassified: ask", () => {
    const rules = makeRules({ unclassified: sourced("ask"), exfiltrating: sourced(false) });
    expect(decide(makeInput({ rules }), createEngineState()).verdict).toBe("allow");
  });
});

describe("decide() approvals and declines", () => {
  const askRules = makeRules({ tool: "delete_repo", action: sourced("ask") });

  test("decide() drops a question approved earlier in the session", () => {
    const state = createEngineState();
    const first = decide(makeInput({ pin: changed }), state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    applyAnswer(state, first.questions, { accepted: true, remember: true });
    const again = decide(makeInput({ pin: changed }), state);
    expect(summary(again)).toBe("allow/default/approved");
  });

  test("decide() denies a question declined earlier in the session without asking", () => {
    const state = createEngineState();
    const first = decide(makeInput({ pin: changed }), state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    applyAnswer(state, first.questions, { accepted: false, remember: true });
    expect(summary(decide(makeInput({ pin: changed }), state))).toBe("deny/pinning/ask_declined");
  });

  test("decide() honours one-time approvals on the re-decision and asks again on the next request", () => {
    const state = createEngineState();
    const first = decide(makeInput({ rules: askRules }), state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    const oneTimeApprovals = first.questions.map((q) => answerKey(q));
    applyAnswer(state, first.questions, { accepted: true, remember: false });
    const redecided = decide(makeInput({ rules: askRules, countAttempt: false, oneTimeApprovals }), state);
    expect(redecided.verdict).toBe("allow");
    expect(decide(makeInput({ rules: askRules }), state).verdict).toBe("ask");
  });

  test("decide() asks action: ask on every call even after a remembered approval", () => {
    const state = createEngineState();
    const first = decide(makeInput({ rules: askRules }), state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    applyAnswer(state, first.questions, { accepted: true, remember: true });
    expect(decide(makeInput({ rules: askRules }), state).verdict).toBe("ask");
  });

  test("decide() denies a repeat of a declined action: ask, and asks again for other arguments", () => {
    const state = createEngineState();
    const first = decide(makeInput({ rules: askRules, arguments: { repo: "a" } }), state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    applyAnswer(state, first.questions, { accepted: false, remember: true });
    expect(summary(decide(makeInput({ rules: askRules, arguments: { repo: "a" } }), state))).toBe(
      "deny/constraint/ask_declined",
    );
    expect(decide(makeInput({ rules: askRules, arguments: { repo: "b" } }), state).verdict).toBe("ask");
  });
  test("decide() never lets a destination's approval approve a changed tool of the same key", () => {
    // An argument named "" holding the new definition's hash is a destination whose key was the
    // changed-tool question's key ([server, tool, "", hash]): approving it re-approved the tool.
    const state = createEngineState();
    const rules = sinkRules({ sinks: ["to"], trusted: ["boss@corp.example"] });
    const first = decide(sinkCall(rules, { to: "boss@corp.example", "": "h-new" }), state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    applyAnswer(state, first.questions, { accepted: true, remember: true });
    const rugPull = decide(sinkCall(rules, { to: "boss@corp.example" }, { pin: changed }), state);
    expect(summary(rugPull)).toBe("ask/pinning/pin_changed");
  });

  test("decide() asks a changed tool's and a destination's question of the same key both", () => {
    const rules = sinkRules({ sinks: ["to"], trusted: ["boss@corp.example"] });
    const input = sinkCall(rules, { to: "boss@corp.example", "": "h-new" }, { pin: changed });
    const decision = decide(input, createEngineState());
    expect(decision.verdict === "ask" && decision.questions.map((q) => q.kind)).toEqual([
      "changed_tool",
      "destination",
    ]);
  });
});

describe("decide() budgets", () => {
  test("decide() counts the attempt once even when pinning denies", () => {
    const state = createEngineState();
    const rules = makeRules({ maxCalls: sourced(1) });
    expect(decide(makeInput({ rules, pin: { kind: "unknown" } }), state).verdict).toBe("deny");
    expect(state.budgets.get(budgetKey("srv", "write_file"))).toBe(1);
    expect(summary(decide(makeInput({ rules }), state))).toBe("deny/budget/budget_exhausted");
  });

  test("decide() does not count the re-decision after an approval", () => {
    const state = createEngineState();
    const rules = makeRules({ maxCalls: sourced(1), action: sourced("ask") });
    const first = decide(makeInput({ rules }), state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    const oneTimeApprovals = first.questions.map((q) => answerKey(q));
    expect(decide(makeInput({ rules, countAttempt: false, oneTimeApprovals }), state).verdict).toBe("allow");
    expect(state.budgets.get(budgetKey("srv", "write_file"))).toBe(1);
  });

  test("decide() forwards at most max_calls of N calls (property)", () => {
    fc.assert(
      fc.property(fc.nat({ max: 4 }), fc.nat({ max: 12 }), (limit, n) => {
        const state = createEngineState();
        const rules = makeRules({ maxCalls: sourced(limit) });
        const allowed = Array.from({ length: n }, () => decide(makeInput({ rules }), state)).filter(
          (d) => d.verdict === "allow",
        ).length;
        return allowed <= limit && allowed === Math.min(limit, n);
      }),
    );
  });
});

describe("decide() errors deny", () => {
  test("decide() denies with internal_error when reading an argument throws", () => {
    const args: JsonObject = {};
    Object.defineProperty(args, "path", {
      enumerable: true,
      get(): never {
        throw new Error("hostile getter");
      },
    });
    const rules = makeRules({ writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["./out"]) });
    const decision = decide(makeInput({ rules, arguments: args }), createEngineState());
    expect(decision.verdict).toBe("deny");
    expect(decision.contract).toBe("constraint");
    expect(decision.reasons[0]?.code).toBe("internal_error");
  });

  const ruleSets = fc.record({
    action: fc.constantFrom<"allow" | "ask">("allow", "ask"),
    writeParams: fc.boolean(),
    pattern: fc.boolean(),
    exfiltrating: fc.boolean(),
  });

  function rulesFrom(r: {
    action: "allow" | "ask";
    writeParams: boolean;
    pattern: boolean;
    exfiltrating: boolean;
  }): ToolRules {
    return makeRules({
      action: sourced(r.action),
      exfiltrating: sourced(r.exfiltrating),
      ...(r.writeParams ? { writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["./out"]) } : {}),
      ...(r.pattern ? { argPatterns: patterns({ mode: "read|write" }) } : {}),
    });
  }

  test("decide() denies whenever evaluating the call throws (property)", () => {
    fc.assert(
      fc.property(
        ruleSets,
        fc.dictionary(fc.constantFrom("path", "mode", "to", "x"), fc.jsonValue()),
        (r, base) => {
          let touched = false;
          const hostile = new Proxy(base as JsonObject, {
            get(target, key, receiver): unknown {
              if (typeof key === "string") {
                touched = true;
                throw new Error("hostile argument");
              }
              return Reflect.get(target, key, receiver);
            },
          });
          const decision = decide(
            makeInput({ rules: rulesFrom(r), arguments: hostile }),
            createEngineState(),
          );
          return !touched || decision.verdict === "deny";
        },
      ),
    );
  });

  test("decide() denies every path when the resolver throws (property)", () => {
    fc.assert(
      fc.property(fc.string(), (path) => {
        const rules = makeRules({ writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["/"]) });
        const input: CallInput = makeInput({
          rules,
          arguments: { path },
          paths: {
            cwd: "/work",
            home: "/home/u",
            platform: "posix",
            resolve: (): readonly string[] => {
              throw new Error("resolver failed");
            },
          },
        });
        return decide(input, createEngineState()).verdict === "deny";
      }),
    );
  });

  test("decide() never turns a denied call into an allowed one when arguments are added (property)", () => {
    const schema: JsonObject = { type: "object", properties: { path: {}, mode: {}, to: {} } };
    fc.assert(
      fc.property(
        ruleSets,
        fc.dictionary(fc.constantFrom("path", "mode", "to"), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }),
        (r, base, extra) => {
          const rules = rulesFrom(r);
          const args = base as JsonObject;
          const before = decide(makeInput({ rules, schema, arguments: args }), createEngineState());
          fc.pre(before.verdict === "deny");
          const added: JsonObject = { ...args };
          for (const [key, value] of Object.entries(extra)) {
            if (!Object.hasOwn(added, key))
              Object.defineProperty(added, key, { value: value as JsonValue, enumerable: true });
          }
          return (
            decide(makeInput({ rules, schema, arguments: added }), createEngineState()).verdict !== "allow"
          );
        },
      ),
    );
  });

  test("decide() never turns a deny into an allow when a restricting rule is added (property)", () => {
    const schema: JsonObject = { type: "object", properties: { path: {}, mode: {}, to: {} } };
    const restriction = fc.constantFrom<(rules: ToolRules) => ToolRules>(
      (rules) => ({ ...rules, action: sourced("deny") }),
      (rules) => ({ ...rules, action: sourced("ask") }),
      (rules) => ({ ...rules, maxCalls: sourced(0) }),
      (rules) => ({ ...rules, writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["./out"]) }),
      (rules) => ({
        ...rules,
        argPatterns: sourced(new Map([...(rules.argPatterns?.value ?? []), ["to", /^(?:[a-z]+)$/u]])),
      }),
      (rules) => ({ ...rules, exfiltrating: sourced(true), sinkParams: [sourced("to")] }),
    );
    fc.assert(
      fc.property(
        ruleSets,
        restriction,
        fc.dictionary(fc.constantFrom("path", "mode", "to"), fc.jsonValue()),
        (r, add, base) => {
          const args = base as JsonObject;
          const rules = rulesFrom(r);
          const before = decide(makeInput({ rules, schema, arguments: args }), createEngineState());
          const after = decide(
            makeInput({ rules: add(rules), schema, arguments: args }),
            createEngineState(),
          );
          return before.verdict === "allow" || after.verdict !== "allow";
        },
      ),
    );
  });
});

describe("decide() with the sink gate", () => {
  test("decide() runs the worked example of SPEC §2.6: allow, deny, ask, ask then allow once approved", () => {
    const state = createEngineState();
    const rules = sinkRules({ sinks: ["to", "cc", "bcc"], trusted: ["boss@corp.example"] });
    recordResult(state, { tool: "read_inbox", seq: 1, value: textResult(WORKED_INBOX) });
    const send = (to: string): Decision =>
      decide(sinkCall(rules, { to, subject: "Invoice", body: "x" }), state);
    expect(summary(send("boss@corp.example"))).toBe("allow/default/");
    expect(send("Attacker@Evil.example ").verdict).toBe("deny");
    expect(send("Attacker@Evil.example ").contract).toBe("sink_gate");
    expect(send("bob@partner.example").verdict).toBe("ask");
    const unproven = send("new.partner@other.example");
    if (unproven.verdict !== "ask") throw new Error("expected an ask");
    applyAnswer(state, unproven.questions, { accepted: true, remember: true });
    expect(send("new.partner@other.example").verdict).toBe("allow");
  });

  test("decide() asks once naming both addresses of an object-valued sink, and allows once both are approved", () => {
    const state = createEngineState();
    const rules = sinkRules({ sinks: ["to"] });
    const input = sinkCall(rules, { to: { a: "ann@one.example", b: "ben@two.example" }, body: "x" });
    const first = decide(input, state);
    if (first.verdict !== "ask") throw new Error("expected an ask");
    const messages = first.questions.map((q) => q.message).join("\n");
    expect(messages).toContain("ann@one.example");
    expect(messages).toContain("ben@two.example");
    applyAnswer(state, first.questions, { accepted: true, remember: true });
    expect(decide(input, state).verdict).toBe("allow");
  });

  test("decide() lets a pinning deny name the decision while the sink gate also objects", () => {
    const state = createEngineState();
    recordResult(state, { tool: "read_inbox", seq: 1, value: textResult(WORKED_INBOX) });
    const input = sinkCall(
      sinkRules({ sinks: ["to"] }),
      { to: "attacker@evil.example" },
      { pin: { kind: "unknown" } },
    );
    const decision = decide(input, state);
    expect(decision.contract).toBe("pinning");
    expect(decision.reasons.map((r) => r.code)[0]).toBe("pin_unknown");
    expect(decision.reasons.length).toBeGreaterThan(1);
  });
});
