/**
 * The runtime's own YAML parser (SPEC §3.2 step 1): `Bun.YAML` under Bun, nothing where it refuses
 * a text (the `yaml` library then says why).
 */

import { describe, expect, test } from "bun:test";
import { parseYamlNatively } from "../../src/platform/yaml-parse.ts";

describe("parseYamlNatively()", () => {
  test("parseYamlNatively() parses with Bun.YAML under Bun", () => {
    expect(parseYamlNatively("a: [1, b]\n")).toEqual({ value: { a: [1, "b"] } });
  });

  test("parseYamlNatively() gives nothing for a text the parser refuses", () => {
    expect(parseYamlNatively("a: [1, b\n")).toBeUndefined();
  });
});
