import { expect, test } from "bun:test";
import fc from "fast-check";
import { isoStamper, lineEncoder } from "../../src/audit/audit-line.ts";

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

test("lineEncoder() gives the UTF-8 bytes of short and long lines, each call's own", () => {
  const encode = lineEncoder();
  for (const line of [
    "",
    "plain\n",
    "é ✓ 𝄞\n",
    "x".repeat(16 * 1024),
    `${"é".repeat(16 * 1024)}\n`,
    "\ud800 lone\n",
  ]) {
    expect(Buffer.from(encode(line))).toEqual(Buffer.from(line, "utf8"));
  }
  const first = Buffer.from(encode("first\n"));
  encode("second line\n");
  expect(first.toString("utf8")).toBe("first\n");
});
