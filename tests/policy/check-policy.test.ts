import { describe, expect, test } from "bun:test";
import { checkPolicy, PolicyError, parsePolicy } from "../../src/policy/index.ts";
import { formatPolicyIssue } from "../../src/policy/policy-error.ts";
import type { PolicyIssue } from "../../src/policy/types.ts";

function issuesOf(text: string): readonly PolicyIssue[] {
  const result = checkPolicy(text, "bouncer.yaml");
  if (result.ok) throw new Error("expected issues, the policy was accepted");
  return result.issues;
}

function only(text: string): PolicyIssue {
  const issues = issuesOf(text);
  expect(issues).toHaveLength(1);
  return issues[0]!;
}

interface IssueRow {
  readonly name: string;
  readonly text: string;
  readonly code: PolicyIssue["code"];
  readonly line: number;
  readonly column: number;
  readonly tool?: string;
  readonly key?: string;
  readonly contains: string;
}

describe("checkPolicy() strict validation (SPEC §4.2)", () => {
  const rows: IssueRow[] = [
    {
      name: 'allowed_path_prefixes: "./out" (a string where a list belongs)',
      text: 'write_file:\n  write_params: [path]\n  allowed_path_prefixes: "./out"\n',
      code: "wrong_type",
      line: 3,
      column: 26,
      tool: "write_file",
      key: "allowed_path_prefixes",
      contains: 'expected a list of path prefixes, received the string "./out"',
    },
    {
      name: 'max_calls: "3" (a quoted number)',
      text: 'write_file:\n  max_calls: "3"\n',
      code: "wrong_type",
      line: 2,
      column: 14,
      tool: "write_file",
      key: "max_calls",
      contains: 'expected an integer of at least 0 (unquoted), received the string "3"',
    },
    {
      name: 'exfiltrating: "false" (a quoted bool)',
      text: 'send_email:\n  exfiltrating: "false"\n',
      code: "wrong_type",
      line: 2,
      column: 17,
      tool: "send_email",
      key: "exfiltrating",
      contains: 'expected true or false (unquoted), received the string "false"',
    },
    {
      name: "a misspelled key",
      text: "version: 1\nsend_email:\n  exfiltrating: true\n  sink_parms: [to]\n",
      code: "unknown_key",
      line: 4,
      column: 3,
      tool: "send_email",
      key: "sink_parms",
      contains: 'unknown key "sink_parms" in tool "send_email" (did you mean "sink_params"?)',
    },
    {
      name: "a YAML merge key in a tool entry",
      text: "base: &b { max_calls: 3 }\nwrite_file:\n  <<: *b\n  action: ask\n",
      code: "unknown_key",
      line: 3,
      column: 3,
      tool: "write_file",
      key: "<<",
      contains:
        'merge key "<<" in tool "write_file" is not supported: YAML merge keys are not read, so write the keys out in each entry',
    },
    {
      name: "a YAML merge key at the top level (not a tool named <<)",
      text: "<<: { echo: { action: deny } }\n",
      code: "unknown_key",
      line: 1,
      column: 1,
      key: "<<",
      contains: 'merge key "<<" is not supported',
    },
    {
      name: "a non-mapping tool entry (a list)",
      text: "send_email: [to, cc]\n",
      code: "not_mapping",
      line: 1,
      column: 13,
      tool: "send_email",
      contains: 'tool "send_email" must be a mapping of keys, received a list',
    },
    {
      name: "a non-mapping tool entry (a scalar)",
      text: "delete_repo: ask\n",
      code: "not_mapping",
      line: 1,
      column: 14,
      tool: "delete_repo",
      contains: 'received the string "ask"',
    },
    {
      name: "a tool entry with nothing in it",
      text: "send_email:\n",
      code: "not_mapping",
      line: 1,
      column: 12,
      tool: "send_email",
      contains: "received nothing",
    },
    {
      name: "max_calls below 0",
      text: "t:\n  max_calls: -1\n",
      code: "wrong_type",
      line: 2,
      column: 14,
      key: "max_calls",
      contains: "received the number -1",
    },
    {
      name: "max_calls not an integer",
      text: "t:\n  max_calls: 2.5\n",
      code: "wrong_type",
      line: 2,
      column: 14,
      key: "max_calls",
      contains: "received the number 2.5",
    },
    {
      name: "a YAML 1.1 boolean word is a string",
      text: "t:\n  exfiltrating: yes\n",
      code: "wrong_type",
      line: 2,
      column: 17,
      key: "exfiltrating",
      contains: 'received the string "yes"',
    },
    {
      name: "an action outside allow|ask|deny, with the closest value",
      text: "t: { action: Deny }\n",
      code: "wrong_type",
      line: 1,
      column: 14,
      key: "action",
      contains: '(did you mean "deny"?)',
    },
    {
      name: "one bad item in a list names the item",
      text: "t:\n  sink_params: [to, 3]\n",
      code: "wrong_type",
      line: 2,
      column: 21,
      key: "sink_params",
      contains: "received the number 3 in item 2",
    },
    {
      name: "a sink path with a refused segment",
      text: "t:\n  sink_params: [message.__proto__]\n",
      code: "wrong_type",
      line: 2,
      column: 17,
      key: "sink_params",
      contains: "an argument path is names joined by dots",
    },
    {
      name: 'a bare "*" trusted destination',
      text: 't:\n  trusted_destinations: ["*"]\n',
      code: "wrong_type",
      line: 2,
      column: 26,
      key: "trusted_destinations",
      contains: 'a wildcard is only allowed as "*@domain", "*.domain" or a URL ending in "/*"',
    },
    {
      name: "an environment variable in a path prefix",
      text: "t:\n  allowed_path_prefixes: [$HOME/notes]\n",
      code: "wrong_type",
      line: 2,
      column: 27,
      key: "allowed_path_prefixes",
      contains: 'use "~" for the home directory',
    },
    {
      name: "a ~user path prefix",
      text: "t:\n  allowed_path_prefixes: [./out, ~bob/notes]\n",
      code: "wrong_type",
      line: 2,
      column: 34,
      key: "allowed_path_prefixes",
      contains: "~user is not supported; write the full path",
    },
    {
      name: "a regex that does not compile",
      text: 't:\n  arg_patterns: { mode: "(read" }\n',
      code: "bad_regex",
      line: 2,
      column: 25,
      key: "arg_patterns",
      contains: 'bad regex for "mode"',
    },
    {
      name: "a regex made valid only by the anchoring wrapper",
      text: 't:\n  arg_patterns: { mode: "a)(b" }\n',
      code: "bad_regex",
      line: 2,
      column: 25,
      key: "arg_patterns",
      contains: 'bad regex for "mode"',
    },
    {
      name: "a regex over 1,000 characters",
      text: `t:\n  arg_patterns: { mode: "${"a".repeat(1001)}" }\n`,
      code: "bad_regex",
      line: 2,
      column: 25,
      key: "arg_patterns",
      contains: "the pattern is 1001 characters long, the limit is 1000",
    },
    {
      name: "a regex that is not a string",
      text: "t:\n  arg_patterns: { count: 3 }\n",
      code: "wrong_type",
      line: 2,
      column: 26,
      key: "arg_patterns",
      contains: "expected a regex string, received the number 3",
    },
    {
      name: "arg_patterns as a list",
      text: "t:\n  arg_patterns: [a]\n",
      code: "wrong_type",
      line: 2,
      column: 17,
      key: "arg_patterns",
      contains: "expected a mapping of argument to regex",
    },
    {
      name: "replace: true without exfiltrating",
      text: "send_email:\n  replace: true\n  action: ask\n",
      code: "replace_without_exfiltrating",
      line: 2,
      column: 3,
      tool: "send_email",
      key: "replace",
      contains: '"replace: true" in tool "send_email" must state "exfiltrating"',
    },
    {
      name: "a YAML syntax error",
      text: "send_email:\n  sink_params: [to\n",
      code: "yaml_syntax",
      line: 3,
      column: 1,
      contains: "YAML syntax error",
    },
    {
      name: "a second YAML document, said to the person (not the parser's advice to a programmer)",
      text: "version: 1\n---\nversion: 1\n",
      code: "yaml_syntax",
      line: 2,
      column: 1,
      contains: "a policy file holds one YAML document, and a `---` line here starts another",
    },
    {
      name: "a duplicate key",
      text: "t:\n  action: ask\n  action: deny\n",
      code: "yaml_syntax",
      line: 3,
      column: 3,
      contains: "Map keys must be unique",
    },
    {
      name: "a tool named __proto__",
      text: "__proto__: { action: deny }\n",
      code: "refused_name",
      line: 1,
      column: 1,
      contains: 'refused tool name "__proto__"',
    },
    {
      name: "a server named constructor",
      text: "servers:\n  constructor: { t: { action: deny } }\n",
      code: "refused_name",
      line: 2,
      column: 3,
      contains: 'refused server name "constructor"',
    },
    {
      name: "a key named prototype",
      text: "t: { prototype: 1 }\n",
      code: "refused_name",
      line: 1,
      column: 6,
      tool: "t",
      contains: 'refused key name "prototype"',
    },
    {
      name: "an unknown defaults key with the closest key",
      text: "defaults:\n  heuristic: false\n",
      code: "unknown_key",
      line: 2,
      column: 3,
      key: "heuristic",
      contains: 'unknown key "heuristic" in "defaults" (did you mean "heuristics"?)',
    },
    {
      name: "taint_min_length: 0",
      text: "defaults:\n  taint_min_length: 0\n",
      code: "wrong_type",
      line: 2,
      column: 21,
      key: "taint_min_length",
      contains: "expected an integer from 1 to 1000",
    },
    {
      name: "a server default other than trusted_destinations",
      text: "servers:\n  mail:\n    defaults: { on_tainted: ask }\n",
      code: "unknown_key",
      line: 3,
      column: 17,
      key: "on_tainted",
      contains: 'unknown key "on_tainted" in "defaults" of server "mail"',
    },
    {
      name: "match in a user file",
      text: "match: { commands: [x] }\n",
      code: "pack_only",
      line: 1,
      column: 1,
      contains: 'key "match" is only for packs',
    },
    {
      name: "an unsupported version",
      text: "version: 2\n",
      code: "bad_version",
      line: 1,
      column: 10,
      contains: 'unsupported "version": expected 1, received the number 2',
    },
    {
      name: "a policy that is a list",
      text: "- send_email\n",
      code: "not_mapping",
      line: 1,
      column: 1,
      contains: "a policy must be a mapping of keys, received a list",
    },
    {
      // An entry that reads as a glob named no tool and was accepted: delete_repo stayed allowed.
      name: 'a tool name holding "*" (no wildcard: entries name one tool)',
      text: "delete_*: { action: deny }\n",
      code: "refused_name",
      line: 1,
      column: 1,
      tool: "delete_*",
      contains: 'refused tool name "delete_*": a tool entry names one tool exactly',
    },
    {
      name: 'a tool named "*" under tools',
      text: 'tools:\n  "*": { action: ask }\n',
      code: "refused_name",
      line: 2,
      column: 3,
      tool: "*",
      contains: '"*" is no wildcard here',
    },
    {
      name: 'a tool name holding "*" in a servers section',
      text: 'servers:\n  mail:\n    "send_*": { exfiltrating: true, sink_params: [to] }\n',
      code: "refused_name",
      line: 3,
      column: 5,
      tool: "send_*",
      contains: 'refused tool name "send_*"',
    },
    {
      name: 'a server name holding "*"',
      text: 'servers:\n  "*":\n    send_email: { action: deny }\n',
      code: "refused_name",
      line: 2,
      column: 3,
      contains: 'refused server name "*": a servers section applies to the --upstream-name it names exactly',
    },
    {
      name: "the same tool at the top level and under tools",
      text: "t: { action: ask }\ntools:\n  t: { action: deny }\n",
      code: "duplicate_tool",
      line: 3,
      column: 3,
      contains: 'tool "t" is given twice',
    },
  ];

  test.each(rows)("checkPolicy() reports $name", (row) => {
    const issue = only(row.text);
    expect(issue.code).toBe(row.code);
    expect(issue.file).toBe("bouncer.yaml");
    expect([issue.line, issue.column]).toEqual([row.line, row.column]);
    expect(issue.message).toContain(row.contains);
    if (row.tool !== undefined) expect(issue.tool).toBe(row.tool);
    if (row.key !== undefined) expect(issue.key).toBe(row.key);
  });

  test('checkPolicy() suggests "action" for the key "alow" (a value of action)', () => {
    const issue = only("send_email:\n  exfiltrating: true\n  alow: true\n");
    expect(issue.message).toBe('unknown key "alow" in tool "send_email" (did you mean "action"?)');
    expect(issue.suggestion).toBe("action");
  });

  test("checkPolicy() names the server of an issue in a servers entry", () => {
    const issue = only("servers:\n  mail:\n    send_email: { max_calls: '3' }\n");
    expect(issue.server).toBe("mail");
    expect(issue.tool).toBe("send_email");
    expect(issue.message).toContain('in tool "send_email" of server "mail"');
  });

  test("checkPolicy() reports every issue of a file, in file order", () => {
    const issues = issuesOf("b: { max_calls: '3' }\na: { alow: 1 }\nc: [x]\n");
    expect(issues.map((i) => i.line)).toEqual([1, 2, 3]);
    expect(issues.map((i) => i.code)).toEqual(["wrong_type", "unknown_key", "not_mapping"]);
  });
});

describe("checkPolicy() accepted files (SPEC §4.2)", () => {
  test.each([
    ["an empty file", ""],
    ["a file of comments only", "# nothing here\n"],
    ["an explicit null document", "~\n"],
  ])("checkPolicy() reads %s as an empty policy", (_name, text) => {
    const result = checkPolicy(text, "empty.yaml");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy.tools.size).toBe(0);
    expect(result.policy.servers.size).toBe(0);
    expect(result.policy.defaults).toEqual({});
  });

  test("checkPolicy() accepts the example of SPEC §4.2 and compiles every key", () => {
    const text = `version: 1
defaults:
  heuristics: true
  on_tainted: deny
  taint_fields: lenient
  taint_min_length: 6
  unclassified: allow
  trusted_destinations: ["*@corp.example"]
servers:
  mail:
    defaults: { trusted_destinations: [me@home.example] }
    send_email: { trusted_destinations: ["*@partner.example"] }
tools:
  servers: { action: deny }
send_email:
  exfiltrating: true
  sink_params: [to, cc, bcc]
  trusted_destinations: [boss@corp.example, "https://hooks.corp.example/bouncer/*"]
write_file:
  write_params: [path]
  allowed_path_prefixes: [./out, ~/notes]
  max_calls: 10
  arg_patterns: { mode: "read|write" }
delete_repo: { action: ask }
list_contacts: { trusted_output: true }
`;
    const policy = parsePolicy(text, "bouncer.yaml");
    expect(policy.defaults).toEqual({
      heuristics: true,
      onTainted: "deny",
      taintFields: "lenient",
      taintMinLength: 6,
      unclassified: "allow",
      trustedDestinations: ["*@corp.example"],
    });
    const mail = policy.servers.get("mail");
    expect(mail?.trustedDestinations).toEqual(["me@home.example"]);
    expect(mail?.tools.get("send_email")).toEqual({ trustedDestinations: ["*@partner.example"] });
    expect(policy.tools.get("servers")).toEqual({ action: "deny" });
    expect(policy.tools.get("send_email")).toEqual({
      exfiltrating: true,
      sinkParams: ["to", "cc", "bcc"],
      trustedDestinations: ["boss@corp.example", "https://hooks.corp.example/bouncer/*"],
    });
    const write = policy.tools.get("write_file");
    expect(write?.writeParams).toEqual(["path"]);
    expect(write?.allowedPathPrefixes).toEqual(["./out", "~/notes"]);
    expect(write?.maxCalls).toBe(10);
    const mode = write?.argPatterns?.get("mode");
    expect(mode?.test("read")).toBe(true);
    expect(mode?.test("readwrite")).toBe(false);
    expect(mode?.test("read\nwrite")).toBe(false);
    expect(mode?.flags).toContain("u");
    expect(policy.tools.get("delete_repo")).toEqual({ action: "ask" });
    expect(policy.tools.get("list_contacts")).toEqual({ trustedOutput: true });
  });

  test("checkPolicy() keeps tools named like Object.prototype members apart from the prototype", () => {
    const policy = parsePolicy("toString: { action: deny }\nhasOwnProperty: { max_calls: 1 }\n", "p.yaml");
    expect(policy.tools.get("toString")).toEqual({ action: "deny" });
    expect(policy.tools.get("hasOwnProperty")).toEqual({ maxCalls: 1 });
    expect(policy.tools.get("valueOf")).toBeUndefined();
  });

  test("checkPolicy() follows YAML anchors and aliases", () => {
    const policy = parsePolicy("a: { sink_params: &s [to, cc] }\nb: { sink_params: *s }\n", "p.yaml");
    expect(policy.tools.get("b")?.sinkParams).toEqual(["to", "cc"]);
  });

  test("checkPolicy() accepts the placeholder for the command line's directories", () => {
    const policy = parsePolicy("w: { allowed_path_prefixes: [$COMMAND_LINE_DIRS, ./out] }\n", "p.yaml");
    expect(policy.tools.get("w")?.allowedPathPrefixes).toEqual(["$COMMAND_LINE_DIRS", "./out"]);
  });

  test("checkPolicy() accepts replace with exfiltrating stated", () => {
    const policy = parsePolicy("send_email: { replace: true, exfiltrating: false }\n", "p.yaml");
    expect(policy.tools.get("send_email")).toEqual({ replace: true, exfiltrating: false });
  });
});

describe("parsePolicy() (STYLE #13 twin of checkPolicy)", () => {
  test("parsePolicy() throws a PolicyError whose message follows the style grammar", () => {
    let thrown: unknown;
    try {
      parsePolicy("version: 1\ndefaults: {}\nsend_email:\n  alow: true\n", "bouncer.yaml");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PolicyError);
    expect(thrown).toBeInstanceOf(SyntaxError);
    const error = thrown as PolicyError;
    expect(error.code).toBe("POLICY_INVALID");
    expect(error.message).toBe(
      'Cannot load policy "bouncer.yaml": line 4, column 3: unknown key "alow" in tool "send_email" (did you mean "action"?)',
    );
    expect([error.line, error.column]).toEqual([4, 3]);
    expect(error.issues).toHaveLength(1);
  });

  test("parsePolicy() counts the further issues in its message", () => {
    expect(() => parsePolicy("a: { alow: 1 }\nb: [x]\nc: 3\n", "p.yaml")).toThrow(
      /^Cannot load policy "p\.yaml": line 1, column 6: unknown key "alow" in tool "a" \(did you mean "action"\?\), and 2 more issues$/u,
    );
  });

  test("parsePolicy() returns the same policy checkPolicy() accepts", () => {
    const text = "send_email: { exfiltrating: true, sink_params: [to] }\n";
    const checked = checkPolicy(text, "p.yaml");
    expect(checked.ok && checked.policy).toEqual(parsePolicy(text, "p.yaml"));
  });
});

describe("checkPolicy() against hostile YAML", () => {
  test("formatPolicyIssue() escapes the control and bidi characters of names in a message", () => {
    const result = checkPolicy('send_email: { "exfil\\e[2K\\rOK\\u202e": true }\n', "p.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatPolicyIssue(result.issues[0] as PolicyIssue)).toBe(
      'line 1, column 15: unknown key "exfil\\u{1b}[2K\\u{d}OK\\u{202e}" in tool "send_email"',
    );
  });

  test.each<[string, string]>([
    ["a tool key written again through an alias", "send_email:\n  &k exfiltrating: true\n  *k : false\n"],
    ["a defaults key written again through an alias", "defaults:\n  &h heuristics: true\n  *h : false\n"],
    [
      "an arg_patterns argument written again through an alias",
      'w:\n  arg_patterns:\n    &t to: "[a-z]+@corp[.]example"\n    *t : ".*"\n',
    ],
    [
      "a server written again through an alias",
      "servers:\n  &m mail: { s: { action: deny } }\n  *m : { r: { action: allow } }\n",
    ],
    ['a server named 1 and "1"', 'servers:\n  1: { s: { action: deny } }\n  "1": { s: { action: allow } }\n'],
    [
      "a tool named by an alias of another",
      "a: &n { action: deny }\nx: &x send\n*x : { action: allow }\nsend: { action: ask }\n",
    ],
  ])("checkPolicy() refuses %s (the later value would win silently)", (_name, text) => {
    const result = checkPolicy(text, "p.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.code)).toContain("duplicate_key");
  });

  test.each([
    ["008: { action: deny }\n", "tool", "008", "8"],
    ["1.0: { action: deny }\n", "tool", "1.0", "1"],
    ["0x1F: { action: deny }\n", "tool", "0x1F", "31"],
    [".inf: { action: deny }\n", "tool", ".inf", "Infinity"],
    ['send:\n  arg_patterns: { 01: "a|b" }\n', "argument", "01", "1"],
    ["servers:\n  007: { s: { action: deny } }\n", "server", "007", "7"],
  ])(
    "checkPolicy() refuses %j, a %s name %p that YAML reads as the number %p",
    (text, what, written, read) => {
      // `008:` was the tool "8" in check's view and in the gate: a tool "008" got no rule.
      const result = checkPolicy(text, "p.yaml");
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.issues.map((issue) => issue.code)).toEqual(["wrong_type"]);
      expect(result.issues[0]?.message).toBe(
        `refused ${what} name ${written}: YAML reads it as the number ${read}; write the name in quotes ("${written}")`,
      );
    },
  );

  test.each(["1", "2026", "-3"])("checkPolicy() takes a name %p written as the number it is", (name) => {
    const result = checkPolicy(`${name}: { action: ask }\n`, "p.yaml");
    expect(result.ok && [...result.policy.tools.keys()]).toEqual([name]);
  });

  test("checkPolicy() refuses a key given twice inside a value, through an alias (it threw a readonly-property TypeError)", () => {
    const result = checkPolicy("defaults:\n  trusted_destinations: [{ &k a: 1, *k : 2 }]\n", "p.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.code)).toEqual(["duplicate_key"]);
  });

  test.each([
    ["default", "defaults"],
    ["Defaults", "defaults"],
    ["defualts", "defaults"],
    ["server", "servers"],
    ["tool", "tools"],
    ["verison", "version"],
  ])("checkPolicy() refuses a top-level %p that would be read as a tool, suggesting %p", (name, section) => {
    const result = checkPolicy(`${name}:\n  on_tainted: ask\n`, "p.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]).toMatchObject({ code: "unknown_key", suggestion: section, line: 1, column: 1 });
    expect(result.issues[0]?.message).toContain(`did you mean "${section}"?`);
  });

  test.each(["session", "vision", "senders", "surveys"])(
    "checkPolicy() takes a top-level %p as the tool it is (two edits from a section but defaults)",
    (name) => {
      expect(checkPolicy(`${name}: { action: ask }\n`, "p.yaml").ok).toBe(true);
    },
  );

  test.each([
    ["default", "defaults"],
    ["tool", "tools"],
  ])(
    "checkPolicy() refuses a key %p of a server that would be read as a tool, suggesting %p",
    (name, section) => {
      const result = checkPolicy(`servers:\n  mail:\n    ${name}:\n      exfiltrating: true\n`, "p.yaml");
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.issues[0]).toMatchObject({
        code: "unknown_key",
        suggestion: section,
        line: 3,
        column: 5,
      });
      expect(
        checkPolicy(`servers:\n  mail:\n    tools:\n      ${name}: { action: ask }\n`, "p.yaml").ok,
      ).toBe(true);
    },
  );

  test("checkPolicy() still takes such a name as a tool under tools:", () => {
    expect(checkPolicy("tools:\n  server: { action: deny }\n", "p.yaml").ok).toBe(true);
  });

  test("checkPolicy() says once, in words, that a file nests too deeply for the parser's stack", () => {
    const result = checkPolicy(`a: ${"[".repeat(200_000)}${"]".repeat(200_000)}\n`, "deep.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => [issue.code, issue.message])).toEqual([
      ["yaml_syntax", "YAML syntax error: values nest too deeply to read"],
    ]);
  });

  test("checkPolicy() stops expanding aliases once the file's values together pass 10,000,000 items", () => {
    const lines = ["anchors:", `  - &a0 [${Array.from({ length: 30 }, () => "x").join(", ")}]`];
    lines.push(`  - &a1 [${Array.from({ length: 30 }, () => "*a0").join(", ")}]`);
    lines.push(`  - &a2 [${Array.from({ length: 100 }, () => "*a1").join(", ")}]`);
    for (let i = 0; i < 120; i++) lines.push(`t${i}: { sink_params: *a2 }`);
    const result = checkPolicy(`${lines.join("\n")}\n`, "bomb.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const tooLarge = result.issues.filter((issue) => issue.message.includes("is too large"));
    // Each value alone is ~93,000 items (under 100,000): only the file's budget stops the later ones.
    expect(tooLarge.length).toBeGreaterThan(0);
    expect(tooLarge.some((issue) => issue.tool === "t0")).toBe(false);
  });

  test("checkPolicy() accepts one anchored list of 5,000 destinations shared by 200 tools", () => {
    const list = Array.from({ length: 5000 }, (_, i) => `a${i}@corp.example`).join(", ");
    const lines = [`t0: { exfiltrating: true, trusted_destinations: &l [${list}] }`];
    for (let i = 1; i < 200; i++) lines.push(`t${i}: { exfiltrating: true, trusted_destinations: *l }`);
    expect(checkPolicy(`${lines.join("\n")}\n`, "shared.yaml").ok).toBe(true);
  });

  test("checkPolicy() refuses a value that expands exponentially through aliases", () => {
    const lines = ["anchors:", "  - &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i <= 8; i++) {
      lines.push(`  - &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(", ")}]`);
    }
    lines.push("bomb:", "  sink_params: *a8");
    const result = checkPolicy(`${lines.join("\n")}\n`, "bomb.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const bomb = result.issues.find((i) => i.tool === "bomb");
    expect(bomb?.message).toBe(
      `value of "sink_params" in tool "bomb" is too large: through YAML aliases it expands past 100,000 items (or the file's values together past 10,000,000)`,
    );
  });
});
