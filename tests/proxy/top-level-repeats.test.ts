import { describe, expect, test } from "bun:test";
import { topLevelRepeat } from "../../src/proxy/top-level-repeats.ts";

/** The repeat found in a text, parsed as the relay parses it. */
function repeatOf(text: string): ReturnType<typeof topLevelRepeat> {
  return topLevelRepeat(text, JSON.parse(text) as object);
}

describe("topLevelRepeat", () => {
  test.each([
    ['{"jsonrpc":"2.0","id":1,"result":{}}', undefined],
    ['{"jsonrpc":"2.0","id":1,"result":{"id":2,"items":[{"id":3}]}}', undefined],
    ['{"id":1,"result":{"a":1,"a":2}}', undefined],
    ['{"id":1,"result":"\\"id\\": 2, \\"id\\": 3"}', undefined],
    ['{"id":1,"result":{},"result":[]}', { key: "result", idAmbiguous: false }],
    ['{"id":50,"result":{},"id":51}', { key: "id", idAmbiguous: true }],
    ['{"id":7,"result":{},"id":7}', { key: "id", idAmbiguous: false }],
    ['{"id":7,"result":{},"\\u0069d":8}', { key: "id", idAmbiguous: true }],
    ['{"id":7,"r\\u00e9sult":1,"r\\u00e9sult":2}', { key: "résult", idAmbiguous: false }],
    ['{"a/b":1,"a\\/b":2}', { key: "a/b", idAmbiguous: false }],
    ['{ "id" : 1 , "result" : 1 , "result" : 2 }', { key: "result", idAmbiguous: false }],
  ] as const)("topLevelRepeat(%s) is %p", (text, expected) => {
    expect(repeatOf(text)).toEqual(expected);
  });

  test("topLevelRepeat() reports the first key written twice when several are", () => {
    expect(repeatOf('{"result":1,"id":1,"result":2,"id":2}')).toEqual({ key: "result", idAmbiguous: true });
  });
});
