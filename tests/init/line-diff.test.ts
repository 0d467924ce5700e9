import { describe, expect, test } from "bun:test";
import { applyPatch, createTwoFilesPatch } from "diff";
import fc from "fast-check";
import { clientByName } from "../../src/init/client-table.ts";
import { unifiedDiff } from "../../src/init/line-diff.ts";
import { maskedDiff } from "../../src/init/masked-diff.ts";
import { planInit } from "../../src/init/plan.ts";
import { maskText } from "../../src/init/secrets.ts";
import { SAMPLES, type Sample, SOURCE_LAUNCHER, sampleClient, sampleText } from "./samples.ts";
import { manyServers } from "./small-tmpfs.ts";

/** The diff the `diff` library prints for the same texts. */
function libraryDiff(before: string, after: string): string {
  return createTwoFilesPatch("f", "f", before, after, undefined, undefined, {
    context: 3,
    headerOptions: { includeIndex: false, includeUnderline: false, includeFileHeaders: true },
  });
}

describe("unifiedDiff()", () => {
  test.each(SAMPLES.map((sample) => [sample.file, sample] as [string, Sample]))(
    "unifiedDiff() of wrapping %s reads as the diff library's own diff, both ways",
    (_, sample) => {
      const before = sampleText(sample.file);
      const { after } = planInit(before, {
        client: sampleClient(sample),
        mode: "wrap",
        launcher: SOURCE_LAUNCHER,
      });
      expect(unifiedDiff("f", { before, after })).toBe(libraryDiff(before, after));
      expect(unifiedDiff("f", { before: after, after: before })).toBe(libraryDiff(after, before));
    },
  );

  test("unifiedDiff() of equal texts is the two header lines", () => {
    expect(unifiedDiff("a.json", { before: "x\n", after: "x\n" })).toBe("--- a.json\n+++ a.json\n");
  });

  test("unifiedDiff() marks a last line without a line feed", () => {
    expect(unifiedDiff("f", { before: "a\nb", after: "a\nc" })).toBe(libraryDiff("a\nb", "a\nc"));
  });

  test("unifiedDiff() gives a patch that turns the old text into the new one, whatever the lines", () => {
    // Few distinct lines: many repeats, few unique anchors, the hard case for the anchoring.
    const lines = fc.array(fc.constantFrom("a\n", "b\n", "c\n", "{\n", "}\n", "x"), { maxLength: 40 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const [before, after] = [a.join(""), b.join("")];
        expect(applyPatch(before, unifiedDiff("f", { before, after }))).toBe(after);
      }),
      { numRuns: 500 },
    );
  });

  test("maskedDiff() of a config of 2,000 servers, each rewritten, is a patch of the masked texts", () => {
    // The library's diff of this pair took minutes (its cost grows with length × changed lines).
    const client = clientByName("claude-desktop");
    if (client === undefined) throw new Error("no claude-desktop client");
    const before = manyServers(2000);
    const plan = planInit(before, { client, mode: "wrap", launcher: SOURCE_LAUNCHER });
    const diff = maskedDiff(plan, { file: "f", client });
    const masked = maskText(before, plan.config.secretSpans);
    expect(applyPatch(masked, diff)).toBe(maskText(plan.after, []));
    expect(diff.match(/^\+ +"command": /gm)).toHaveLength(2000);
  });
});
