import { describe, expect, test } from "bun:test";
import { applyAssignments, deepEqual, verifyRewrite } from "../../src/init/verify-rewrite.ts";

describe("deepEqual()", () => {
  test.each([
    [{ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, false],
    [[1, 2], [2, 1], false],
    [Number.NaN, Number.NaN, true],
    [new Date(0), new Date(0), true],
    [new Date(0), "1970-01-01T00:00:00.000Z", false],
    [Object.assign(Object.create(null), { x: 1 }), { x: 1 }, true],
  ])("deepEqual(%j, %j) is %p", (a, b, expected) => {
    expect(deepEqual(a, b)).toBe(expected);
  });
});

describe("applyAssignments() and verifyRewrite()", () => {
  const before = { s: { a: { command: "x", env: { K: "v" } } }, other: 1 };

  test("applyAssignments() sets and removes values without touching the input", () => {
    const after = applyAssignments(before, [
      { path: ["s", "a", "command"], value: "b" },
      { path: ["s", "a", "env"], remove: true },
    ]);
    expect(after).toEqual({ s: { a: { command: "b" } }, other: 1 });
    expect(before.s.a.command).toBe("x");
  });

  test("applyAssignments() keeps a __proto__ key as plain data", () => {
    const after = applyAssignments({ s: {} }, [{ path: ["s", "__proto__"], value: { polluted: true } }]) as {
      s: Record<string, unknown>;
    };
    expect(Object.keys(after.s)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("applyAssignments() refuses a path that does not lead through objects", () => {
    expect(() => applyAssignments(before, [{ path: ["nope", "x"], value: 1 }])).toThrow(TypeError);
  });

  test("verifyRewrite() accepts exactly the intended change and refuses any other", () => {
    const change = [{ path: ["s", "a", "command"], value: "b" }];
    expect(() =>
      verifyRewrite(before, {
        after: { s: { a: { command: "b", env: { K: "v" } } }, other: 1 },
        assignments: change,
      }),
    ).not.toThrow();
    expect(() =>
      verifyRewrite(before, {
        after: { s: { a: { command: "b", env: { K: "v" } } }, other: 2 },
        assignments: change,
      }),
    ).toThrow("Cannot rewrite the config: the edit would change more than the selected entries");
  });
});
