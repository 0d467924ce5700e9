import { describe, expect, test } from "bun:test";
import { destinationRule, type JsonObject, type RuleSource, type Sourced } from "../../src/engine/index.ts";
import { schemaOf } from "./helpers.ts";

const user = (value: string): Sourced<string> => ({ value, source: "user:bouncer.yaml" as RuleSource });

describe("destinationRule()", () => {
  const rule = (schema: JsonObject | undefined, sinks: string[], heuristics = true) =>
    destinationRule({ tool: "send_email", schema, sinkParams: sinks.map(user), heuristics });

  test("destinationRule() names the sink-shaped properties when nothing is declared", () => {
    const found = rule(schemaOf("to", "subject", "recipients"), []);
    expect(found.kind).toBe("named");
    if (found.kind !== "named") return;
    expect(found.sinkShaped).toEqual(["to", "recipients"]);
    expect([found.inSchema("subject"), found.inSchema("bcc"), found.isSinkShaped("subject")]).toEqual([
      true,
      false,
      false,
    ]);
  });

  test.each<[string, JsonObject | undefined, string[], boolean, string]>([
    ["a declared sink in the schema", schemaOf("target", "body"), ["target"], true, "named"],
    [
      "a declared sink absent from the schema",
      schemaOf("to", "body"),
      ["recipient"],
      true,
      "every/declared_not_in_schema",
    ],
    ["nothing declared, nothing sink-shaped", schemaOf("body", "subject"), [], true, "every/no_sink_shaped"],
    ["nothing declared, heuristics off", schemaOf("to", "body"), [], false, "every/heuristics_off"],
    ["no schema at all", undefined, [], true, "every/no_sink_shaped"],
  ])("destinationRule() with %s", (_name, schema, sinks, heuristics, expected) => {
    const found = rule(schema, sinks, heuristics);
    expect(found.kind === "every" ? `every/${found.why}` : found.kind).toBe(expected);
  });
});
