import { describe, expect, test } from "bun:test";
import { decisionOrder } from "../../src/proxy/replay-order.ts";
import { parseSession, type SessionEvent } from "../../src/proxy/replay-session.ts";

const call = (server: string, seq?: number): string =>
  JSON.stringify({ event: "call", server, tool: "t", ...(seq === undefined ? {} : { seq }) });
const tools = (server: string): string => JSON.stringify({ event: "tools", server, tools: [] });
const server = (name: string): string => JSON.stringify({ event: "server", server: name });

/** The file lines of the events in the order decisionOrder() gives. */
function order(lines: readonly string[]): number[] {
  return decisionOrder(parseSession(lines.join("\n"))).map((event: SessionEvent) => event.line);
}

describe("decisionOrder()", () => {
  test("decisionOrder() moves a call written after one with a larger seq up to just before it", () => {
    expect(order([tools("fs"), call("fs", 2), tools("fs"), call("fs", 1)])).toEqual([1, 4, 2, 3]);
    expect(order([call("fs", 3), call("fs", 1), call("fs", 2)])).toEqual([2, 3, 1]);
  });

  test("decisionOrder() keeps calls in file order when their seqs already rise", () => {
    expect(order([call("fs", 1), call("fs", 2), call("fs", 2), call("fs", 5)])).toEqual([1, 2, 3, 4]);
  });

  test("decisionOrder() starts an instance's count again at each server event of that server", () => {
    expect(order([server("fs"), call("fs", 1), call("fs", 2), server("fs"), call("fs", 1)])).toEqual([
      1, 2, 3, 4, 5,
    ]);
  });

  test("decisionOrder() orders each run's calls by seq apart when two runs of a server interleave", () => {
    const of = (run: string, line: string): string =>
      line.replace('"server":"fs"', `"server":"fs","run":"${run}"`);
    expect(
      order([
        of("a", server("fs")),
        of("a", call("fs", 2)),
        of("b", server("fs")),
        of("b", call("fs", 1)),
        of("a", call("fs", 1)),
      ]),
    ).toEqual([1, 5, 2, 3, 4]);
  });

  test("decisionOrder() never orders calls of different servers by their seqs", () => {
    expect(order([call("a", 2), call("b", 1), call("a", 1)])).toEqual([3, 1, 2]);
  });

  test("decisionOrder() leaves calls without a seq where they are", () => {
    expect(order([call("fs"), call("fs", 2), call("fs"), call("fs", 1)])).toEqual([1, 4, 2, 3]);
  });
});
