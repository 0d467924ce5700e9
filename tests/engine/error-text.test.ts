import { describe, expect, test } from "bun:test";
import { errorText } from "../../src/engine/index.ts";

class PinStoreError extends Error {
  override readonly name = "PinStoreError";
}

describe("errorText() (the text a caught value gives a message)", () => {
  test.each<[string, unknown, string]>([
    ["an Error's message, without its name", new TypeError("bad shape"), "bad shape"],
    ["a subclass's message", new PinStoreError("cannot write"), "cannot write"],
    ["an empty message as empty", new Error(""), ""],
    ["a thrown string as it is", "busy", "busy"],
    ["undefined as undefined", undefined, "undefined"],
    ["null as null", null, "null"],
    ["a number as its digits", 42, "42"],
    ["a symbol as Symbol(…)", Symbol("why"), "Symbol(why)"],
    ["a plain object as String() gives it", { message: "not an Error" }, "[object Object]"],
    ["an object's own toString", { toString: (): string => "custom" }, "custom"],
  ])("errorText() gives %s", (_name, thrown, text) => {
    expect(errorText(thrown)).toBe(text);
  });

  test("errorText() throws a TypeError for an object String() cannot convert, as String() does", () => {
    expect(() => errorText(Object.create(null))).toThrow(TypeError);
  });
});
