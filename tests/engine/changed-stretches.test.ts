import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { changedStretches } from "../../src/engine/changed-stretches.ts";

/** The partner rebuilt from the line: shared text between the stretches, the partner's text in them. */
function rebuild(text: readonly string[], partner: readonly string[]): string {
  let out = "";
  let at = 0;
  let partnerAt = 0;
  for (const stretch of changedStretches(text, partner)) {
    // What lies between stretches is the same on both sides.
    expect(text.slice(at, stretch.from).join("")).toBe(
      partner.slice(partnerAt, stretch.partnerFrom).join(""),
    );
    out +=
      text.slice(at, stretch.from).join("") + partner.slice(stretch.partnerFrom, stretch.partnerTo).join("");
    at = stretch.to;
    partnerAt = stretch.partnerTo;
  }
  return out + text.slice(at).join("");
}

describe("changedStretches()", () => {
  test.each<[string, string, string, [string, string][]]>([
    ["one changed letter", "a city", "a City", [["c", "C"]]],
    ["nothing for equal lines", "same", "same", []],
    ["an insertion as an empty stretch of the line", "ab", "aXb", [["", "X"]]],
    [
      "two edits apart",
      "abcdef",
      "azcdyf",
      [
        ["b", "z"],
        ["e", "y"],
      ],
    ],
  ])("changedStretches() finds %s", (_rule, text, partner, expected) => {
    const a = Array.from(text);
    const b = Array.from(partner);
    const found = changedStretches(a, b).map((s) => [
      a.slice(s.from, s.to).join(""),
      b.slice(s.partnerFrom, s.partnerTo).join(""),
    ]);
    expect(found).toEqual(expected);
  });

  test("changedStretches() stretches, applied to the line, give the partner (shared text between them)", () => {
    const line = fc.array(fc.constantFrom("a", "b", "c", " ", "\u{1f600}"), { maxLength: 30 });
    fc.assert(
      fc.property(line, line, (text, partner) => {
        expect(rebuild(text, partner)).toBe(partner.join(""));
      }),
    );
  });

  test("changedStretches() stays bounded on two long unrelated lines: the whole middle is one stretch", () => {
    const random = (seed: number): string[] => {
      let state = seed;
      return Array.from({ length: 20_000 }, () => {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        return (state >> 16) % 2 === 0 ? "a" : "b";
      });
    };
    const text = ["<", "x", ...random(1), "x", ">"];
    const partner = ["<", "y", ...random(7), "y", ">"];
    expect(changedStretches(text, partner)).toEqual([
      { from: 1, to: 20_003, partnerFrom: 1, partnerTo: 20_003 },
    ]);
  });
});
