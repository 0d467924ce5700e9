import { describe, expect, test } from "bun:test";
import { formatPolicyIssue, PolicyError } from "../../src/policy/index.ts";
import type { PolicyIssue } from "../../src/policy/types.ts";

const ISSUE: PolicyIssue = {
  code: "unknown_key",
  file: "bouncer.yaml",
  line: 4,
  column: 3,
  message: 'unknown key "alow" in tool "send_email" (did you mean "action"?)',
  tool: "send_email",
  key: "alow",
};

describe("PolicyError and formatPolicyIssue() (STYLE #11, #12)", () => {
  test("formatPolicyIssue() puts line and column before the detail", () => {
    expect(formatPolicyIssue(ISSUE)).toBe(
      'line 4, column 3: unknown key "alow" in tool "send_email" (did you mean "action"?)',
    );
  });

  test.each([
    [[ISSUE], ""],
    [[ISSUE, ISSUE], ", and 1 more issue"],
    [[ISSUE, ISSUE, ISSUE], ", and 2 more issues"],
  ] as const)(
    "PolicyError with %# further issues says so in one line without a final period",
    (issues, tail) => {
      const error = new PolicyError("bouncer.yaml", issues as unknown as [PolicyIssue, ...PolicyIssue[]]);
      expect(error.message).toBe(`Cannot load policy "bouncer.yaml": ${formatPolicyIssue(ISSUE)}${tail}`);
      expect(error.message).not.toMatch(/[.\n]$/u);
      expect(error.code).toBe("POLICY_INVALID");
      expect(error.name).toBe("PolicyError");
      expect([error.file, error.line, error.column]).toEqual(["bouncer.yaml", 4, 3]);
    },
  );

  test("PolicyError names a pack when asked to", () => {
    expect(new PolicyError("gmail.yaml", [ISSUE], { what: "pack" }).message).toMatch(
      /^Cannot load pack "gmail\.yaml": /u,
    );
  });
});
