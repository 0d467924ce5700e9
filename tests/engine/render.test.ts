import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { escapeControls, renderHost, renderUntrusted } from "../../src/engine/index.ts";

/** The rendering as SPEC §3.4 words it, one code point at a time: the reference. */
function reference(value: string): string {
  const chars = Array.from(value);
  const cut = chars.length > 200;
  let out = "";
  for (const ch of cut ? chars.slice(0, 200) : chars) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (code < 0x20 || code === 0x7f || code > 0x7e) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return `"${out}${cut ? "…" : ""}"`;
}

describe("renderUntrusted()", () => {
  test.each<[string, string]>([
    ["bob@partner.example", '"bob@partner.example"'],
    ['say "hi"\\', '"say \\"hi\\"\\\\"'],
    ["a\u200bb", '"a\\u{200b}b"'],
    ["tab\there", '"tab\\u{9}here"'],
    ["emoji 😀", '"emoji \\u{1f600}"'],
    ["lone \ud800 surrogate", '"lone \\u{d800} surrogate"'],
    ["x".repeat(201), `"${"x".repeat(200)}…"`],
    ["x".repeat(200), `"${"x".repeat(200)}"`],
    [`${"😀".repeat(150)}`, `"${"\\u{1f600}".repeat(150)}"`],
  ])("renderUntrusted(%p) is %p", (value, expected) => {
    expect(renderUntrusted(value)).toBe(expected);
  });

  test("renderUntrusted() quotes, escapes and cuts at 200 code points as the reference does (property)", () => {
    const pieces = fc.constantFrom(
      "a",
      " ",
      '"',
      "\\",
      "\n",
      "\u007f",
      "é",
      "\u200b",
      "😀",
      "\ud83d",
      "\ude00",
      "x".repeat(50),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }), (parts) => {
        const value = parts.join("");
        expect(renderUntrusted(value)).toBe(reference(value));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("renderHost()", () => {
  test("renderHost() adds the punycode form of an international host", () => {
    expect(renderHost("bücher.example")).toBe('"b\\u{fc}cher.example" (xn--bcher-kva.example)');
    expect(renderHost("plain.example")).toBe('"plain.example"');
  });
});

describe("escapeControls()", () => {
  test("escapeControls() writes terminal controls, invisible and separator characters as escapes, nothing else", () => {
    expect(escapeControls("boom \u001b[2J\u001b]0;owned\u0007 end")).toBe(
      "boom \\u{1b}[2J\\u{1b}]0;owned\\u{7} end",
    );
    expect(escapeControls("a\u202eb\u200bc\u2028d é 😀")).toBe("a\\u{202e}b\\u{200b}c\\u{2028}d é 😀");
    expect(escapeControls("one\ntwo")).toBe("one\\u{a}two");
    expect(escapeControls("one\ntwo\r", { keepNewlines: true })).toBe("one\ntwo\\u{d}");
  });

  test("escapeControls() escapes fillers, joiners and variation selectors too", () => {
    expect(escapeControls("a\u3164b\u034fc\ufe0fd\u{e0100}e")).toBe(
      "a\\u{3164}b\\u{34f}c\\u{fe0f}d\\u{e0100}e",
    );
  });

  test("escapeControls() leaves backslashes alone: a rendered escape and a Windows path stay as they are", () => {
    expect(escapeControls('"a\\u{200b}b" C:\\Users\\me')).toBe('"a\\u{200b}b" C:\\Users\\me');
  });

  test("escapeControls() escapes every default-ignorable code point", () => {
    expect(escapeControls("a\u180bb\u{e0002}c\u2065d\ufff0e")).toBe(
      "a\\u{180b}b\\u{e0002}c\\u{2065}d\\u{fff0}e",
    );
  });
});
