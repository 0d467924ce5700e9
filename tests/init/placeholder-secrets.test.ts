// biome-ignore-all lint/suspicious/noTemplateCurlyInString: client placeholders are the data under test
import { describe, expect, test } from "bun:test";
import { filledValues, secretPlaceholderNames } from "../../src/init/placeholder-secrets.ts";

describe("secretPlaceholderNames()", () => {
  test.each<[string, string[]]>([
    ["${GH_TOKEN}", ["GH_TOKEN"]],
    ["Bearer ${T}", ["T"]],
    ["postgres://${PGUSER}:${PGPASSWORD}@${PGHOST}/app", ["PGPASSWORD"]],
    ["postgres://app:${DB}@db/app", ["DB"]],
    ["${HOME}/data", []],
  ])("secretPlaceholderNames(%p) is %p", (value, names) => {
    expect(secretPlaceholderNames(value).sort()).toEqual(names.sort());
  });

  test("secretPlaceholderNames() with all counts every variable (under a secret-named key)", () => {
    expect(secretPlaceholderNames("${A}-${B}", { all: true })).toEqual(["A", "B"]);
  });

  test("filledValues() gives the values of set variables only", () => {
    expect(filledValues(["A", "B"], { A: "x" })).toEqual(["x"]);
  });
});
