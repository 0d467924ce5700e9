import { describe, expect, test } from "bun:test";
import { makeRoom } from "../../src/proxy/make-room.ts";

describe("makeRoom()", () => {
  test("makeRoom() forgets the oldest entries of a Set until one more fits, and nothing below the limit", () => {
    const memo = new Set(["a", "b", "c", "d"]);
    makeRoom(memo, 5);
    expect([...memo]).toEqual(["a", "b", "c", "d"]);
    makeRoom(memo, 4);
    expect([...memo]).toEqual(["b", "c", "d"]);
    makeRoom(memo, 2);
    expect([...memo]).toEqual(["d"]);
  });

  test("makeRoom() forgets a Map's entries by insertion order, a re-inserted key last", () => {
    const memo = new Map([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    memo.delete("a");
    memo.set("a", 1);
    makeRoom(memo, 2);
    expect([...memo.keys()]).toEqual(["a"]);
  });
});
