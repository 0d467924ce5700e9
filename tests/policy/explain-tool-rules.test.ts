import { describe, expect, test } from "bun:test";
import {
  createPolicy,
  explainToolRules,
  packJson,
  parsePack,
  parsePolicy,
  policyFileJson,
  resolveToolRules,
  toolEntryJson,
} from "../../src/policy/index.ts";

const PACK = parsePack(
  "match: { commands: [m] }\nsend_email: { exfiltrating: true, sink_params: [to] }\n",
  "mail",
);

describe("explainToolRules() (SPEC §5.5: each effective key with its layer)", () => {
  test("explainToolRules() lists every set key with the layer it came from, unions one row per entry", () => {
    const file = parsePolicy(
      `defaults: { trusted_destinations: ["*@corp.example"] }
send_email:
  sink_params: [cc]
  max_calls: 5
  arg_patterns: { subject: "[^/]*|a/b" }
`,
      "u.yaml",
    );
    const rules = resolveToolRules(createPolicy([file], [PACK]), {
      server: "mail",
      tool: "send_email",
      packs: [{ pack: PACK, by: "command", pattern: "m", value: "m", commandIndex: 0 }],
    });
    expect(explainToolRules(rules)).toEqual([
      { key: "action", value: "allow", source: "default" },
      // The user's sink_params is the strongest word on it (it implies exfiltrating).
      { key: "exfiltrating", value: true, source: "user:u.yaml" },
      { key: "sink_params", value: "cc", source: "user:u.yaml" },
      { key: "sink_params", value: "to", source: "pack:mail" },
      { key: "trusted_destinations", value: "*@corp.example", source: "user:u.yaml", layer: "defaults" },
      { key: "on_tainted", value: "deny", source: "default" },
      { key: "taint_fields", value: "lenient", source: "default" },
      { key: "arg_patterns", value: { subject: "[^/]*|a/b" }, source: "user:u.yaml" },
      { key: "max_calls", value: 5, source: "user:u.yaml" },
      { key: "unclassified", value: "allow", source: "default" },
    ]);
  });

  test("explainToolRules() shows the heuristic layer", () => {
    const rules = resolveToolRules(createPolicy([], []), { server: "s", tool: "delete_item", packs: [] });
    expect(explainToolRules(rules)).toContainEqual({ key: "max_calls", value: 2, source: "heuristic" });
  });
});

describe("JSON renderings of policy data (SPEC §5.4, §5.5, §5.7)", () => {
  test("toolEntryJson() writes an entry back in the file's key names", () => {
    const file = parsePolicy(
      "w: { write_params: [path], allowed_path_prefixes: [./out], max_calls: 2, trusted_output: true, action: ask }\n",
      "u.yaml",
    );
    expect(toolEntryJson(file.tools.get("w")!)).toEqual({
      action: "ask",
      write_params: ["path"],
      allowed_path_prefixes: ["./out"],
      max_calls: 2,
      trusted_output: true,
    });
  });

  test("packJson() writes name, header, match and tools", () => {
    expect(packJson(PACK)).toEqual({
      name: "mail",
      header: "",
      match: { commands: ["m"], server_names: [], upstream_names: [] },
      tools: { send_email: { exfiltrating: true, sink_params: ["to"] } },
    });
  });

  test("policyFileJson() writes defaults, servers and tools, tools named like prototype members included", () => {
    const file = parsePolicy(
      "defaults: { unclassified: ask }\nservers: { mail: { defaults: { trusted_destinations: [a@b.example] }, toString: { action: deny } } }\nvalueOf: { max_calls: 1 }\n",
      "u.yaml",
    );
    const json = policyFileJson(file);
    expect(JSON.parse(JSON.stringify(json))).toEqual({
      file: "u.yaml",
      defaults: { unclassified: "ask" },
      servers: {
        mail: {
          tools: { toString: { action: "deny" } },
          defaults: { trusted_destinations: ["a@b.example"] },
        },
      },
      tools: { valueOf: { max_calls: 1 } },
    });
  });
});
