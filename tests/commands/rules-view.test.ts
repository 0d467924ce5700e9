import { describe, expect, test } from "bun:test";
import { rulesLines, valueText } from "../../src/commands/rules-view.ts";
import { safeName } from "../../src/engine/index.ts";
import { builtinPacks } from "../../src/platform/packs.ts";
import { parsePolicyFiles, resolveToolRules } from "../../src/policy/index.ts";

describe("safeName()", () => {
  test.each<[string, string]>([
    ["send_email", "send_email"],
    ["user:bouncer.yaml", "user:bouncer.yaml"],
    ["evil\u001b[2Jname", '"evil\\u{1b}[2Jname"'],
    ["a\u200bb", '"a\\u{200b}b"'],
    ["two words", '"two words"'],
  ])("safeName() shows %j as %s", (name, shown) => {
    expect(safeName(name)).toBe(shown);
  });
});

describe("valueText()", () => {
  test("valueText() writes lists and maps on one line", () => {
    expect(valueText(["./out", "~/notes"])).toBe("[./out, ~/notes]");
    expect(valueText({ mode: "read|write" })).toBe("{mode: read|write}");
    expect(valueText(3)).toBe("3");
  });
});

describe("rulesLines()", () => {
  test("rulesLines() shows each rule with its layer, one line per union member", () => {
    const policy = parsePolicyFiles(
      [
        {
          text: "send_email:\n  sink_params: [to]\n  trusted_destinations: [a@x.example, b@y.example]\n",
          fileName: "p.yaml",
        },
      ],
      builtinPacks(),
    );
    const lines = rulesLines(resolveToolRules(policy, { server: "", tool: "send_email", packs: [] }));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}sink_params: to\s+\(user:p\.yaml\)$/));
    expect(lines.filter((line) => line.includes("trusted_destinations"))).toHaveLength(2);
    expect(lines.at(-2)).toMatch(/^ {2}taint_min_length: 6\s+\(default\)$/);
    expect(lines.at(-1)).toMatch(/^ {2}heuristics: true\s+\(default\)$/);
  });

  test("rulesLines() names the part of the file that set a rule: servers.<name>, its defaults, defaults (SPEC §5.5)", () => {
    const policy = parsePolicyFiles(
      [
        {
          text: `defaults: { on_tainted: ask }
send: { exfiltrating: true, max_calls: 5 }
servers:
  mail:
    defaults: { trusted_destinations: [me@home.example] }
    send: { max_calls: 3 }
`,
          fileName: "a.yaml",
        },
      ],
      builtinPacks(),
    );
    const lines = rulesLines(resolveToolRules(policy, { server: "mail", tool: "send", packs: [] }));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}exfiltrating: true\s+\(user:a\.yaml\)$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}max_calls: 3\s+\(user:a\.yaml servers\.mail\)$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}on_tainted: ask\s+\(user:a\.yaml defaults\)$/));
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}trusted_destinations: me@home\.example\s+\(user:a\.yaml servers\.mail\.defaults\)$/,
      ),
    );
  });

  test("rulesLines() names the file (and its defaults) that set taint_min_length and heuristics, and no layer when unknown", () => {
    const policy = parsePolicyFiles(
      [
        { text: "defaults: { taint_min_length: 4 }\nsend: { exfiltrating: true }\n", fileName: "a.yaml" },
        { text: "defaults: { heuristics: false }\n", fileName: "b.yaml" },
      ],
      builtinPacks(),
    );
    const rules = resolveToolRules(policy, { server: "", tool: "send", packs: [] });
    const lines = rulesLines(rules);
    expect(lines.at(-2)).toMatch(/^ {2}taint_min_length: 4\s+\(user:a\.yaml defaults\)$/);
    expect(lines.at(-1)).toMatch(/^ {2}heuristics: false\s+\(user:b\.yaml defaults\)$/);
    const { settingSources: _, ...unsourced } = rules;
    expect(rulesLines(unsourced).slice(-2)).toEqual(["  taint_min_length: 4", "  heuristics: false"]);
  });
});
