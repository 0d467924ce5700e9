import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  findIdSpan,
  findUniqueIdSpan,
  scanTopLevel,
  spliceSpan,
  stringEnd,
} from "../../src/proxy/json-scan.ts";
import { repeatsAKey } from "../../src/proxy/strict-json.ts";

function idText(text: string): string | undefined {
  const span = findIdSpan(text);
  return span === undefined ? undefined : text.slice(span.start, span.end);
}

describe("json-scan", () => {
  test.each([
    ["id first", '{"id":7,"method":"x"}', "7"],
    ["id last (SDK order)", '{"method":"x","params":{"id":1},"jsonrpc":"2.0","id":"a\\"b"}', '"a\\"b"'],
    ["id after a nested id", '{"result":{"id":99,"list":[{"id":98}]},"id":0}', "0"],
    ["string id that looks numeric", '{"jsonrpc":"2.0","id":"42","result":{}}', '"42"'],
    ["id with whitespace", '{ "jsonrpc" : "2.0" , "id" : 12 , "result" : { } }', "12"],
    ["escaped key spelling id", '{"\\u0069d":5,"result":{}}', "5"],
    ["strings holding braces and quotes", '{"result":{"t":"}{\\"id\\":3}"},"id":4}', "4"],
    ["no id", '{"jsonrpc":"2.0","method":"notifications/initialized"}', undefined],
    ["id only nested", '{"method":"x","params":{"id":3}}', undefined],
  ] as const)("findIdSpan() finds the top-level id: %s", (_name, text, expected) => {
    expect(idText(text)).toBe(expected);
    const unique = findUniqueIdSpan(text);
    expect(unique === undefined ? undefined : text.slice(unique.start, unique.end)).toBe(expected);
  });

  test("findUniqueIdSpan() finds the id where scanTopLevel does, in any member order, on texts that repeat no key", () => {
    const member = fc.oneof(
      fc.constantFrom('"method":"tools/call"', '"params":{"id":1,"name":"x"}', '"result":{"t":"\\"id\\":9"}'),
      fc.constant('"jsonrpc":"2.0"'),
    );
    const id = fc.constantFrom("0", "-12", "3.5e2", '"a"', '"\\"x\\""', '"42"', "17");
    const text = fc
      .tuple(fc.uniqueArray(member, { maxLength: 3 }), id, fc.nat(3), fc.constantFrom("", " ", "\n"))
      .map(([members, value, at, space]) => {
        const all: string[] = [...members];
        all.splice(Math.min(at, all.length), 0, `"id"${space}:${space}${value}`);
        return `${space}{${space}${all.join(`,${space}`)}${space}}`;
      })
      .filter((candidate) => !repeatsAKey(candidate, JSON.parse(candidate)));
    fc.assert(
      fc.property(text, (candidate) => {
        expect(findUniqueIdSpan(candidate)).toEqual(scanTopLevel(candidate)?.members.get("id"));
      }),
      { numRuns: 1000 },
    );
  });

  test("findIdSpan() returns the last of repeated top-level ids, as JSON.parse keeps", () => {
    const text = '{"id":1,"result":{},"id":2}';
    expect(idText(text)).toBe("2");
    expect(scanTopLevel(text)?.duplicateKey).toBe(true);
  });

  test("scanTopLevel() names the first top-level key written twice (decoded), and none when none is", () => {
    expect(scanTopLevel('{"a":1,"b":{"x":1,"x":2},"\\u0062":3,"a":4}')?.repeatedKey).toBe("b");
    expect(scanTopLevel('{"a":1,"b":{"x":1,"x":2}}')?.repeatedKey).toBeUndefined();
  });

  test("scanTopLevel() reports members of a truncated head with partial", () => {
    const head = '{"jsonrpc":"2.0","id":41,"result":{"content":[{"type":"te';
    const top = scanTopLevel(head, { partial: true });
    expect(top?.complete).toBe(false);
    expect([...(top?.members.keys() ?? [])]).toEqual(["jsonrpc", "id"]);
    expect(top?.cutKey).toBe("result");
    expect(scanTopLevel(head)).toBeUndefined();
  });

  test("scanTopLevel() returns undefined for a non-object", () => {
    expect(scanTopLevel("[1,2]")).toBeUndefined();
    expect(scanTopLevel('"id"')).toBeUndefined();
  });

  test("spliceSpan() replaces only the id and keeps every other byte", () => {
    const text = '{"result":{"n":12345678901234567890,"s":"ü"},"jsonrpc":"2.0","id":"orig"}';
    const span = findIdSpan(text);
    expect(span).toBeDefined();
    if (span === undefined) return;
    expect(spliceSpan(text, span, "17")).toBe(
      '{"result":{"n":12345678901234567890,"s":"ü"},"jsonrpc":"2.0","id":17}',
    );
  });

  test.each([
    ['"abc"', 5],
    ['"a\\"b"', 6],
    ['"a\\\\"', 5],
    ['"unterminated', -1],
  ] as const)("stringEnd() skips the string %s", (text, expected) => {
    expect(stringEnd(text, 0)).toBe(expected);
  });
});
