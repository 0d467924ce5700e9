import { describe, expect, test } from "bun:test";
import { budgetKey, compileParamPath, type ToolDefinition, type ToolRules } from "../../src/engine/index.ts";
import {
  createPolicy,
  type MatchedPack,
  matchPacks,
  type Pack,
  parsePack,
  parsePolicy,
  resolveToolRules,
} from "../../src/policy/index.ts";

const MAIL_PACK = parsePack(
  `match: { commands: [mail-server] }
send_email:
  exfiltrating: true
  sink_params: [to, cc]
  trusted_destinations: [postmaster@pack.example]
  on_tainted: ask
  max_calls: 50
  action: ask
`,
  "mailpack",
);

function matched(pack: Pack): MatchedPack {
  return { pack, by: "command", pattern: "x", value: "x", commandIndex: 0 };
}

function rulesFor(
  files: readonly (readonly [string, string])[],
  options: { tool?: string; server?: string; packs?: readonly Pack[]; definition?: ToolDefinition } = {},
): ToolRules {
  const policy = createPolicy(
    files.map(([name, text]) => parsePolicy(text, name)),
    options.packs ?? [],
  );
  return resolveToolRules(policy, {
    server: options.server ?? "mail",
    tool: options.tool ?? "send_email",
    packs: (options.packs ?? []).map(matched),
    ...(options.definition ? { definition: options.definition } : {}),
  });
}

describe("resolveToolRules() layers and precedence (SPEC §4.1)", () => {
  test("resolveToolRules() gives a tool no layer names the built-in defaults", () => {
    const rules = rulesFor([], { tool: "noop" });
    expect(rules.action).toEqual({ value: "allow", source: "default" });
    expect(rules.onTainted).toEqual({ value: "deny", source: "default" });
    expect(rules.taintFields).toEqual({ value: "lenient", source: "default" });
    expect(rules.unclassified).toEqual({ value: "allow", source: "default" });
    expect(rules.taintMinLength).toBe(6);
    expect(rules.heuristics).toBe(true);
    expect(rules.exfiltrating).toBeUndefined();
    expect(rules.maxCalls).toBeUndefined();
    expect(rules.sinkParams).toEqual([]);
    expect(rules.trustedDestinations).toEqual([]);
  });

  interface LayerRow {
    readonly name: string;
    readonly files: readonly (readonly [string, string])[];
    readonly packs: readonly Pack[];
    readonly key: "action" | "maxCalls" | "onTainted";
    readonly value: unknown;
    readonly source: string;
    /** The part of the user file that set it, when not a top-level entry. */
    readonly layer?: string;
  }
  const rows: LayerRow[] = [
    {
      name: "a servers.<name> entry beats a top-level entry",
      files: [
        ["a.yaml", "send_email: { action: deny }\nservers:\n  mail:\n    send_email: { action: allow }\n"],
      ],
      packs: [],
      key: "action",
      value: "allow",
      source: "user:a.yaml",
      layer: "servers.mail",
    },
    {
      name: "an earlier file's servers entry beats a later file's top-level entry",
      files: [
        ["a.yaml", "servers: { mail: { send_email: { max_calls: 1 } } }\n"],
        ["b.yaml", "send_email: { max_calls: 9 }\n"],
      ],
      packs: [],
      key: "maxCalls",
      value: 1,
      source: "user:a.yaml",
      layer: "servers.mail",
    },
    {
      name: "a later file beats an earlier one",
      files: [
        ["a.yaml", "send_email: { max_calls: 1 }\n"],
        ["b.yaml", "send_email: { max_calls: 9 }\n"],
      ],
      packs: [],
      key: "maxCalls",
      value: 9,
      source: "user:b.yaml",
    },
    {
      name: "an earlier file keeps the keys a later file does not set",
      files: [
        ["a.yaml", "send_email: { action: deny }\n"],
        ["b.yaml", "send_email: { max_calls: 9 }\n"],
      ],
      packs: [],
      key: "action",
      value: "deny",
      source: "user:a.yaml",
    },
    {
      name: "a top-level entry beats a pack",
      files: [["a.yaml", "send_email: { max_calls: 3 }\n"]],
      packs: [MAIL_PACK],
      key: "maxCalls",
      value: 3,
      source: "user:a.yaml",
    },
    {
      name: "a pack fills what the user's entries leave",
      files: [["a.yaml", "send_email: { max_calls: 3 }\n"]],
      packs: [MAIL_PACK],
      key: "action",
      value: "ask",
      source: "pack:mailpack",
    },
    {
      name: "a pack beats the user's defaults",
      files: [["a.yaml", "defaults: { on_tainted: deny }\n"]],
      packs: [MAIL_PACK],
      key: "onTainted",
      value: "ask",
      source: "pack:mailpack",
    },
    {
      name: "the user's defaults apply where no entry sets the key",
      files: [["a.yaml", "defaults: { on_tainted: ask }\nsend_email: { action: allow }\n"]],
      packs: [],
      key: "onTainted",
      value: "ask",
      source: "user:a.yaml",
      layer: "defaults",
    },
    {
      name: "a later file's defaults beat an earlier file's",
      files: [
        ["a.yaml", "defaults: { on_tainted: ask }\n"],
        ["b.yaml", "defaults: { on_tainted: deny }\n"],
      ],
      packs: [],
      key: "onTainted",
      value: "deny",
      source: "user:b.yaml",
      layer: "defaults",
    },
  ];
  test.each(rows)("resolveToolRules(): $name", (row) => {
    const rules = rulesFor(row.files, { packs: row.packs });
    const layer = row.layer === undefined ? {} : { layer: row.layer };
    expect(rules[row.key]).toEqual({ value: row.value, source: row.source, ...layer } as never);
  });

  test("resolveToolRules() compiles what a call reads: the budget key and every parameter path", () => {
    const text = `send_email:
  sink_params: [message.to]
  write_params: ["files[].path"]
  arg_patterns: { Subject: x }
`;
    const rules = rulesFor([["a.yaml", text]], { packs: [MAIL_PACK] });
    expect(rules.compiled?.budgetKey).toBe(budgetKey("mail", "send_email"));
    expect(rules.compiled?.paramPaths).toEqual(
      new Map(["files[].path", "Subject", "message.to", "to", "cc"].map((p) => [p, compileParamPath(p)])),
    );
  });

  test("resolveToolRules() ignores servers entries of other servers", () => {
    const rules = rulesFor([["a.yaml", "servers: { other: { send_email: { action: deny } } }\n"]]);
    expect(rules.action).toEqual({ value: "allow", source: "default" });
  });

  test("resolveToolRules() unions sink_params of the user's and the packs' layers, strongest source first", () => {
    const rules = rulesFor(
      [
        ["a.yaml", "send_email: { sink_params: [bcc, to] }\n"],
        ["b.yaml", "servers: { mail: { send_email: { sink_params: [reply_to] } } }\n"],
      ],
      { packs: [MAIL_PACK] },
    );
    expect(rules.sinkParams).toEqual([
      { value: "reply_to", source: "user:b.yaml", layer: "servers.mail" },
      { value: "bcc", source: "user:a.yaml" },
      { value: "to", source: "user:a.yaml" },
      { value: "cc", source: "pack:mailpack" },
    ]);
  });

  test("resolveToolRules() treats declared sink_params as exfiltrating unless a layer says otherwise", () => {
    expect(rulesFor([["a.yaml", "send_email: { sink_params: [to] }\n"]]).exfiltrating).toEqual({
      value: true,
      source: "user:a.yaml",
    });
    const off = rulesFor([["a.yaml", "send_email: { exfiltrating: false }\n"]], { packs: [MAIL_PACK] });
    expect(off.exfiltrating).toEqual({ value: false, source: "user:a.yaml" });
  });

  test("resolveToolRules() unions trusted_destinations of every layer, server defaults and defaults included", () => {
    const rules = rulesFor(
      [
        [
          "a.yaml",
          `defaults: { trusted_destinations: ["*@corp.example"] }
servers:
  mail:
    defaults: { trusted_destinations: [me@home.example] }
    send_email: { trusted_destinations: ["*@partner.example"] }
send_email: { trusted_destinations: [boss@corp.example] }
`,
        ],
      ],
      { packs: [MAIL_PACK] },
    );
    expect(rules.trustedDestinations.map((t) => t.value).sort()).toEqual(
      [
        "*@corp.example",
        "*@partner.example",
        "boss@corp.example",
        "me@home.example",
        "postmaster@pack.example",
      ].sort(),
    );
    expect(Object.fromEntries(rules.trustedDestinations.map((t) => [t.value, [t.source, t.layer]]))).toEqual({
      "*@corp.example": ["user:a.yaml", "defaults"],
      "*@partner.example": ["user:a.yaml", "servers.mail"],
      "boss@corp.example": ["user:a.yaml", undefined],
      "me@home.example": ["user:a.yaml", "servers.mail.defaults"],
      "postmaster@pack.example": ["pack:mailpack", undefined],
    });
  });

  test("resolveToolRules() applies servers.<name>.defaults to every tool of that server only", () => {
    const text = "servers: { mail: { defaults: { trusted_destinations: [me@home.example] } } }\n";
    expect(rulesFor([["a.yaml", text]], { tool: "any_tool" }).trustedDestinations).toEqual([
      { value: "me@home.example", source: "user:a.yaml", layer: "servers.mail.defaults" },
    ]);
    expect(rulesFor([["a.yaml", text]], { tool: "any_tool", server: "other" }).trustedDestinations).toEqual(
      [],
    );
  });

  test("resolveToolRules() with replace: true discards the packs, the defaults and the heuristics for that tool", () => {
    const rules = rulesFor(
      [
        [
          "a.yaml",
          `defaults: { on_tainted: ask, trusted_destinations: ["*@corp.example"] }
send_email: { replace: true, exfiltrating: false }
`,
        ],
      ],
      {
        packs: [MAIL_PACK],
        definition: {
          name: "send_email",
          inputSchema: { type: "object", properties: { to: { type: "string" } } },
        },
      },
    );
    expect(rules.exfiltrating).toEqual({ value: false, source: "user:a.yaml" });
    expect(rules.action).toEqual({ value: "allow", source: "default" });
    expect(rules.onTainted).toEqual({ value: "deny", source: "default" });
    expect(rules.maxCalls).toBeUndefined();
    expect(rules.sinkParams).toEqual([]);
    expect(rules.trustedDestinations).toEqual([]);
  });

  test("resolveToolRules() with replace: true in a later file discards the earlier file's entry", () => {
    const rules = rulesFor([
      ["a.yaml", "send_email: { action: deny, max_calls: 1 }\n"],
      ["b.yaml", "send_email: { replace: true, exfiltrating: true, sink_params: [to] }\n"],
    ]);
    expect(rules.action).toEqual({ value: "allow", source: "default" });
    expect(rules.maxCalls).toBeUndefined();
    expect(rules.sinkParams).toEqual([{ value: "to", source: "user:b.yaml" }]);
  });

  test("resolveToolRules() keeps stronger servers entries above a replacing top-level entry", () => {
    const rules = rulesFor([
      [
        "a.yaml",
        `servers:
  mail:
    defaults: { trusted_destinations: [me@home.example] }
    send_email: { action: ask }
send_email: { replace: true, exfiltrating: true }
`,
      ],
    ]);
    expect(rules.action).toEqual({ value: "ask", source: "user:a.yaml", layer: "servers.mail" });
    expect(rules.trustedDestinations).toEqual([
      { value: "me@home.example", source: "user:a.yaml", layer: "servers.mail.defaults" },
    ]);
  });

  test("resolveToolRules() reads unclassified, taint_min_length and heuristics from the last file that sets them", () => {
    const rules = rulesFor([
      ["a.yaml", "defaults: { unclassified: ask, taint_min_length: 4, heuristics: false }\n"],
      ["b.yaml", "defaults: { taint_min_length: 8 }\n"],
    ]);
    expect(rules.unclassified).toEqual({ value: "ask", source: "user:a.yaml", layer: "defaults" });
    expect(rules.taintMinLength).toBe(8);
    expect(rules.heuristics).toBe(false);
  });

  test.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    "resolveToolRules() gives a tool named %s the defaults without touching the prototype",
    (tool) => {
      const rules = rulesFor([["a.yaml", "send_email: { action: deny }\n"]], { tool, server: "__proto__" });
      expect(rules.action).toEqual({ value: "allow", source: "default" });
      expect(rules.tool).toBe(tool);
    },
  );
});

describe("resolveToolRules() with the filesystem pack (SPEC §4.3)", () => {
  const FS_PACK = parsePack(
    `match: { commands: ["@modelcontextprotocol/server-filesystem"] }
write_file: { exfiltrating: false, write_params: [path], allowed_path_prefixes: [$COMMAND_LINE_DIRS] }
`,
    "filesystem",
  );
  const command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data", "./notes", "~/docs"];

  function fsRules(userText: string, cmd: readonly string[] | undefined): ToolRules {
    const policy = createPolicy(userText === "" ? [] : [parsePolicy(userText, "u.yaml")], [FS_PACK]);
    const packs = matchPacks(policy.packs, { upstreamName: "fs", ...(cmd ? { command: cmd } : {}) });
    return resolveToolRules(policy, {
      server: "fs",
      tool: "write_file",
      packs: packs.length > 0 ? packs : [matched(FS_PACK)],
      ...(cmd ? { command: cmd } : {}),
    });
  }

  test("resolveToolRules() confines writes to the command line's directories when the user sets no prefixes", () => {
    const rules = fsRules("", command);
    expect(rules.allowedPathPrefixes).toEqual({
      value: ["/data", "./notes", "~/docs"],
      source: "pack:filesystem",
    });
    expect(rules.writeParams).toEqual({ value: ["path"], source: "pack:filesystem" });
  });

  test("resolveToolRules() lets the user's prefixes replace the command line's directories", () => {
    const rules = fsRules("write_file: { allowed_path_prefixes: [./out] }\n", command);
    expect(rules.allowedPathPrefixes).toEqual({ value: ["./out"], source: "user:u.yaml" });
    expect(rules.writeParams?.source).toBe("pack:filesystem");
  });

  test("resolveToolRules() keeps a written allowed_path_prefixes: [] with its layer (it overrides the pack's and confines nothing)", () => {
    const rules = fsRules("servers:\n  fs:\n    write_file: { allowed_path_prefixes: [] }\n", command);
    expect(rules.allowedPathPrefixes).toEqual({ value: [], source: "user:u.yaml", layer: "servers.fs" });
    expect(rules.writeParams?.source).toBe("pack:filesystem");
    expect(rules.overriddenPathPrefixes).toEqual({
      value: ["/data", "./notes", "~/docs"],
      source: "pack:filesystem",
    });
  });

  test("resolveToolRules() records no overridden prefixes for non-empty prefixes, or when the layer below expands to none", () => {
    expect(
      fsRules("write_file: { allowed_path_prefixes: [./out] }\n", command).overriddenPathPrefixes,
    ).toBeUndefined();
    const noDirs = fsRules("write_file: { allowed_path_prefixes: [] }\n", undefined);
    expect(noDirs.allowedPathPrefixes).toEqual({ value: [], source: "user:u.yaml" });
    expect(noDirs.overriddenPathPrefixes).toBeUndefined();
  });

  test("resolveToolRules() counts possiblePacks as the weakest pack layers, for the views only", () => {
    const policy = createPolicy(
      [parsePolicy("write_file: { allowed_path_prefixes: [] }\n", "u.yaml")],
      [FS_PACK],
    );
    const rules = resolveToolRules(policy, {
      server: "fs",
      tool: "write_file",
      packs: [],
      possiblePacks: [FS_PACK],
      showPlaceholders: true,
    });
    expect(rules.writeParams).toEqual({ value: ["path"], source: "pack:filesystem" });
    expect(rules.overriddenPathPrefixes).toEqual({
      value: ["$COMMAND_LINE_DIRS"],
      source: "pack:filesystem",
    });
  });

  test("resolveToolRules() leaves writes unconfined by prefixes when no command line is known", () => {
    expect(fsRules("", undefined).allowedPathPrefixes).toBeUndefined();
  });
});
