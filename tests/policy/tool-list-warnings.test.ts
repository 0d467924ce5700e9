import { describe, expect, test } from "bun:test";
import type { JsonObject, ToolDefinition } from "../../src/engine/index.ts";
import {
  createPolicy,
  type MatchedPack,
  parsePack,
  parsePolicy,
  resolveToolRules,
  schemaArgumentWarnings,
  unlistedEntryWarnings,
} from "../../src/policy/index.ts";

const LISTED = ["echo", "send_email", "delete_item", "write_file"];

function unlisted(text: string, server = "mail"): string[] {
  return unlistedEntryWarnings([parsePolicy(text, "p.yaml")], server, LISTED);
}

describe("unlistedEntryWarnings() (SPEC §4.1: entries match tool names exactly)", () => {
  test.each([
    [
      "a name in another case",
      "Echo: { action: deny }\n",
      "Echo",
      ', but "echo" differs from it in case, spacing or Unicode normalization only',
    ],
    [
      "a name with a trailing space",
      '"echo ": { action: deny }\n',
      "echo ",
      ', but "echo" differs from it in case, spacing or Unicode normalization only',
    ],
    [
      "a top-level typo one edit away",
      "send_emial: { action: deny }\n",
      "send_emial",
      ' (did you mean "send_email"?)',
    ],
  ])(
    "unlistedEntryWarnings() warns of %s at the top level, naming the near miss",
    (_name, text, entry, hint) => {
      expect(unlisted(text)).toEqual([
        `Warning: tool entry ${JSON.stringify(entry)} (user:p.yaml) names no tool of server "mail"${hint}: tool names are matched exactly, so its rules apply to no tool of this server`,
      ]);
    },
  );

  test("unlistedEntryWarnings() warns of an entry written decomposed (NFD) for a tool listed composed (NFC)", () => {
    const decomposed = "cafe\u0301_order";
    const warnings = unlistedEntryWarnings(
      [parsePolicy(`${decomposed}: { action: deny }\n`, "p.yaml")],
      "shop",
      ["caf\u00e9_order"],
    );
    expect(warnings).toEqual([
      'Warning: tool entry "cafe\\u{301}_order" (user:p.yaml) names no tool of server "shop", but "caf\\u{e9}_order" differs from it in case, spacing or Unicode normalization only: tool names are matched exactly, so its rules apply to no tool of this server',
    ]);
  });

  test("unlistedEntryWarnings() says nothing of a top-level entry with no near miss (it may be another server's tool)", () => {
    expect(unlisted("fetch_page: { action: deny }\nrm: { action: deny }\necho: { action: ask }\n")).toEqual(
      [],
    );
  });

  test("unlistedEntryWarnings() warns of every servers.<this> entry that names no listed tool, with a near miss when one exists", () => {
    const text = "servers:\n  mail:\n    delet_item: { max_calls: 1 }\n    archive_all: { action: deny }\n";
    expect(unlisted(text)).toEqual([
      'Warning: tool entry "delet_item" (user:p.yaml servers.mail) names no tool of server "mail" (did you mean "delete_item"?): tool names are matched exactly, so its rules apply to no tool of this server',
      'Warning: tool entry "archive_all" (user:p.yaml servers.mail) names no tool of server "mail": tool names are matched exactly, so its rules apply to no tool of this server',
    ]);
  });

  test("unlistedEntryWarnings() leaves other servers' sections alone", () => {
    expect(unlisted("servers:\n  files:\n    Echo: { action: deny }\n")).toEqual([]);
  });

  test("unlistedEntryWarnings() renders a hostile listed name safely", () => {
    const [line] = unlistedEntryWarnings(
      [parsePolicy("servers:\n  mail:\n    echo_x: { action: deny }\n", "p.yaml")],
      "mail",
      ["echo_\u001b[2J"],
    );
    expect(line).not.toContain("\u001b");
  });
});

const FS_PACK = parsePack(
  `match: { commands: ["@modelcontextprotocol/server-filesystem"] }
write_file: { exfiltrating: false, write_params: [path], allowed_path_prefixes: [$COMMAND_LINE_DIRS] }
`,
  "filesystem",
);

function tool(name: string, properties: JsonObject, extra: JsonObject = {}): ToolDefinition {
  return { name, inputSchema: { type: "object", properties, ...extra } };
}

function schemaWarnings(
  text: string,
  definition: ToolDefinition,
  packs: readonly MatchedPack[] = [],
): string[] {
  const policy = createPolicy([parsePolicy(text, "p.yaml")], [FS_PACK]);
  const rules = resolveToolRules(policy, { server: "fs", tool: definition.name, definition, packs });
  return schemaArgumentWarnings(rules, definition);
}

const WRITE_FILE = tool("write_file", { path: { type: "string" }, content: { type: "string" } });

describe("schemaArgumentWarnings() (SPEC §2.4: write_params and arg_patterns name arguments)", () => {
  test("schemaArgumentWarnings() warns that a write_params argument the schema does not list confines nothing", () => {
    const text = "write_file: { write_params: [file_path], allowed_path_prefixes: [/data] }\n";
    expect(schemaWarnings(text, WRITE_FILE)).toEqual([
      'Warning: write_file: write_params "file_path" (user:p.yaml) names no argument of its input schema (it lists "path", "content"), so no path is confined through it',
    ]);
  });

  test.each([
    ["arg_patterns", 'echo: { arg_patterns: { txet: ".*" } }\n', "its pattern checks nothing"],
    ["sink_params", "echo: { sink_params: [txet] }\n", "it declares no destination"],
  ])("schemaArgumentWarnings() warns of %s naming no argument, with the near miss", (key, text, effect) => {
    expect(schemaWarnings(text, tool("echo", { text: { type: "string" } }))).toEqual([
      `Warning: echo: ${key} "txet" (user:p.yaml) names no argument of its input schema (it lists "text"; did you mean "text"?), so ${effect}`,
    ]);
  });

  test("schemaArgumentWarnings() follows dotted paths and [] into the schema, $ref included", () => {
    const definition = tool(
      "send",
      { files: { type: "array", items: { $ref: "#/$defs/File" } } },
      { $defs: { File: { type: "object", properties: { path: { type: "string" } } } } },
    );
    expect(schemaWarnings('send: { write_params: ["files[].path"] }\n', definition)).toEqual([]);
    expect(schemaWarnings('send: { write_params: ["files[].name"] }\n', definition)).toEqual([
      'Warning: send: write_params "files[].name" (user:p.yaml) names no argument of "files[]" in its input schema (it lists "path"), so no path is confined through it',
    ]);
  });

  test.each<[string, string, ToolDefinition]>([
    [
      "a name equal under case folding (the engine reads it)",
      "echo: { sink_params: [TEXT] }\n",
      tool("echo", { text: {} }),
    ],
    [
      "an object the schema leaves free-form",
      "echo: { sink_params: [opts.to] }\n",
      tool("echo", { opts: { type: "object" } }),
    ],
    [
      "additionalProperties: true",
      "echo: { sink_params: [to] }\n",
      tool("echo", { text: {} }, { additionalProperties: true }),
    ],
    [
      "patternProperties",
      "echo: { sink_params: [x_to] }\n",
      tool("echo", { text: {} }, { patternProperties: { "^x_": {} } }),
    ],
    [
      "a schema with no properties",
      "echo: { sink_params: [to] }\n",
      { name: "echo", inputSchema: { type: "object" } },
    ],
    ["an argument named with its dots", 'echo: { sink_params: ["a.b"] }\n', tool("echo", { "a.b": {} })],
  ])("schemaArgumentWarnings() says nothing of %s", (_name, text, definition) => {
    expect(schemaWarnings(text, definition)).toEqual([]);
  });

  test("schemaArgumentWarnings() checks only what the user's files set, not the packs'", () => {
    const definition = tool("write_file", { file: { type: "string" } });
    const packs: MatchedPack[] = [
      { pack: FS_PACK, by: "command", pattern: "x", value: "x", commandIndex: 0 },
    ];
    expect(schemaWarnings("write_file: { max_calls: 5 }\n", definition, packs)).toEqual([]);
  });
});
