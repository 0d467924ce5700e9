import { describe, expect, test } from "bun:test";
import type { JsonObject } from "../../src/engine/index.ts";
import { elicitationSupport } from "../../src/proxy/elicitation-support.ts";

function init(capabilities: JsonObject, protocolVersion = "2025-06-18"): JsonObject {
  return { protocolVersion, capabilities, clientInfo: { name: "c", version: "1" } };
}

describe("elicitationSupport()", () => {
  test.each<[string, JsonObject, string | undefined, boolean]>([
    ["an empty elicitation capability (form mode)", init({ elicitation: {} }), undefined, true],
    ["form mode declared", init({ elicitation: { form: {} } }, "2025-11-25"), undefined, true],
    [
      "form and URL modes declared",
      init({ elicitation: { form: {}, url: {} } }, "2025-11-25"),
      undefined,
      true,
    ],
    ["URL mode only", init({ elicitation: { url: {} } }, "2025-11-25"), undefined, false],
    ["no elicitation capability (Claude Desktop)", init({}), undefined, false],
    ["elicitation that is not an object", init({ elicitation: true }), undefined, false],
    ["a protocol before elicitation", init({ elicitation: {} }, "2025-03-26"), undefined, false],
    ["the upstream answering an older version", init({ elicitation: {} }), "2024-11-05", false],
    [
      "the upstream answering a supported version",
      init({ elicitation: {} }, "2026-07-28"),
      "2025-11-25",
      true,
    ],
    [
      "the 2026-07-28 protocol (no server requests)",
      init({ elicitation: {} }, "2026-07-28"),
      "2026-07-28",
      false,
    ],
    ["a version that is not a date", init({ elicitation: {} }, "latest"), undefined, false],
  ])("elicitationSupport() with %s", (_name, clientInitialize, answered, form) => {
    const support = elicitationSupport({
      clientInitialize,
      ...(answered === undefined ? {} : { upstreamInitialize: { protocolVersion: answered } }),
    });
    expect(support.form).toBe(form);
  });

  test("elicitationSupport() says why there is no channel before the client's initialize", () => {
    expect(elicitationSupport({})).toEqual({
      form: false,
      why: "the client has not sent initialize (a client of protocol version 2026-07-28 sends none, and its multi round-trip asks are not built yet)",
    });
  });

  test("elicitationSupport() ignores an inherited elicitation key", () => {
    const capabilities = Object.create({ elicitation: {} }) as JsonObject;
    expect(elicitationSupport({ clientInitialize: init(capabilities) }).form).toBe(false);
  });
});
