import { describe, expect, test } from "bun:test";
import { applyEdits } from "jsonc-parser";
import {
  type ArrayShape,
  elementSeparator,
  inlineArray,
  insertIntoArray,
  propertySeparator,
  removeFromArray,
} from "../../src/init/array-edits.ts";

/** The shape of the first array literal of a text whose elements are simple quoted strings. */
function shapeOf(text: string): ArrayShape {
  const start = text.indexOf("[");
  const end = text.indexOf("]", start) + 1;
  const items = [...text.slice(start, end).matchAll(/"[^"]*"/g)].map((m) => ({
    start: start + (m.index ?? 0),
    end: start + (m.index ?? 0) + m[0].length,
  }));
  return { start, end, items };
}

describe("elementSeparator()", () => {
  test.each([
    ['["a", "b"]', ", "],
    ['["a","b"]', ","],
    ['[\n  "a",\n  "b"\n]', ",\n  "],
    ['[\n\t"a"\n]', ",\n\t"],
    ['["a"]', ", "],
    ['[\n  // c\n  "a"\n]', ",\n  "],
    ["[]", ", "],
  ])("elementSeparator() of %j is %j", (text, separator) => {
    expect(elementSeparator(text, shapeOf(text))).toBe(separator);
  });
});

describe("insertIntoArray() and removeFromArray()", () => {
  test.each([
    ['["a", "b"]', '["X", "Y", "a", "b"]'],
    ['[\n  "a"\n]', '[\n  "X",\n  "Y",\n  "a"\n]'],
    ["[]", '["X", "Y"]'],
    ["[ ]", '["X", "Y" ]'],
  ])("insertIntoArray() turns %j into %j and removeFromArray() undoes it", (before, after) => {
    const inserted = applyEdits(before, [
      insertIntoArray(before, { shape: shapeOf(before), elements: ['"X"', '"Y"'] }),
    ]);
    expect(inserted).toBe(after);
    expect(applyEdits(inserted, [removeFromArray(inserted, { shape: shapeOf(inserted), count: 2 })])).toBe(
      before,
    );
  });

  test.each([
    ['[\n        "run",\n        "srv"\n      ]', "[]"],
    ['[\r\n\t"run"\r\n]', "[]"],
    ['[ // kept\n  "run"\n]', "[ // kept\n  \n]"],
  ])("removeFromArray() of every element of %j leaves %j", (before, after) => {
    const shape = shapeOf(before);
    const edit = removeFromArray(before, { shape, count: shape.items.length });
    expect(applyEdits(before, [edit])).toBe(after);
  });

  test("removeFromArray() refuses to remove more elements than there are", () => {
    expect(() => removeFromArray('["a"]', { shape: shapeOf('["a"]'), count: 2 })).toThrow(RangeError);
  });
});

describe("inlineArray() and propertySeparator()", () => {
  test("inlineArray() writes one space inside the brackets", () => {
    expect(inlineArray(['"a"', '"b"'])).toBe('[ "a", "b" ]');
  });

  test.each([
    ['{"a": 1}', ", "],
    ['{\n    "a": 1}', ",\n    "],
    ['{\r\n\t"a": 1}', ",\r\n\t"],
    ['{ // c\n  "a": 1}', ",\n  "],
  ])("propertySeparator() before the key of %j is %j", (text, separator) => {
    expect(propertySeparator(text, text.indexOf('"a"'))).toBe(separator);
  });
});
