import { expect, test } from "bun:test";
import fc from "fast-check";
import { urlCandidates } from "../../src/engine/later-urls.ts";

/** The scan as one regular expression wrote it (quadratic in a long run of scheme characters). */
const ORACLE_START =
  /(?<!%[0-9A-Fa-f]?)[A-Za-z][A-Za-z0-9+.-]*:\/\/|(?<![A-Za-z0-9+.-]:)\/\/(?=[\p{L}\p{N}_-]+\.)/gu;
const ORACLE_END =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the separators Python splits on
  /[\s\u0085\u001c-\u001f|,;"'`<>()[\]{}^*\u2018-\u201f\u00ab\u00bb\u2039\u203a\u300c-\u300f]/gu;

function oracle(text: string, start: number): string[] {
  const found: string[] = [];
  ORACLE_START.lastIndex = start;
  for (let m = ORACLE_START.exec(text); m !== null; m = ORACLE_START.exec(text)) {
    ORACLE_END.lastIndex = m.index;
    const stop = ORACLE_END.exec(text);
    const end = stop === null ? text.length : stop.index;
    found.push(text.slice(m.index, end));
    ORACLE_START.lastIndex = Math.max(end, m.index + 1);
  }
  return found;
}

test("urlCandidates() finds the URL starts the one regular expression found, on any text of the characters that matter", () => {
  const piece = fc.constantFrom(
    "a",
    "h",
    "c",
    "K",
    "1",
    "2",
    "%",
    "%2",
    ":",
    "/",
    "//",
    "://",
    ".",
    "-",
    "+",
    " ",
    ",",
    "x.example",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), fc.nat(4), (parts, start) => {
      const text = parts.join("");
      const from = Math.min(start, text.length);
      expect(urlCandidates(text, from)).toEqual(oracle(text, from));
    }),
    { numRuns: 3000 },
  );
});

test("urlCandidates() reads a URL after a percent escape's letters as it starts (%2chttps:// is ,https://)", () => {
  expect(urlCandidates("a%2chttps://evil.example/x", 0)).toEqual(["https://evil.example/x"]);
  expect(urlCandidates("see //evil.example/x and ftp://b.example", 0)).toEqual([
    "//evil.example/x",
    "ftp://b.example",
  ]);
});
