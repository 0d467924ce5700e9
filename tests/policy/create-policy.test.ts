import { describe, expect, test } from "bun:test";
import { checkPolicyFiles, PolicyError, parsePack, parsePolicyFiles } from "../../src/policy/index.ts";

const PACK = parsePack("match: { commands: [x] }\nt: { action: ask }\n", "p");

describe("checkPolicyFiles() and parsePolicyFiles() (SPEC §4.1 several --policy files)", () => {
  test("checkPolicyFiles() keeps the files in command-line order with the packs", () => {
    const result = checkPolicyFiles(
      [
        { text: "t: { max_calls: 1 }\n", fileName: "a.yaml" },
        { text: "t: { max_calls: 2 }\n", fileName: "b.yaml" },
      ],
      [PACK],
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy.files.map((f) => f.file)).toEqual(["a.yaml", "b.yaml"]);
    expect(result.policy.packs.map((p) => p.name)).toEqual(["p"]);
  });

  test("checkPolicyFiles() reports the issues of every file", () => {
    const result = checkPolicyFiles(
      [
        { text: "t: { alow: 1 }\n", fileName: "a.yaml" },
        { text: "ok: { action: ask }\n", fileName: "b.yaml" },
        { text: "t: [x]\n", fileName: "c.yaml" },
      ],
      [],
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.file, i.code])).toEqual([
      ["a.yaml", "unknown_key"],
      ["c.yaml", "not_mapping"],
    ]);
  });

  test("parsePolicyFiles() throws a PolicyError naming the first bad file", () => {
    const texts = [
      { text: "ok: {}\n", fileName: "a.yaml" },
      { text: "t: { max_calls: '3' }\n", fileName: "b.yaml" },
    ];
    expect(() => parsePolicyFiles(texts, [])).toThrow(PolicyError);
    expect(() => parsePolicyFiles(texts, [])).toThrow(/^Cannot load policy "b\.yaml": line 1, column 17: /u);
  });

  test("parsePolicyFiles() with no files is the packs alone", () => {
    expect(parsePolicyFiles([], [PACK])).toEqual({ files: [], packs: [PACK] });
  });
});
