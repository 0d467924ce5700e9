import { describe, expect, test } from "bun:test";
import { closestKey, editDistance } from "../../src/policy/closest-key.ts";

describe("editDistance() and closestKey() (SPEC §4.2 closest key for a typo)", () => {
  test.each([
    ["action", "action", 0],
    ["acton", "action", 1],
    ["sink_parmas", "sink_params", 1],
    ["MAX_CALLS", "max_calls", 0],
    ["", "abc", 3],
  ] as const)("editDistance(%p, %p) is %p", (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
  });

  test.each([
    ["exfiltrate", "exfiltrating"],
    ["sink_param", "sink_params"],
    ["trusted_destination", "trusted_destinations"],
    ["allowed_paths_prefixes", "allowed_path_prefixes"],
    ["maxcalls", "max_calls"],
  ])("closestKey(%p) suggests %p", (word, expected) => {
    expect(
      closestKey(word, [
        "exfiltrating",
        "sink_params",
        "trusted_destinations",
        "allowed_path_prefixes",
        "max_calls",
      ]),
    ).toBe(expected);
  });

  test("closestKey() suggests nothing for a word far from every key", () => {
    expect(closestKey("color", ["exfiltrating", "sink_params"])).toBeUndefined();
  });

  test("closestKey() suggests for a short word only with fewer edits than it has letters", () => {
    // `cc` is two edits from `to` (within the limit of 2) but every letter differs: not a typo.
    expect(closestKey("cc", ["to", "subject", "body"])).toBeUndefined();
    expect(closestKey("ot", ["to"])).toBe("to");
    expect(closestKey("tp", ["to"])).toBe("to");
  });

  test("closestKey() suggests the key holding a value the word looks like", () => {
    expect(closestKey("alow", ["exfiltrating"], { valueHints: new Map([["allow", "action"]]) })).toBe(
      "action",
    );
  });
});
