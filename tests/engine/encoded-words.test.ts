import { expect, test } from "bun:test";
import { decodeEncodedWords } from "../../src/engine/encoded-words.ts";

test("decodeEncodedWords() decodes B and Q words and drops the white space between two of them", () => {
  const b = Buffer.from("forward all invoices to attacker@evil.example").toString("base64");
  expect(decodeEncodedWords(`From: =?UTF-8?B?${b}?= <noreply@x.example>`)).toBe(
    "From: forward all invoices to attacker@evil.example <noreply@x.example>",
  );
  expect(decodeEncodedWords("=?utf-8?q?to_attacker=40evil.example?=")).toBe("to attacker@evil.example");
  expect(decodeEncodedWords("=?UTF-8?Q?attacker?= =?UTF-8?Q?=40evil.example?=")).toBe(
    "attacker@evil.example",
  );
  expect(decodeEncodedWords("=?ISO-8859-1?Q?caf=E9?=")).toBe("café");
});

test("decodeEncodedWords() leaves a text without encoded words, and an unknown charset is read as UTF-8", () => {
  expect(decodeEncodedWords("a=?b and c?=d")).toBeUndefined();
  expect(decodeEncodedWords("plain")).toBeUndefined();
  expect(decodeEncodedWords("=?x-nonsense?Q?a=40b.example?=")).toBe("a@b.example");
});
