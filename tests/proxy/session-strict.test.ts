import { describe, expect, test } from "bun:test";
import type { AmbiguousJson } from "../../src/audit/index.ts";
import { strictLine } from "../../src/proxy/session-strict.ts";
import { checkStrictJson } from "../../src/proxy/strict-json.ts";

/** strictLine() of a text, parsed as parseSession() parses it. */
function look(text: string): ReturnType<typeof strictLine> {
  return strictLine(text, JSON.parse(text));
}

/** A call line with the given arguments text. */
const callWith = (args: string): string =>
  `{"event":"call","server":"mail","tool":"send_email","arguments":${args}}`;

/** Arguments nesting `levels` levels, the arguments object included. */
const nested = (levels: number): string => `{"x":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;

describe("strictLine()", () => {
  test.each<[string, string, string]>([
    [
      "a repeated event key",
      '{"event":"tools","event":"call","server":"s","tool":"t"}',
      'repeats the key "event"',
    ],
    [
      "a repeated arguments key",
      callWith('{"to":"a@x.example"},"arguments":{}'),
      'repeats the key "arguments"',
    ],
    [
      "a key repeated in a result",
      '{"event":"call","server":"s","tool":"t","result":{"content":[],"content":[]}}',
      '"result" repeats an object key',
    ],
    [
      "a key repeated in a tool definition",
      '{"event":"tools","server":"s","tools":[{"name":"a","name":"b"}]}',
      '"tools" repeats an object key',
    ],
  ])("strictLine() finds %s malformed", (_name, text, problem) => {
    expect(look(text)).toEqual({ kind: "malformed", problem });
  });

  test.each<[string, string, AmbiguousJson | undefined]>([
    ["a key repeated in the arguments", '{"to":"evil@x.example","to":"boss@corp.example"}', "duplicate_keys"],
    ["a key repeated deep in the arguments", '{"m":{"cc":[{"to":"a","to":"b"}]}}', "duplicate_keys"],
    ["an integer beyond 2^53", '{"n":9007199254740993}', "unsafe_integers"],
    ["plain arguments", '{"to":"boss@corp.example","n":9007199254740991}', undefined],
  ])("strictLine() reads a call with %s as ambiguous: %p", (_name, args, ambiguous) => {
    expect(look(callWith(args))).toEqual(
      ambiguous === undefined ? { kind: "ok" } : { kind: "ok", ambiguous },
    );
  });

  test("strictLine() finds arguments too deep exactly where the live proxy finds the tools/call too deep", () => {
    for (const levels of [997, 998, 999, 1000, 1001]) {
      const args = nested(levels);
      const message = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":${args}}}`;
      const live = checkStrictJson(message).tooDeep;
      expect([levels, look(callWith(args))]).toEqual([
        levels,
        live ? { kind: "ok", ambiguous: "too_deep" } : { kind: "ok" },
      ]);
    }
    expect(look(callWith(nested(998)))).toEqual({ kind: "ok" });
    expect(look(callWith(nested(999)))).toEqual({ kind: "ok", ambiguous: "too_deep" });
  });

  test("strictLine() accepts what --record writes outside arguments: rounded big integers and deep results", () => {
    const result = `{"content":[],"structuredContent":{"n":12345678901234567000,"deep":${nested(1500)}}}`;
    expect(look(`{"event":"call","server":"s","tool":"t","arguments":{},"result":${result}}`)).toEqual({
      kind: "ok",
    });
  });
});
