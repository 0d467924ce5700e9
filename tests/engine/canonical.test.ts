import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decodeHtmlEntities, percentDecode } from "../../src/engine/canonical.ts";
import { canonicalize } from "../../src/engine/index.ts";

describe("percentDecode()", () => {
  test.each<[string, string, string]>([
    ["decodes an encoded @", "a%40b.example", "a@b.example"],
    ["decodes UTF-8 sequences", "%C3%A9t%C3%A9", "été"],
    ["leaves a sequence that is not hexadecimal", "100%zz", "100%zz"],
    ["leaves a lone continuation byte as written", "a%80b", "a%80b"],
    ["leaves a truncated UTF-8 sequence as written", "a%C3", "a%C3"],
    ["leaves an overlong encoding as written", "%C0%AF", "%C0%AF"],
    ["decodes the valid part of a run and keeps the invalid part", "%FF%41", "%FFA"],
    ["undoes nested encodings", "a%2540b", "a@b"],
    ["decodes %2f inside a URL", "https://x.example%2f@y.example", "https://x.example/@y.example"],
  ])("percentDecode() %s", (_name, input, expected) => {
    expect(percentDecode(input)).toBe(expected);
  });
});

describe("decodeHtmlEntities()", () => {
  test.each<[string, string, string]>([
    ["decodes a decimal reference", "a&#64;b", "a@b"],
    ["decodes a hexadecimal reference", "a&#x40;b", "a@b"],
    ["decodes a named reference", "a&commat;b", "a@b"],
    ["decodes nested &amp;", "a&amp;#64;b", "a@b"],
    ["leaves an unknown name", "&bogus;", "&bogus;"],
    ["leaves a surrogate code point", "&#xD800;", "&#xD800;"],
    ["decodes references with leading zeros, as HTML does", "a&#00000000064;b&#x000000040;c", "a@b@c"],
  ])("decodeHtmlEntities() %s", (_name, input, expected) => {
    expect(decodeHtmlEntities(input)).toBe(expected);
  });
});

describe("canonicalize()", () => {
  test.each<[string, string, { output?: boolean; destination?: boolean }, string]>([
    ["lower-cases and trims", "  Attacker@Evil.Example ", { destination: true }, "attacker@evil.example"],
    ["collapses whitespace", "Riverside\t\n View   Hotel", {}, "riverside view hotel"],
    ["applies NFKC (fullwidth letters)", "ａｔｔａｃｋｅｒ", {}, "attacker"],
    ["removes zero-width characters", "att\u200backer@evil\u200d.example", {}, "attacker@evil.example"],
    [
      "removes every default-ignorable code point",
      "att\u180backer@ev\u{e0002}il\u2065.exa\ufff0mple\u180d",
      {},
      "attacker@evil.example",
    ],
    ["removes bidi controls", "\u202eattacker@evil.example\u202c", {}, "attacker@evil.example"],
    ["removes tag characters", "a\u{e0041}b", {}, "ab"],
    ["removes a soft hyphen", "at\u00adtacker", {}, "attacker"],
    ["percent-decodes", "attacker%40evil.example", {}, "attacker@evil.example"],
    [
      "decodes HTML entities in output",
      "attacker&#64;evil.example",
      { output: true },
      "attacker@evil.example",
    ],
    [
      "keeps HTML entities in destinations",
      "attacker&#64;evil.example",
      { destination: true },
      "attacker&#64;evil.example",
    ],
    [
      "strips a leading mailto: of a destination",
      "MAILTO:bob@x.example",
      { destination: true },
      "bob@x.example",
    ],
    [
      "strips every mailto: in output",
      "write mailto:bob@x.example now",
      { output: true },
      "write bob@x.example now",
    ],
    ["reduces Name <addr> for destinations", "Bob <Bob@X.example>", { destination: true }, "bob@x.example"],
    [
      "reduces a display name mixing words and quotes",
      'Bob "B" <Bob@X.example>',
      { destination: true },
      "bob@x.example",
    ],
    ["reduces a quoted display name", '"Smith, Bob" <bob@x.example>', { destination: true }, "bob@x.example"],
    [
      "reduces Name <mailto:addr> over two rounds",
      "Bob <mailto:bob@x.example>",
      { destination: true },
      "bob@x.example",
    ],
    ["keeps empty angle brackets of a destination", "< >", { destination: true }, "< >"],
    ["keeps Name <addr> in output", "Bob <bob@x.example>", { output: true }, "bob <bob@x.example>"],
    ["undoes encodings hidden behind NFKC", "a％40b", {}, "a@b"],
  ])("canonicalize() %s", (_name, input, options, expected) => {
    expect(canonicalize(input, options)).toBe(expected);
  });

  /** One layer of hiding: percent-encode the UTF-8 bytes, then write the result in fullwidth forms. */
  function layer(text: string): string {
    const encoded = [...new TextEncoder().encode(text)].map(
      (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    );
    return [...encoded.join("")]
      .map((ch) => String.fromCodePoint((ch.codePointAt(0) ?? 0) + 0xfee0))
      .join("");
  }

  test("canonicalize() undoes layered percent and fullwidth encodings within three rounds", () => {
    expect(canonicalize(layer("a"))).toBe("a");
    expect(canonicalize(layer(layer("a")))).toBe("a");
  });

  test.each([
    [
      "a colour code glued to an address",
      "Send to \u001b[1mattacker@evil.example\u001b[0m now",
      "send to attacker@evil.example now",
    ],
    ["a cursor escape", "x\u001bMy \u001b[2Jz", "xy z"],
    [
      "a hyperlink (its URL stays, apart)",
      "\u001b]8;;https://evil.example\u0007here\u001b]8;;\u001b\\",
      "8;;https://evil.example here 8;;",
    ],
  ])(
    "canonicalize() removes terminal escape sequences as a terminal shows the text: %s",
    (_name, text, expected) => {
      expect(canonicalize(text, { output: true })).toBe(expected);
      expect(canonicalize(text, { destination: true })).toBe(expected);
    },
  );

  test("canonicalize() stops after three rounds", () => {
    expect(canonicalize(layer(layer(layer("a"))))).toBe("%61");
  });

  const pieces = fc.constantFrom(
    "a",
    "B",
    "@",
    ".",
    " ",
    "\t",
    "%",
    "%4",
    "%40",
    "%25",
    "%C3",
    "%A9",
    "&#64;",
    "&amp;",
    "&",
    "#",
    ";",
    "\u200b",
    "\u202e",
    "\u00ad",
    "ｍａｉｌｔｏ：",
    "mailto:",
    "MAILTO:",
    "<",
    ">",
    '"',
    "x@y.example",
    "\u2024",
    "ﬁ",
    "Å",
    "\ufe0f",
    "％",
    "４",
  );
  const texts = fc.array(pieces, { maxLength: 24 }).map((parts) => parts.join(""));

  test.each<[string, { output?: boolean; destination?: boolean }]>([
    ["plain", {}],
    ["output", { output: true }],
    ["destination", { destination: true }],
  ])("canonicalize() is idempotent (%s form)", (_name, options) => {
    fc.assert(
      fc.property(fc.oneof(texts, fc.string({ unit: "grapheme" })), (text) => {
        const once = canonicalize(text, options);
        expect(canonicalize(once, options)).toBe(once);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("canonicalize() white space", () => {
  const spaces = [" ", "  ", "\n", "\t", "\r\n", " \n ", "\u00a0", "\u2028", "\u3000", "\ufeff"];
  const text = fc
    .array(fc.oneof(fc.constantFrom(...spaces), fc.constantFrom("a", "Bc", "d.e", "@", "x1")), {
      maxLength: 20,
    })
    .map((parts) => parts.join(""));

  test("canonicalize() collapses every run of white space to one space and trims (property)", () => {
    fc.assert(
      fc.property(text, fc.boolean(), (raw, output) => {
        const expected = raw
          .normalize("NFKC")
          .replace(/\ufeff/g, "")
          .toLowerCase()
          .replace(/\s+/g, " ")
          .trim();
        expect(canonicalize(raw, { output })).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("canonicalize() of ASCII text without escapes", () => {
  const NAME_ADDR = /^(?:"[^"]*"|[^<>",;])*?\s*<\s*([^<>\s][^<>]*?)\s*>$/;
  /** One round of SPEC §2.5's canonical form, for ASCII text with nothing to percent- or entity-decode. */
  function round(text: string, output: boolean): string {
    let out = text.toLowerCase();
    if (output) out = out.replaceAll("mailto:", "");
    out = out.replace(/\s+/g, " ").trim();
    if (!output) out = out.replace(/^(?:mailto:\s*)+/, "").replace(NAME_ADDR, "$1");
    return out;
  }
  function reference(text: string, output: boolean): string {
    let current = text;
    for (let i = 0; i < 3; i += 1) {
      const next = round(current, output);
      if (next === current) break;
      current = next;
    }
    return current;
  }
  const pieces = [
    "a",
    "B",
    "x.example",
    "@",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\v",
    "\f",
    "mailto:",
    "MAILTO:",
    "mailmailto:to:",
    "<",
    ">",
    '"',
    ",",
    "1",
    "~",
    "\x7f",
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 16 }).map((parts) => parts.join(""));

  test("canonicalize() of such text is one or more rounds of the form, already canonical text included (property)", () => {
    fc.assert(
      fc.property(text, fc.boolean(), (raw, output) => {
        const options = output ? { output: true } : { destination: true };
        expect(canonicalize(raw, options)).toBe(reference(raw, output));
      }),
      { numRuns: 5000 },
    );
  });

  test("text that is output and a destination at once still gets the destination's steps (no output-only shortcut)", () => {
    expect(canonicalize("Bob\t<bob@x.example>", { output: true, destination: true })).toBe("bob@x.example");
  });
});
