/**
 * The policy module's fast path (SPEC §4.2, §3.2 step 1): a text parsed by `Bun.YAML` and
 * validated by the same validators compiles to exactly what the `yaml` library's reading compiles
 * to, and gives no verdict (`undefined`, so the caller reads the text strictly) whenever the strict
 * reading rejects the text or the two readings could differ.
 */

import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkParsedPack, checkParsedPolicy } from "../../src/policy/check-parsed.ts";
import { checkPack, checkPolicy } from "../../src/policy/index.ts";

/** The fast path's answer for a text (`Bun.YAML` refusing the text counts as no answer). */
function fast(text: string): ReturnType<typeof checkParsedPolicy> {
  let value: unknown;
  try {
    value = Bun.YAML.parse(text);
  } catch {
    return undefined;
  }
  return checkParsedPolicy({ text, value }, "p.yaml");
}

const SPEC_EXAMPLE = `version: 1                     # optional
defaults:                      # optional
  heuristics: true
  on_tainted: deny             # deny | ask
  taint_fields: lenient        # lenient (field values ask) | strict (field values deny too)
  taint_min_length: 6
  unclassified: allow          # allow | ask — tools no layer classifies
  trusted_destinations: ["*@corp.example"]
servers:                       # optional, per wrapped server (its --upstream-name)
  mail:
    defaults: { trusted_destinations: [me@home.example] }
    send_email: { trusted_destinations: ["*@partner.example"] }
tools:                         # optional; for tools whose names clash with the reserved keys
  servers: { action: deny }
send_email:                    # any other top-level key is a tool name
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

describe("checkParsedPolicy() agrees with checkPolicy()", () => {
  test.each([
    ["the SPEC §4.2 example", SPEC_EXAMPLE],
    ["an empty file", ""],
    ["a file of comments", "# nothing yet\n\n# still nothing\n"],
    ["flow mappings", "echo: { exfiltrating: false }\ngenerate: { exfiltrating: false }\n"],
    [
      "block lists and quoted strings",
      "send:\n  sink_params:\n    - to\n    - 'cc'\n  trusted_destinations:\n    - \"a@b.example\"\n",
    ],
    ["CRLF line ends", "send_email:\r\n  action: ask\r\n  max_calls: 0\r\n"],
    ["JSON-style keys", '{"send_email": {"exfiltrating": true, "sink_params": ["to"]}}\n'],
    ["non-ASCII strings", "post:\n  trusted_destinations: [\"chef@café.example\", 'ü@x.example']\n"],
    [
      "regex patterns in single quotes",
      "write_file:\n  arg_patterns: { path: '[a-z]+\\.txt', mode: 'r|w' }\n",
    ],
    ["an escaped backslash in double quotes", 'w: { arg_patterns: { p: "\\\\d+" } }\n'],
  ])("checkParsedPolicy() compiles %s exactly as checkPolicy() does", (_name, text) => {
    const strict = checkPolicy(text, "p.yaml");
    expect(strict.ok).toBe(true);
    const file = fast(text);
    expect(file).toBeDefined();
    if (strict.ok) expect(file).toEqual(strict.policy);
  });

  test.each([
    ["an unknown key", "send_email:\n  alow: true\n"],
    ["a duplicate top-level key", "send_email: { action: ask }\nsend_email: { action: allow }\n"],
    ["a duplicate key in a tool entry", "send_email:\n  action: deny\n  action: allow\n"],
    ["a duplicate key in a flow mapping", "send_email: { action: deny, action: allow }\n"],
    ["a duplicate argument in arg_patterns", "w: { arg_patterns: { p: a, p: b } }\n"],
    ["a duplicate server", "servers:\n  m: { s: { action: ask } }\n  m: { s: { action: allow } }\n"],
    ["a boolean key", "true: { action: deny }\n"],
    ["a null key", "~: { action: deny }\n"],
    ["a merge key", "base: &b { action: deny }\nsend:\n  <<: *b\n"],
    ["an alias", "a: &x { action: deny }\nb: *x\n"],
    ["a tag", "send: !!map { action: deny }\n"],
    ["two documents", "a: { action: deny }\n---\nb: { action: deny }\n"],
    ["a block scalar", "w:\n  arg_patterns:\n    p: |\n      a+\n"],
    ["a double-quoted escape", 'w: { arg_patterns: { p: "\\u00e9" } }\n'],
    ["a tab", "send:\n\taction: deny\n"],
    ["a key without a value", "send_email:\n"],
    ["a prototype key", "__proto__: { action: allow }\n"],
    ["a quoted number", 'w: { max_calls: "3" }\n'],
    ["a hex budget (parsers disagree on signed hex)", "rm_all:\n  max_calls: 0x10\n"],
    ["a signed hex budget", "rm_all:\n  max_calls: +0x10\n"],
    [
      "a key starting with a flow indicator",
      "echo: { exfiltrating: false }\n,generate: { exfiltrating: false }\n",
    ],
  ])("checkParsedPolicy() gives no verdict for %s (checkPolicy decides)", (_name, text) => {
    expect(fast(text)).toBeUndefined();
  });
});

describe("checkParsedPolicy() property", () => {
  const name = fc.constantFrom(
    "send_email",
    "write_file",
    "servers",
    "tools",
    "defaults",
    "x1",
    "send_email",
  );
  const scalar = fc.oneof(
    fc.constantFrom(
      "true",
      "false",
      "True",
      "yes",
      "~",
      "null",
      "3",
      "-1",
      "0x1f",
      "1e3",
      "ask",
      "deny",
      "allow",
    ),
    fc.constantFrom(
      '"a@b.example"',
      "'it''s'",
      '"*@corp.example"',
      "a@b.example",
      '"\\u0041"',
      "[to, cc]",
      "[]",
    ),
  );
  const key = fc.constantFrom(
    "action",
    "exfiltrating",
    "sink_params",
    "trusted_destinations",
    "max_calls",
    "on_tainted",
    "replace",
    "trusted_output",
    "alow",
  );
  const entry = fc.array(fc.tuple(key, scalar), { maxLength: 4 });
  const policy = fc
    .array(fc.tuple(name, entry, fc.boolean()), { maxLength: 4 })
    .map((tools) =>
      tools
        .map(([tool, pairs, flow]) =>
          flow
            ? `${tool}: { ${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")} }`
            : `${tool}:\n${pairs.map(([k, v]) => `  ${k}: ${v}`).join("\n")}`,
        )
        .join("\n"),
    );

  test("checkParsedPolicy() never compiles a file checkPolicy() rejects, and never a different one", () => {
    let compared = 0;
    fc.assert(
      fc.property(policy, (text) => {
        const strict = checkPolicy(text, "p.yaml");
        const file = fast(text);
        if (file === undefined) return;
        expect(strict.ok).toBe(true);
        if (strict.ok) expect(file).toEqual(strict.policy);
        if (text.trim() !== "") compared++;
      }),
      { numRuns: 2000 },
    );
    // The property must have been put to non-empty policies the fast path compiled (about 2% of
    // the generated texts), not only to empty ones and texts it declined.
    expect(compared).toBeGreaterThanOrEqual(10);
  });
});

describe("checkParsedPack()", () => {
  const PACK = `# Pack: t — a test pack.
# Checked against: nothing.

version: 1
match:
  commands: [t-server]
send: { exfiltrating: true, sink_params: [to] }
`;

  test("checkParsedPack() compiles a pack exactly as checkPack() does, header included", () => {
    const strict = checkPack(PACK, "t");
    expect(strict.ok).toBe(true);
    expect(checkParsedPack({ text: PACK, value: Bun.YAML.parse(PACK) }, "t")).toEqual(
      strict.ok ? strict.pack : undefined,
    );
  });

  test("checkParsedPack() gives no verdict for a pack with replace (checkPack refuses it)", () => {
    const text = `${PACK}other: { replace: true, exfiltrating: false }\n`;
    expect(checkPack(text, "t").ok).toBe(false);
    expect(checkParsedPack({ text, value: Bun.YAML.parse(text) }, "t")).toBeUndefined();
  });
});
