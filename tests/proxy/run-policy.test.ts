import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRunArgs } from "../../src/proxy/run-args.ts";
import { checkOutputFiles, checkRunPolicyTexts } from "../../src/proxy/run-policy.ts";

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

describe("checkOutputFiles()", () => {
  const dir = mkdtempSync(join(tmpdir(), "bouncer-outputs-"));
  writeFileSync(join(dir, "log.jsonl"), "");
  mkdirSync(join(dir, "folder"));
  symlinkSync(join(dir, "folder"), join(dir, "link"));
  const run = (flags: readonly string[]) => parseRunArgs(["--upstream-name", "x", ...flags, "--", "srv"]);

  test.each([[["--audit-log", "log.jsonl", "--record", "missing/deeper/s.jsonl"]], [[]]])(
    "checkOutputFiles() accepts a regular file and a path that does not exist yet (%p)",
    (flags) => {
      expect(checkOutputFiles(run(flags), dir)).toBeUndefined();
    },
  );

  test("checkOutputFiles() refuses a link to a folder, named as given, with a usage error", () => {
    expect(checkOutputFiles(run(["--record", "link"]), dir)).toEqual({
      code: -32001,
      message: 'Cannot use --record "link": it is a folder, not a file (EISDIR)',
      data: { code: "USAGE" },
    });
  });
});
