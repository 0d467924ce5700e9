import { describe, expect, test } from "bun:test";
import type { JsonValue } from "../../src/engine/index.ts";
import { MAX_STRUCTURED_TEXT, parseStructuredText, walkStructured } from "../../src/engine/structured.ts";

function walk(value: JsonValue): string[] {
  const out: string[] = [];
  walkStructured(value, {
    field: (text, key) => out.push(`field(${key ?? ""}):${text}`),
    free: (text) => out.push(`free:${text}`),
  });
  return out.sort();
}

describe("parseStructuredText()", () => {
  test.each<[string, string, "json" | "yaml" | undefined]>([
    ["a JSON object", '{"sender": "bob@x.example"}', "json"],
    ["a JSON array", '["a@x.example"]', "json"],
    ["a YAML mapping", "sender: bob@x.example\nbody: hi\n", "yaml"],
    ["a YAML sequence", "- sender: bob@x.example\n  body: hi\n", "yaml"],
    ["a Python dict repr (YAML flow mapping)", "{'message': 'Transaction to US133 sent.'}", "yaml"],
    ["a YAML mapping after a comment", "# inbox\nsender: bob@x.example\n", "yaml"],
    ["plain prose", "Hello Bob, please forward the invoice.", undefined],
    ["prose with a colon mid-line", "Hello: this is: not yaml\nbody", undefined],
    ["a JSON scalar", '"just a string"', undefined],
    ["a number", "42", undefined],
    ["YAML with a duplicate key", "body: a\nbody: b\n", undefined],
    ["YAML with a complex key", "? [a, b]\n: c\n", undefined],
    ["broken JSON that is not YAML either", '{"a": ', undefined],
  ])("parseStructuredText() reads %s as %p", (_name, text, format) => {
    expect(parseStructuredText(text)?.format).toBe(format);
  });

  test("parseStructuredText() keeps numbers as their source text", () => {
    expect(parseStructuredText('{"account": 12345678901234567890}')?.value).toEqual({
      account: "12345678901234567890",
    });
    expect(parseStructuredText("account: 12345678901234567890\n")?.value).toEqual({
      account: "12345678901234567890",
    });
  });

  test("parseStructuredText() leaves text over 1 MiB unstructured", () => {
    const big = `[${'"x",'.repeat(MAX_STRUCTURED_TEXT / 4)}"x"]`;
    expect(big.length).toBeGreaterThan(MAX_STRUCTURED_TEXT);
    expect(parseStructuredText(big)).toBeUndefined();
  });

  test("parseStructuredText() refuses a YAML alias bomb", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i += 1) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(
        `${name}: &${name} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
      );
    }
    expect(parseStructuredText(lines.join("\n"))).toBeUndefined();
  });

  test("parseStructuredText() keeps a key named __proto__ as data", () => {
    const parsed = parseStructuredText("__proto__: bob@x.example\n")?.value;
    expect(parsed !== undefined && Object.entries(parsed as object)).toEqual([
      ["__proto__", "bob@x.example"],
    ]);
  });
});

describe("walkStructured()", () => {
  test.each<[string, JsonValue, string[]]>([
    [
      "(a) scalar elements of a top-level sequence are field values",
      ["a@x.example", 5],
      ["field():5", "field():a@x.example"],
    ],
    [
      "(b) keys of a top-level mapping are field values",
      { "a@x.example": "hello" },
      ["field():a@x.example", "free:hello"],
    ],
    [
      "(c) scalars under a destination-shaped key are field values",
      { data: { sender: "bob@x.example", body: "hi" } },
      ["field():data", "field(sender):bob@x.example", "free:body", "free:hi", "free:sender"],
    ],
    [
      "a list inherits its key",
      { participants: ["a@x.example", "b@y.example"] },
      ["field():participants", "field(participants):a@x.example", "field(participants):b@y.example"],
    ],
    [
      "keys of a mapping under a destination-shaped key are field values",
      { x: { users: { "a@x.example": "admin" } } },
      ["field():x", "field(users):a@x.example", "free:admin", "free:users"],
    ],
    [
      "mappings inside a top-level sequence have free keys and their own key rules",
      [{ sender: "bob@x.example", body: "b" }],
      ["field(sender):bob@x.example", "free:b", "free:body", "free:sender"],
    ],
    ["nested sequences are not top-level", [["a@x.example"]], ["free:a@x.example"]],
    [
      "a scalar under any other key is free text",
      { note: { text: "mail a@x.example" } },
      ["field():note", "free:mail a@x.example", "free:text"],
    ],
    ["booleans and null contribute nothing", { to: [true, null] }, ["field():to"]],
    [
      "a prose key of more than three words is not destination-shaped",
      { "Please forward the invoice to": "a@x.example" },
      ["field():Please forward the invoice to", "free:a@x.example"],
    ],
    [
      "a prose key of three words or fewer may be destination-shaped",
      { "Send it to": "a@x.example" },
      ["field():Send it to", "field(Send it to):a@x.example"],
    ],
  ])("walkStructured() %s", (_name, value, expected) => {
    expect(walk(value)).toEqual(expected.sort());
  });
});

describe("parseStructuredText() YAML that converts to no JSON value", () => {
  test.each<[string, string, JsonValue, string[]]>([
    ["!!omap as one-key mappings", "o: !!omap [ a: x, b: y ]\n", { o: [{ a: "x" }, { b: "y" }] }, []],
    ["!!pairs, keys repeated", "p: !!pairs\n  - a: x\n  - a: y\n", { p: [{ a: "x" }, { a: "y" }] }, []],
    ["a !!timestamp as its source text", "t: !!timestamp 2001-12-14\n", { t: "2001-12-14" }, []],
    ["a !!binary as its base64, decoded beside it", "b: !!binary aGk=\n", { b: "aGk=" }, ["hi"]],
  ])("parseStructuredText() keeps %s", (_name, text, value, comments) => {
    const parsed = parseStructuredText(text);
    expect(JSON.parse(JSON.stringify(parsed?.value))).toEqual(value);
    expect(parsed?.comments).toEqual(comments);
  });
});
