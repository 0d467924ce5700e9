import { describe, expect, test } from "bun:test";
import type { JsonObject, ToolDefinition, ToolRules } from "../../src/engine/index.ts";
import {
  createPolicy,
  heuristicRules,
  isDestructiveName,
  nameWords,
  parsePack,
  parsePolicy,
  resolveToolRules,
} from "../../src/policy/index.ts";

function definition(
  name: string,
  args: readonly string[],
  extra: Partial<ToolDefinition> = {},
): ToolDefinition {
  const properties: JsonObject = {};
  for (const arg of args) properties[arg] = { type: "string" };
  return { name, inputSchema: { type: "object", properties }, ...extra };
}

function rules(def: ToolDefinition, userText = "", packText?: string): ToolRules {
  const files = userText === "" ? [] : [parsePolicy(userText, "u.yaml")];
  const packs = packText === undefined ? [] : [parsePack(packText, "p")];
  return resolveToolRules(createPolicy(files, packs), {
    server: "s",
    tool: def.name,
    definition: def,
    packs: packs.map((pack) => ({ pack, by: "command" as const, pattern: "x", value: "x" })),
  });
}

describe("nameWords() (SPEC §4.4 word splitting)", () => {
  test.each([
    ["delete_item", ["delete", "item"]],
    ["sendEmail", ["send", "email"]],
    ["HTTPGetPage", ["http", "get", "page"]],
    ["purge-cache now", ["purge", "cache", "now"]],
    ["admin.tools.list", ["admin", "tools", "list"]],
  ])("nameWords(%p) is %p", (name, words) => {
    expect(nameWords(name)).toEqual(words);
  });
});

describe("destructive verbs (SPEC §4.4)", () => {
  test.each([
    ["delete_item", true],
    ["remove_member", true],
    ["rm", true],
    ["dropTable", true],
    ["destroy-session", true],
    ["purge_cache", true],
    ["truncate_log", true],
    ["DeleteItem", true],
    ["format_string", false],
    ["confirm_order", false],
    ["rmdir", false],
    ["undelete_item", false],
    ["removal_report", false],
    ["perform_task", false],
  ] as const)("isDestructiveName(%p) is %p", (tool, expected) => {
    expect(isDestructiveName(tool)).toBe(expected);
  });

  test("resolveToolRules() gives delete_item the default budget of 2 from the heuristics", () => {
    expect(rules(definition("delete_item", ["id"])).maxCalls).toEqual({ value: 2, source: "heuristic" });
  });

  test.each(["format_string", "confirm_order"])(
    "resolveToolRules() gives %s no budget (not destructive)",
    (tool) => {
      expect(rules(definition(tool, ["value"])).maxCalls).toBeUndefined();
    },
  );

  test("resolveToolRules() lets a stronger layer's max_calls win over the destructive budget", () => {
    expect(rules(definition("delete_item", ["id"]), "delete_item: { max_calls: 7 }\n").maxCalls).toEqual({
      value: 7,
      source: "user:u.yaml",
    });
  });

  test("resolveToolRules() still gives a named destructive tool the budget where no layer sets max_calls", () => {
    expect(rules(definition("delete_item", ["id"]), "delete_item: { action: ask }\n").maxCalls).toEqual({
      value: 2,
      source: "heuristic",
    });
  });
});

describe("sink-shaped arguments make a tool exfiltrating (SPEC §4.4)", () => {
  test.each([
    ["send_email", ["to", "subject", "body"]],
    ["share_doc", ["doc_id", "share_with"]],
    ["create_event", ["title", "attendees"]],
    ["notify", ["webhookUrl", "text"]],
    ["pay", ["recipient_iban", "amount"]],
    ["send_message", ["target", "text"]],
  ])("resolveToolRules() marks %s with %p exfiltrating from the heuristics", (tool, args) => {
    const result = rules(definition(tool, args));
    expect(result.exfiltrating).toEqual({ value: true, source: "heuristic" });
    expect(result.sinkParams).toEqual([]);
  });

  test.each([
    ["get_issue", ["owner", "repo", "issue_number"]],
    ["list_pages", ["page_number"]],
    ["get_stats", ["target"]],
    ["read_file", ["path"]],
  ])("resolveToolRules() leaves %s with %p unclassified", (tool, args) => {
    expect(rules(definition(tool, args)).exfiltrating).toBeUndefined();
  });

  test("resolveToolRules() finds a sink-shaped argument nested in an object or a list", () => {
    const def: ToolDefinition = {
      name: "post",
      inputSchema: {
        type: "object",
        properties: {
          message: {
            type: "object",
            properties: { recipients: { type: "array", items: { type: "string" } } },
          },
        },
      },
    };
    expect(rules(def).exfiltrating).toEqual({ value: true, source: "heuristic" });
  });

  test("resolveToolRules() follows a local $ref to a sink-shaped argument (pydantic's $defs), and a recursive one once", () => {
    const def: ToolDefinition = {
      name: "send_message",
      inputSchema: {
        $defs: {
          Message: {
            type: "object",
            properties: { to: { type: "string" }, thread: { $ref: "#/$defs/Message" } },
          },
        },
        type: "object",
        properties: { message: { $ref: "#/$defs/Message" } },
      },
    };
    expect(rules(def).exfiltrating).toEqual({ value: true, source: "heuristic" });
    const remote: ToolDefinition = {
      name: "send_message",
      inputSchema: { type: "object", properties: { message: { $ref: "https://x.example/s.json" } } },
    };
    expect(rules(remote).exfiltrating).toBeUndefined();
  });

  test("resolveToolRules() finds a sink-shaped name in a model first reached deep and again near the top", () => {
    const defs: JsonObject = {
      Recipient: { type: "object", properties: { to: { type: "string" } } },
      Envelope: {
        type: "object",
        properties: { party: { $ref: "#/$defs/Recipient" }, body: { type: "string" } },
      },
    };
    for (let i = 1; i <= 7; i += 1) {
      defs[`L${i}`] = {
        type: "object",
        properties: { next: { $ref: i === 7 ? "#/$defs/Envelope" : `#/$defs/L${i + 1}` } },
      };
    }
    const def: ToolDefinition = {
      name: "submit",
      inputSchema: {
        $defs: defs,
        type: "object",
        properties: { thread: { $ref: "#/$defs/L1" }, msg: { $ref: "#/$defs/Envelope" } },
      },
    };
    expect(rules(def).exfiltrating).toEqual({ value: true, source: "heuristic" });
  });

  test.each([
    [
      "additionalProperties (pydantic's dict[str, Model])",
      { additionalProperties: { $ref: "#/$defs/Email" } },
    ],
    ["prefixItems (a tuple)", { type: "array", prefixItems: [{ $ref: "#/$defs/Email" }] }],
    ["items as a list", { type: "array", items: [{ $ref: "#/$defs/Email" }] }],
    ["patternProperties", { patternProperties: { "^m": { $ref: "#/$defs/Email" } } }],
  ])("resolveToolRules() finds a sink-shaped name under %s", (_name, messages) => {
    const def: ToolDefinition = {
      name: "send_batch",
      inputSchema: {
        $defs: {
          Email: { type: "object", properties: { to: { type: "string" }, body: { type: "string" } } },
        },
        type: "object",
        properties: { messages: { type: "object", ...messages } as JsonObject },
      },
    };
    expect(rules(def).exfiltrating).toEqual({ value: true, source: "heuristic" });
  });

  test("resolveToolRules() takes a schema too large to walk whole as exfiltrating (a name may hide past the cut)", () => {
    const def: ToolDefinition = {
      name: "submit",
      inputSchema: {
        type: "object",
        properties: {
          x: { anyOf: Array.from({ length: 100_001 }, () => ({})) },
          msg: { type: "object", properties: { body: { type: "string" } } },
        },
      },
    };
    expect(rules(def).exfiltrating).toEqual({ value: true, source: "heuristic" });
  });

  test("resolveToolRules() keeps an explicit exfiltrating: false of a pack over the heuristics", () => {
    const result = rules(
      definition("move_file", ["source", "destination"]),
      "",
      "match: { commands: [x] }\nmove_file: { exfiltrating: false }\n",
    );
    expect(result.exfiltrating).toEqual({ value: false, source: "pack:p" });
  });

  test("resolveToolRules() lets the user's sink_params outrank a pack's exfiltrating: false", () => {
    const def = definition("delete_file", ["owner", "path"]);
    const pack = "match: { commands: [x] }\ndelete_file: { exfiltrating: false }\n";
    // The user declares sinks and says nothing of exfiltrating: the stronger layer's word wins.
    expect(rules(def, "delete_file: { sink_params: [owner] }\n", pack).exfiltrating).toEqual({
      value: true,
      source: "user:u.yaml",
    });
    // The same layer saying both: its explicit exfiltrating: false stands.
    const both = "delete_file: { exfiltrating: false, sink_params: [owner] }\n";
    expect(rules(def, both, pack).exfiltrating).toEqual({ value: false, source: "user:u.yaml" });
  });

  test("resolveToolRules() applies no heuristic when defaults.heuristics is false", () => {
    const result = rules(definition("delete_email", ["to"]), "defaults: { heuristics: false }\n");
    expect(result.exfiltrating).toBeUndefined();
    expect(result.maxCalls).toBeUndefined();
    expect(result.heuristics).toBe(false);
  });
});

describe("read-like URL tools (SPEC §4.4)", () => {
  test.each([
    ["fetch", ["url"]],
    ["get_webpage", ["url"]],
    ["read_url", ["url"]],
    ["open_page", ["page_url"]],
    ["browse", ["uri"]],
    ["visit_site", ["target_url"]],
    ["fetch_pages", ["url_list"]],
    ["get_pages", ["urlsArray"]],
  ])("resolveToolRules() gives %s with %p on_tainted: ask", (tool, args) => {
    expect(rules(definition(tool, args)).onTainted).toEqual({ value: "ask", source: "heuristic" });
  });

  test.each([
    ["post_webpage", ["url", "content"]],
    ["send_link", ["url"]],
    ["get_contact", ["email"]],
    ["read_file", ["path"]],
    // A read-like name with a URL and another sink: a tainted recipient is still denied.
    ["fetch_and_send", ["url", "to"]],
    ["get_page", ["url", "email"]],
  ])("resolveToolRules() leaves %s with %p on_tainted: deny", (tool, args) => {
    expect(rules(definition(tool, args)).onTainted).toEqual({ value: "deny", source: "default" });
  });

  test("resolveToolRules() treats a declared sink with format uri as a URL sink", () => {
    const def: ToolDefinition = {
      name: "get_resource",
      inputSchema: { type: "object", properties: { location: { type: "string", format: "uri" } } },
    };
    const result = rules(def, "get_resource: { exfiltrating: true, sink_params: [location] }\n");
    expect(result.onTainted).toEqual({ value: "ask", source: "heuristic" });
  });

  test("resolveToolRules() treats a declared list sink whose items have format uri as a URL sink", () => {
    const def: ToolDefinition = {
      name: "fetch_all",
      inputSchema: {
        type: "object",
        properties: { locations: { type: "array", items: { type: "string", format: "uri" } } },
      },
    };
    const result = rules(def, "fetch_all: { exfiltrating: true, sink_params: [locations] }\n");
    expect(result.onTainted).toEqual({ value: "ask", source: "heuristic" });
  });

  test("resolveToolRules() gives a read-like tool whose declared sink is not a URL on_tainted: deny", () => {
    const def: ToolDefinition = {
      name: "fetch_report",
      inputSchema: {
        type: "object",
        properties: { url: { type: "string" }, owner: { type: "string" } },
      },
    };
    const result = rules(def, "fetch_report: { exfiltrating: true, sink_params: [owner] }\n");
    expect(result.onTainted).toEqual({ value: "deny", source: "default" });
  });

  test("resolveToolRules() lets the user's defaults.on_tainted stop the read-like heuristic", () => {
    expect(rules(definition("fetch", ["url"]), "defaults: { on_tainted: deny }\n").onTainted).toEqual({
      layer: "defaults",
      value: "deny",
      source: "user:u.yaml",
    });
  });
});

describe("annotations only tighten (SPEC §4.4)", () => {
  test("resolveToolRules() gives a destructiveHint: true tool no layer names the destructive budget", () => {
    const def = definition("archive_project", ["id"], { annotations: { destructiveHint: true } });
    expect(rules(def).maxCalls).toEqual({ value: 2, source: "heuristic" });
  });

  test("resolveToolRules() ignores destructiveHint for a tool a stronger layer names", () => {
    const def = definition("write_file", ["path", "content"], { annotations: { destructiveHint: true } });
    const result = rules(
      def,
      "",
      "match: { commands: [x] }\nwrite_file: { exfiltrating: false, write_params: [path] }\n",
    );
    expect(result.maxCalls).toBeUndefined();
  });

  test.each([
    ["destructiveHint: false", { destructiveHint: false }],
    ['destructiveHint: "true" (not a boolean)', { destructiveHint: "true" }],
  ] as const)("resolveToolRules() adds no budget for %s", (_name, annotations) => {
    expect(rules(definition("archive_project", ["id"], { annotations })).maxCalls).toBeUndefined();
  });

  test("resolveToolRules() keeps the destructive verb budget even with destructiveHint: false", () => {
    const def = definition("delete_item", ["id"], { annotations: { destructiveHint: false } });
    expect(rules(def).maxCalls).toEqual({ value: 2, source: "heuristic" });
  });

  test("resolveToolRules() never loosens for readOnlyHint: a sink-shaped tool stays exfiltrating", () => {
    const def = definition("send_email", ["to"], { annotations: { readOnlyHint: true } });
    expect(rules(def).exfiltrating).toEqual({ value: true, source: "heuristic" });
  });

  test("heuristicRules() proposes nothing for a tool without schema or risky name", () => {
    expect(heuristicRules("list_things", undefined)).toEqual({});
  });
});
