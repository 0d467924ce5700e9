// biome-ignore-all lint/suspicious/noTemplateCurlyInString: client placeholders such as ${VAR} are the data under test
import { describe, expect, test } from "bun:test";
import { type Expanded, expandPlaceholders } from "../../src/init/placeholders.ts";
import type { ClientKind } from "../../src/init/types.ts";

const context = { env: { HOME: "/h", TOKEN: "t0k" }, workspaceFolder: "/proj", home: "/h" };

describe("expandPlaceholders()", () => {
  test.each<[ClientKind, string, Expanded]>([
    ["vscode", "${workspaceFolder}/test/mcp", { value: "/proj/test/mcp" }],
    ["vscode", "${userHome}/x", { value: "/h/x" }],
    ["vscode", "${env:TOKEN}", { value: "t0k" }],
    ["vscode", "${env:MISSING}", { value: "" }],
    ["vscode", "${input:github_token}", { unresolved: "${input:github_token}" }],
    ["cursor", "${workspaceFolder}", { value: "/proj" }],
    ["claude-code", "${TOKEN}", { value: "t0k" }],
    ["claude-code", "${MISSING:-fallback}", { value: "fallback" }],
    ["claude-code", "${MISSING}", { unresolved: "${MISSING}" }],
    ["gemini", "$TOKEN and ${TOKEN}", { value: "t0k and t0k" }],
    ["claude-desktop", "${TOKEN}", { value: "${TOKEN}" }],
    ["codex", "$TOKEN", { value: "$TOKEN" }],
  ])("expandPlaceholders() for %s turns %j into %j", (client, value, expected) => {
    expect(expandPlaceholders(value, { client, ...context })).toEqual(expected);
  });

  test("expandPlaceholders() does not read inherited keys of the environment", () => {
    expect(expandPlaceholders("${constructor}", { client: "claude-code", ...context })).toEqual({
      unresolved: "${constructor}",
    });
  });
});
