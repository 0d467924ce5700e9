import { describe, expect, test } from "bun:test";
import { syntheticAddress, syntheticText } from "../../../scripts/bench/perf/synthetic-output.ts";

/** Distinct email addresses in a text. */
function addresses(text: string): Set<string> {
  return new Set(text.match(/[\w.]+@[\w.-]+\.example/g) ?? []);
}

describe("syntheticText", () => {
  test.each([1, 1024, 1024 ** 2 + 7])("syntheticText() is exactly %p bytes of ASCII", (bytes) => {
    const text = syntheticText(bytes, 3);
    expect(text.length).toBe(bytes);
    expect(new TextEncoder().encode(text).byteLength).toBe(bytes);
  });

  test("syntheticText() is the same for the same seed and shares no address across seeds", () => {
    expect(syntheticText(4096, 1)).toBe(syntheticText(4096, 1));
    const one = addresses(syntheticText(64 * 1024, 1));
    const two = addresses(syntheticText(64 * 1024, 2));
    expect(one.size).toBeGreaterThan(100);
    expect([...one].filter((address) => two.has(address))).toEqual([]);
  });

  test("syntheticText() names a new address on every dense line and on one sparse line in 16", () => {
    const dense = syntheticText(64 * 1024, 5, "dense");
    const sparse = syntheticText(64 * 1024, 5, "sparse");
    const denseLines = dense.split("\n").length;
    expect(addresses(dense).size).toBeGreaterThanOrEqual(denseLines - 1);
    const sparseLines = sparse.split("\n").length;
    expect(addresses(sparse).size).toBeLessThanOrEqual(Math.ceil(sparseLines / 16));
    expect(addresses(sparse).size).toBeGreaterThan(0);
  });

  test("syntheticText() starts with the address syntheticAddress() names for line 0", () => {
    expect(syntheticText(1024, 9)).toContain(syntheticAddress(9, 0));
  });

  test("syntheticText() lines are not YAML mappings (no 'Key: value' lines)", () => {
    expect(syntheticText(64 * 1024, 4)).not.toMatch(/^[^\n:]*: /m);
  });
});
