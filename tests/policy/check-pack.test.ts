import { describe, expect, test } from "bun:test";
import { checkPack, PolicyError, parsePack } from "../../src/policy/index.ts";

describe("checkPack() (SPEC §4.3: the policy format plus match:)", () => {
  test("checkPack() reads match, tool entries and the header comment", () => {
    const pack = parsePack(
      `# Pack: demo — checked against demo-server 1.2.3.
# Second line.

version: 1
match:
  commands: [demo-server]
  server_names: [Demo]
  upstream_names: ["demo*"]
tools:
  match: { action: ask }
send: { exfiltrating: true, sink_params: [to] }
`,
      "demo",
    );
    expect(pack.name).toBe("demo");
    expect(pack.header).toBe("Pack: demo — checked against demo-server 1.2.3.\nSecond line.");
    expect(pack.match).toEqual({
      commands: ["demo-server"],
      serverNames: ["Demo"],
      upstreamNames: ["demo*"],
    });
    expect(pack.tools.get("send")).toEqual({ exfiltrating: true, sinkParams: ["to"] });
    expect(pack.tools.get("match")).toEqual({ action: "ask" });
  });

  test("checkPack() reads a header comment that touches the first key", () => {
    expect(parsePack("# Head line\nmatch: { commands: [x] }\n", "demo").header).toBe("Head line");
  });

  test.each([
    ["defaults", "match: { commands: [x] }\ndefaults: { on_tainted: ask }\n", "not_in_pack", 2, 1],
    ["servers", "match: { commands: [x] }\nservers: {}\n", "not_in_pack", 2, 1],
    ["replace", "match: { commands: [x] }\nt: { replace: true, exfiltrating: true }\n", "not_in_pack", 2, 6],
    ["a missing match", "t: { action: ask }\n", "no_match", 1, 1],
    ["an empty match", "match: {}\n", "no_match", 1, 1],
    ["an unknown match key", "match: { command: [x] }\n", "unknown_key", 1, 10],
    ["a match pattern that is not a list", "match: { commands: x }\n", "wrong_type", 1, 20],
    ["a bad tool entry", "match: { commands: [x] }\nt: { max_calls: '3' }\n", "wrong_type", 2, 17],
  ] as const)("checkPack() refuses %s", (_name, text, code, line, column) => {
    const result = checkPack(text, "demo");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0].code).toBe(code);
    expect([result.issues[0].line, result.issues[0].column]).toEqual([line, column]);
    expect(result.issues[0].file).toBe("demo.yaml");
  });

  test('checkPack() suggests "commands" for "command" in match', () => {
    const result = checkPack("match: { command: [x] }\n", "demo");
    expect(!result.ok && result.issues[0].message).toBe(
      'unknown key "command" in "match" (did you mean "commands"?)',
    );
  });

  test("parsePack() throws a PolicyError naming the pack file", () => {
    expect(() => parsePack("match: { commands: [x] }\nt: [a]\n", "demo")).toThrow(PolicyError);
    expect(() => parsePack("match: { commands: [x] }\nt: [a]\n", "demo")).toThrow(
      /^Cannot load pack "demo\.yaml": line 2, column 4: tool "t" must be a mapping of keys, received a list$/u,
    );
  });
});
