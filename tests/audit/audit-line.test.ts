import { expect, test } from "bun:test";
import fc from "fast-check";
import { isoStamper } from "../../src/audit/audit-line.ts";

test("isoStamper() gives the text of Date.prototype.toISOString for every millisecond, across second boundaries", () => {
  const stamp = isoStamper();
  const start = Date.UTC(2026, 0, 2, 3, 4, 5, 990);
  for (let ms = start; ms < start + 2100; ms++) expect(stamp(ms)).toBe(new Date(ms).toISOString());
});

test("isoStamper() agrees with toISOString for any time in any order, fractional and negative ones included", () => {
  const stamp = isoStamper();
  fc.assert(
    fc.property(
      fc.oneof(
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
        fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
      ),
      (ms) => {
        expect(stamp(ms)).toBe(new Date(ms).toISOString());
      },
    ),
  );
});

test("isoStamper() throws like toISOString for a time it cannot render", () => {
  expect(() => isoStamper()(Number.NaN)).toThrow(RangeError);
});
