import { describe, expect, test } from "bun:test";
import { checkRunPolicyTexts } from "../../src/proxy/run-policy.ts";

describe("checkRunPolicyTexts()", () => {
  test("checkRunPolicyTexts() names the first issue and how many more there are, with every issue in data", async () => {
    const text = "send_email:\n  exfiltratng: true\n  sink_parms: [to]\n";
    const checked = await checkRunPolicyTexts([{ text, fileName: "p.yaml" }]);
    if (checked.ok) throw new Error("the policy should be refused");
    expect(checked.error.message).toStartWith('Invalid policy: p.yaml:2:3: unknown key "exfiltratng"');
    expect(checked.error.message).toEndWith("(and 1 more: bouncer check --policy FILE lists them all)");
    expect(checked.error.data).toMatchObject({
      code: "POLICY_INVALID",
      issues: [expect.any(String), expect.any(String)],
    });
  });

  test("checkRunPolicyTexts() with one issue says nothing of more", async () => {
    const checked = await checkRunPolicyTexts([{ text: "send_email:\n  alow: true\n", fileName: "p.yaml" }]);
    if (checked.ok) throw new Error("the policy should be refused");
    expect(checked.error.message).not.toContain("more");
    expect(checked.error.message).toContain('unknown key "alow"');
  });
});
