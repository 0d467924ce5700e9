import { expect, test } from "bun:test";
import { CACHED_NAME_MAX, cachedByName, NAME_CACHE_MAX } from "../../src/platform/name-cache.ts";

/** A cached function that counts how often it computes each name. */
function counting(): { readonly f: (name: string) => string; readonly calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const f = cachedByName((name) => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    return name.toUpperCase();
  });
  return { f, calls };
}

test("cachedByName() computes a short name once and gives the same result after", () => {
  const { f, calls } = counting();
  expect(f("token")).toBe("TOKEN");
  expect(f("token")).toBe("TOKEN");
  expect(calls.get("token")).toBe(1);
});

test("cachedByName() never keeps a name longer than CACHED_NAME_MAX", () => {
  const { f, calls } = counting();
  const long = "k".repeat(CACHED_NAME_MAX + 1);
  f(long);
  f(long);
  expect(calls.get(long)).toBe(2);
  const edge = "k".repeat(CACHED_NAME_MAX);
  f(edge);
  f(edge);
  expect(calls.get(edge)).toBe(1);
});

test("cachedByName() starts over once NAME_CACHE_MAX names are kept", () => {
  const { f, calls } = counting();
  for (let i = 0; i < NAME_CACHE_MAX; i++) f(`n${i}`);
  f("n0");
  expect(calls.get("n0")).toBe(1);
  f("one more");
  f("n0");
  expect(calls.get("n0")).toBe(2);
});
