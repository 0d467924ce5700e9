import { describe, expect, test } from "bun:test";
import {
  hostKey,
  hostSuffixes,
  isEmailShaped,
  isHostShaped,
  isIbanShaped,
  isPhoneShaped,
  isTokenShapedString,
} from "../../src/engine/token-shapes.ts";

describe("token shapes", () => {
  test.each<[string, (value: string) => boolean, string, boolean]>([
    ["isEmailShaped", isEmailShaped, "a.b+c@x-y.example", true],
    ["isEmailShaped", isEmailShaped, "a@localhost", false],
    ["isEmailShaped", isEmailShaped, "bob <a@x.example>", false],
    ["isPhoneShaped", isPhoneShaped, "+44 20 7946 0958", true],
    ["isPhoneShaped", isPhoneShaped, "(555) 123-4567", true],
    ["isPhoneShaped", isPhoneShaped, "123456", false],
    ["isPhoneShaped", isPhoneShaped, "1234567890123456", false],
    ["isIbanShaped", isIbanShaped, "de89 3704 0044 0532 0130 00", true],
    ["isIbanShaped", isIbanShaped, "gb33bukb20201555555555", true],
    ["isIbanShaped", isIbanShaped, "de89 3704", false],
    ["isHostShaped", isHostShaped, "evil.example", true],
    ["isHostShaped", isHostShaped, "192.168.1.1", true],
    ["isHostShaped", isHostShaped, "1.2.3", false],
    ["isTokenShapedString", isTokenShapedString, "@bob", true],
    ["isTokenShapedString", isTokenShapedString, "#general", true],
    ["isTokenShapedString", isTokenShapedString, "user-4711", true],
    ["isTokenShapedString", isTokenShapedString, "general", false],
    ["isTokenShapedString", isTokenShapedString, "riverside view hotel", false],
  ])("%s(%p) is %p", (_name, shape, value, expected) => {
    expect(shape(value)).toBe(expected);
  });

  test("hostKey() gives the punycode form of an international host", () => {
    expect(hostKey("bücher.example")).toBe("xn--bcher-kva.example");
    expect(hostKey("plain.example")).toBe("plain.example");
  });

  test("hostSuffixes() lists parent domains of two labels or more", () => {
    expect(hostSuffixes("a.b.evil.example")).toEqual(["a.b.evil.example", "b.evil.example", "evil.example"]);
    expect(hostSuffixes("10.0.0.1")).toEqual(["10.0.0.1"]);
  });
});
