import { describe, expect, test } from "bun:test";
import { IdTable } from "../../src/proxy/id-table.ts";
import { idKey } from "../../src/proxy/jsonrpc.ts";

describe("IdTable", () => {
  test("IdTable.allocate() gives distinct increasing ids", () => {
    const table = new IdTable<string>();
    const ids = [table.allocate("a"), table.allocate("b"), table.allocate("c")];
    expect(new Set(ids).size).toBe(3);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  test('IdTable.take() matches only the exact integer ("3" is not 3)', () => {
    const table = new IdTable<string>();
    const id = table.allocate("x");
    expect(table.take(String(id))).toBeUndefined();
    expect(table.take(id)).toBe("x");
    expect(table.take(id)).toBeUndefined();
  });

  test("IdTable.idForOrigin() translates an original id until the entry is taken", () => {
    const table = new IdTable<string>();
    const fromNumber = table.allocate("number", { origin: idKey(42) });
    const fromString = table.allocate("string", { origin: idKey("42") });
    expect(fromNumber).not.toBe(fromString);
    expect(table.idForOrigin(idKey(42))).toBe(fromNumber);
    expect(table.idForOrigin(idKey("42"))).toBe(fromString);
    table.take(fromNumber);
    expect(table.idForOrigin(idKey(42))).toBeUndefined();
    expect(table.idForOrigin(idKey("42"))).toBe(fromString);
  });

  test("IdTable.takeAll() empties the table", () => {
    const table = new IdTable<number>();
    table.allocate(1, { origin: "n:0" });
    table.allocate(2);
    expect(table.takeAll().map(([, value]) => value)).toEqual([1, 2]);
    expect(table.size).toBe(0);
    expect(table.idForOrigin("n:0")).toBeUndefined();
  });

  test("IdTable.counted keeps the weighed entries' count and weight as entries are taken, once each", () => {
    const table = new IdTable<string>({
      weigh: (value) => (value.startsWith("own") ? undefined : value.length),
    });
    expect(table.counted).toEqual({ entries: 0, weight: 0 });
    const a = table.allocate("aaa");
    const own = table.allocate("own request");
    const b = table.allocate("bb", { origin: "n:1" });
    expect(table.counted).toEqual({ entries: 2, weight: 5 });
    table.take(own);
    expect(table.counted).toEqual({ entries: 2, weight: 5 });
    table.take(a);
    table.take(a);
    table.take(String(b));
    expect(table.counted).toEqual({ entries: 1, weight: 2 });
    table.allocate("cccc");
    table.takeAll();
    expect(table.counted).toEqual({ entries: 0, weight: 0 });
    table.allocate("d");
    expect(table.counted).toEqual({ entries: 1, weight: 1 });
    expect(new IdTable<string>().counted).toEqual({ entries: 0, weight: 0 });
  });

  test.each([
    [0, "n:0"],
    [42, "n:42"],
    ["42", "s:42"],
    ["", "s:"],
  ] as const)("idKey(%p) keeps the JSON type apart", (id, key) => {
    expect(idKey(id)).toBe(key);
  });
});
