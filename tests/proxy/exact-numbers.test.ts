/**
 * The exact reading of an upstream line (SPEC §2.5, §3.1): integers beyond ±2^53 are read as the
 * string of their digits, wherever JSON writes a value; a line whose long digit runs are all inside
 * strings, or whose numbers are all safe, has none.
 */

import { describe, expect, test } from "bun:test";
import { exactMessage, exactNumbers } from "../../src/proxy/exact-numbers.ts";

describe("exactNumbers", () => {
  test.each([
    ['{"n":40000000000000000123}', { n: "40000000000000000123" }],
    ['{"n": -40000000000000000123}', { n: "-40000000000000000123" }],
    ['{"a":[1, 40000000000000000123]}', { a: [1, "40000000000000000123"] }],
    ['{"a":[40000000000000000123]}', { a: ["40000000000000000123"] }],
    ['[{"n":\t40000000000000000123}]', [{ n: "40000000000000000123" }]],
  ])("%s is read with its digits", (line, expected) => {
    expect(exactNumbers(line)).toEqual(expected);
  });

  test.each([
    ['{"id":"40000000000000000123"}'],
    ['{"text":"card 4000000000000000123 ok"}'],
    ['{"n":9007199254740991}'],
    ['{"n":1.2345678901234567}'],
    ['{"n":12345678901234567e3}'],
    ["not json 40000000000000000123"],
  ])("%s has no exact reading", (line) => {
    expect(exactNumbers(line)).toBeUndefined();
  });

  test("exactMessage picks the message of a line or of a batch element", () => {
    const batch = exactNumbers('[{"n":1},{"n":40000000000000000123}]');
    expect(exactMessage(batch, 1)).toEqual({ n: "40000000000000000123" });
    expect(exactMessage(batch)).toBeUndefined();
    expect(exactMessage(exactNumbers('{"n":40000000000000000123}'))).toEqual({ n: "40000000000000000123" });
  });
});
