import { describe, expect, test } from "bun:test";
import { scanToml } from "../../src/init/toml-cst.ts";

describe("scanToml()", () => {
  test("scanToml() finds tables, dotted keys and the ranges of values and array elements", () => {
    const text = 'a = 1 # one\n[t."q.k"]\nx.y = ["p", \'q\'] # two\n[[arr]]\nz = 2\n';
    const tables = scanToml(text);
    expect(tables.map((table) => [table.path, table.array])).toEqual([
      [[], false],
      [["t", "q.k"], false],
      [["arr"], true],
    ]);
    const kv = tables[1]?.entries[0];
    expect(kv?.key.parts).toEqual(["x", "y"]);
    expect(text.slice(kv?.value.start, kv?.value.end)).toBe(`["p", 'q']`);
    expect(kv?.value.items.map((item) => text.slice(item.start, item.end))).toEqual(['"p"', "'q'"]);
    expect(text.slice(kv?.lineStart, kv?.lineEnd)).toBe(`x.y = ["p", 'q'] # two`);
  });

  test.each([
    ['"""a\nb"""', 'v = """a\nb"""\nw = 1\n'],
    ["'''x'''''", "v = '''x'''''\nw = 1\n"],
    ["1979-05-27 07:32:00Z", "v = 1979-05-27 07:32:00Z\nw = 1\n"],
    ['{ a = [1, 2], b = { c = "}" } }', 'v = { a = [1, 2], b = { c = "}" } }\nw = 1\n'],
    ['"a \\" b"', 'v = "a \\" b"\nw = 1\n'],
  ])("scanToml() reads the whole value %j", (value, text) => {
    const [root] = scanToml(text);
    const [v, w] = root?.entries ?? [];
    expect(text.slice(v?.value.start, v?.value.end)).toBe(value);
    expect(w?.key.parts).toEqual(["w"]);
  });
});
