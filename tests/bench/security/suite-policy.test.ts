import { describe, expect, test } from "bun:test";
import { parse } from "yaml";
import type { CorpusSuite } from "../../../scripts/bench/security/corpus.ts";
import { suitePolicyText, suiteTools } from "../../../scripts/bench/security/suite-policy.ts";
import { parsePolicyFiles, resolveToolRules } from "../../../src/policy/index.ts";

const object = { type: "object", properties: { hotel: { type: "string" } } };
const SUITE: CorpusSuite = {
  directory_allowlist: ["me@home.example"],
  tools: [
    {
      name: "send_money",
      description: "Sends money.",
      input_schema: { type: "object", properties: { recipient: { type: "string" } } },
      sink_class: "exfiltrating",
      dest_params: ["recipient"],
    },
    {
      name: "reserve_hotel",
      description: "Books.",
      input_schema: object,
      sink_class: "commit",
      dest_params: ["hotel"],
    },
    { name: "get_balance", description: "Reads.", input_schema: { type: "object", properties: {} } },
    { name: "servers", description: "A name that is a reserved key.", input_schema: object },
  ],
};

describe("suitePolicyText()", () => {
  test("suitePolicyText() declares exfiltrating and gated commit tools with their dest_params as sink_params", () => {
    expect(parse(suitePolicyText(SUITE))).toEqual({
      version: 1,
      tools: {
        send_money: { exfiltrating: true, sink_params: ["recipient"] },
        reserve_hotel: { exfiltrating: true, sink_params: ["hotel"] },
      },
    });
  });

  test("suitePolicyText() leaves commit tools out under commit: off and marks others under not-exfiltrating", () => {
    const text = suitePolicyText(SUITE, { commit: "off", others: "not-exfiltrating" });
    expect(parse(text).tools).toEqual({
      send_money: { exfiltrating: true, sink_params: ["recipient"] },
      get_balance: { exfiltrating: false },
      servers: { exfiltrating: false },
    });
  });

  test("suitePolicyText() writes trusted destinations and on_tainted only when asked to", () => {
    const text = suitePolicyText(SUITE, {
      trusted: ["me@home.example"],
      onTainted: "ask",
      askOnTainted: ["send_money"],
    });
    const doc = parse(text);
    expect(doc.defaults).toEqual({ trusted_destinations: ["me@home.example"], on_tainted: "ask" });
    expect(doc.tools.send_money).toEqual({
      exfiltrating: true,
      sink_params: ["recipient"],
      on_tainted: "ask",
    });
  });

  test("suitePolicyText() output validates as a policy file and gates the declared sink", () => {
    const policy = parsePolicyFiles([{ text: suitePolicyText(SUITE), fileName: "suite.yaml" }], []);
    const [definition] = suiteTools(SUITE);
    const rules = resolveToolRules(policy, {
      server: "bank",
      tool: "send_money",
      packs: [],
      ...(definition ? { definition } : {}),
    });
    expect(rules.exfiltrating?.value).toBe(true);
    expect(rules.sinkParams.map((sink) => sink.value)).toEqual(["recipient"]);
  });
});

describe("suiteTools()", () => {
  test("suiteTools() lists each tool with the corpus's input_schema as its inputSchema", () => {
    expect(suiteTools(SUITE)[0]).toEqual({
      name: "send_money",
      description: "Sends money.",
      inputSchema: { type: "object", properties: { recipient: { type: "string" } } },
    });
  });
});
