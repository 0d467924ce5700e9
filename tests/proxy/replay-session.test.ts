import { describe, expect, test } from "bun:test";
import { BouncerError } from "../../src/platform/errors.ts";
import { parseSession } from "../../src/proxy/replay-session.ts";

const TOOLS =
  '{"event":"tools","server":"mail","tools":[{"name":"send_email","inputSchema":{"type":"object"}}]}';

function failure(text: string): string {
  try {
    parseSession(text, { file: "s.jsonl" });
  } catch (error) {
    expect(error).toBeInstanceOf(BouncerError);
    expect((error as BouncerError).code).toBe("SESSION_INVALID");
    return (error as BouncerError).message;
  }
  throw new Error("parseSession() accepted the text");
}

describe("parseSession()", () => {
  test("parseSession() reads server, tools and call events in file order with their line numbers", () => {
    const text = [
      '{"event":"server","server":"fs","command":["npx","server"],"cwd":"/home/me","serverInfo":{"name":"fs"}}',
      TOOLS,
      "",
      '{"event":"call","server":"mail","tool":"send_email","arguments":{"to":"x@y.example"},"result":{"content":[]},"ask":"approved"}',
      '{"event":"call","server":"mail","tool":"send_email","error":{"code":-32000,"message":"boom"}}',
    ].join("\n");
    const events = parseSession(text);
    expect(events.map((event) => [event.event, event.line])).toEqual([
      ["server", 1],
      ["tools", 2],
      ["call", 4],
      ["call", 5],
    ]);
    expect(events[2]).toMatchObject({
      tool: "send_email",
      arguments: { to: "x@y.example" },
      ask: "approved",
    });
    expect(events[3]).toMatchObject({ arguments: {}, error: { message: "boom" } });
  });

  test("parseSession() accepts a BOM, CRLF line ends and recorder fields ts and seq", () => {
    const text = `\uFEFF${TOOLS}\r\n{"event":"call","server":"mail","tool":"t","seq":3,"ts":"2026-01-01T00:00:00Z"}\r\n`;
    expect(parseSession(text)).toHaveLength(2);
  });

  test("parseSession() reads a call's seq", () => {
    const [event] = parseSession('{"event":"call","server":"s","tool":"t","seq":7}\n');
    expect(event).toMatchObject({ event: "call", seq: 7 });
  });

  test("parseSession() reads a call's ambiguous_json mark", () => {
    const [event] = parseSession(
      '{"event":"call","server":"s","tool":"t","ambiguous_json":"unsafe_integers"}\n',
      { file: "f" },
    );
    expect(event).toMatchObject({ event: "call", ambiguousJson: "unsafe_integers" });
  });

  test("parseSession() reads the run of every kind of event and refuses one that is no string", () => {
    const lines = [
      '{"event":"server","server":"s","run":"r1"}',
      '{"event":"tools","server":"s","run":"r1","tools":[]}',
      '{"event":"output","server":"s","run":"r1","method":"m","value":1}',
      '{"event":"instructions","server":"s","run":"r1","instructions":"i"}',
      '{"event":"call","server":"s","run":"r1","tool":"t"}',
    ];
    expect(parseSession(lines.join("\n")).map((event) => event.run)).toEqual(["r1", "r1", "r1", "r1", "r1"]);
    expect(() => parseSession('{"event":"call","server":"s","run":7,"tool":"t"}\n')).toThrow(
      'line 1: "run" is not a non-empty string',
    );
  });

  test("parseSession() reads a failed walk (a tools event with error) and refuses one with tools too", () => {
    const [event] = parseSession('{"event":"tools","server":"s","error":"list broken"}\n');
    expect(event).toEqual({ event: "tools", line: 1, server: "s", tools: [], error: "list broken" });
    expect(() => parseSession('{"event":"tools","server":"s","tools":[],"error":"x"}\n')).toThrow(
      'line 1: a "tools" event has "tools" or "error", not both',
    );
    expect(() => parseSession('{"event":"tools","server":"s","error":{}}\n')).toThrow(
      'line 1: "error" is not a string',
    );
  });

  test("parseSession() reads a call's live_blocked mark and refuses an unknown one, naming the line", () => {
    const [event] = parseSession('{"event":"call","server":"s","tool":"t","live_blocked":"stale_ask"}\n');
    expect(event).toMatchObject({ event: "call", liveBlocked: "stale_ask" });
    expect(() =>
      parseSession('{"event":"call","server":"s","tool":"t","live_blocked":"maybe"}\n', { file: "f" }),
    ).toThrow('Cannot read session "f": line 1: "live_blocked" is not "stale_ask"');
  });

  test("parseSession() reads an ask's remember and scope", () => {
    const [event] = parseSession(
      '{"event":"call","server":"s","tool":"t","ask":"approved","remember":false,"scope":"site"}\n',
    );
    expect(event).toMatchObject({ event: "call", ask: "approved", remember: false, scope: "site" });
  });

  test("parseSession() marks a call whose arguments repeat a key, unless the file already marks it", () => {
    const [found, marked] = parseSession(
      [
        '{"event":"call","server":"s","tool":"t","arguments":{"to":"a@x.example","to":"b@x.example"}}',
        '{"event":"call","server":"s","tool":"t","arguments":{"n":1,"n":2},"ambiguous_json":"unsafe_integers"}',
      ].join("\n"),
    );
    expect(found).toMatchObject({ arguments: { to: "b@x.example" }, ambiguousJson: "duplicate_keys" });
    expect(marked).toMatchObject({ ambiguousJson: "unsafe_integers" });
  });

  test("parseSession() keeps a __proto__ key of arguments as data", () => {
    const [event] = parseSession(
      '{"event":"call","server":"s","tool":"t","arguments":{"__proto__":{"x":1}}}',
    );
    expect(event?.event === "call" && Object.hasOwn(event.arguments, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  test.each<[string, string, string]>([
    ["invalid JSON", `${TOOLS}\n{"event":`, "line 2: invalid JSON: Unexpected EOF"],
    ["a non-object line", `${TOOLS}\n[1,2]`, "line 2: an event must be a JSON object"],
    [
      "a repeated event key",
      `${TOOLS}\n{"event":"call","event":"tools","server":"s"}`,
      'line 2: repeats the key "event"',
    ],
    ["an unknown event", '{"event":"cal","server":"s"}', 'line 1: unknown event "cal"'],
    ["a missing event", '{"server":"s"}', 'line 1: missing "event"'],
    [
      "an unknown key",
      '{"event":"call","server":"s","tool":"t","arguements":{}}',
      'unknown key "arguements"',
    ],
    ["a missing server", '{"event":"tools","tools":[]}', 'without a "server" string'],
    ["tools that are not a list", '{"event":"tools","server":"s","tools":{}}', '"tools" is not a list'],
    [
      "a tool without a name",
      '{"event":"tools","server":"s","tools":[{"description":"d"}]}',
      'tool 0 has no "name"',
    ],
    [
      "a tool with a string schema",
      '{"event":"tools","server":"s","tools":[{"name":"t","inputSchema":"x"}]}',
      '"inputSchema" is not an object',
    ],
    ["a call without a tool", '{"event":"call","server":"s"}', 'without a "tool" string'],
    [
      "list arguments",
      '{"event":"call","server":"s","tool":"t","arguments":[]}',
      '"arguments" is not an object',
    ],
    [
      "null arguments (live answers -32602)",
      '{"event":"call","server":"s","tool":"t","arguments":null}',
      '"arguments" is not an object',
    ],
    ["a result and an error", '{"event":"call","server":"s","tool":"t","result":{},"error":{}}', "not both"],
    ["a non-string ask", '{"event":"call","server":"s","tool":"t","ask":true}', '"ask" is not a string'],
    ["a fractional seq", '{"event":"call","server":"s","tool":"t","seq":1.5}', '"seq" is not a whole number'],
    ["a string seq", '{"event":"call","server":"s","tool":"t","seq":"1"}', '"seq" is not a whole number'],
    [
      "a non-boolean remember",
      '{"event":"call","server":"s","tool":"t","ask":"approved","remember":"no"}',
      '"remember" is not true or false',
    ],
    [
      "an unknown scope",
      '{"event":"call","server":"s","tool":"t","ask":"approved","scope":"whole site"}',
      '"scope" is not "url" or "site"',
    ],
    [
      "a remember without ask",
      '{"event":"call","server":"s","tool":"t","remember":true}',
      '"remember" without "ask"',
    ],
    [
      "a scope without ask",
      '{"event":"call","server":"s","tool":"t","scope":"site"}',
      '"scope" without "ask"',
    ],
    [
      "an unknown ambiguous_json",
      '{"event":"call","server":"s","tool":"t","ambiguous_json":"maybe"}',
      '"ambiguous_json" is not "duplicate_keys" or "unsafe_integers"',
    ],
    [
      "a command that is not a list of strings",
      '{"event":"server","server":"s","command":"npx x"}',
      '"command" is not a list',
    ],
  ])("parseSession() rejects %s with the line number", (_name, text, expected) => {
    const message = failure(text);
    expect(message).toStartWith('Cannot read session "s.jsonl": line ');
    expect(message).toContain(expected);
  });
});
