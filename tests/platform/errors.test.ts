import { describe, expect, test } from "bun:test";
import { jsonParseDetail } from "../../src/platform/errors.ts";

describe("jsonParseDetail()", () => {
  test("jsonParseDetail() drops the runtime's own prefix, so the message says 'invalid JSON' once", () => {
    let thrown: unknown;
    try {
      JSON.parse('{"a":');
    } catch (error) {
      thrown = error;
    }
    const detail = jsonParseDetail(thrown);
    expect(detail.length).toBeGreaterThan(0);
    expect(detail).not.toMatch(/JSON Parse error/i);
    expect(jsonParseDetail(new SyntaxError("JSON Parse error: Expected '}'"))).toBe("Expected '}'");
    expect(jsonParseDetail(new SyntaxError("Unexpected end of JSON input"))).toBe(
      "Unexpected end of JSON input",
    );
    expect(jsonParseDetail("odd")).toBe("odd");
  });
});
