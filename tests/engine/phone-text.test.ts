import { describe, expect, test } from "bun:test";
import { phoneKeys } from "../../src/engine/phone-iban-keys.ts";
import { asciiPhoneText } from "../../src/engine/phone-text.ts";
import { isPhoneShaped } from "../../src/engine/token-shapes.ts";

describe("asciiPhoneText()", () => {
  test.each([
    ["+1\u2013555\u2013123\u20134567", "+1-555-123-4567"],
    ["+1\u2011555 \u2212 123", "+1-555 - 123"],
    ["\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669", "0123456789"],
    ["\u06f0\u06f9 \u0966\u096f \u0e50\u0e59", "09 09 09"],
    ["plain ascii 555-123", "plain ascii 555-123"],
  ])("asciiPhoneText(%p) folds digits and dashes in place", (text, folded) => {
    expect(asciiPhoneText(text)).toBe(folded);
    expect(asciiPhoneText(text).length).toBe(text.length);
  });

  test("asciiPhoneText() leaves letters and other punctuation as they are", () => {
    expect(asciiPhoneText("caf\u00e9 \u2014 ok")).toBe("caf\u00e9 - ok");
    expect(asciiPhoneText("\u00e9/\u3002")).toBe("\u00e9/\u3002");
  });

  test("isPhoneShaped() and phoneKeys() read another script's digits as the number", () => {
    const arabic = "+1 \u0665\u0665\u0665 \u0661\u0662\u0663 \u0664\u0665\u0666\u0667";
    expect(isPhoneShaped(arabic)).toBe(true);
    expect(phoneKeys(arabic)).toEqual(["+15551234567", "tel-tail:551234567"]);
  });
});
