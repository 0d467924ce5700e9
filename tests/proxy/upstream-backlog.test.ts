import { describe, expect, test } from "bun:test";
import type { RpcErrorObject } from "../../src/proxy/jsonrpc.ts";
import { UpstreamBacklog } from "../../src/proxy/upstream-backlog.ts";

/** A backlog with a 10-character limit, and what it did. */
function backlog(): {
  readonly backlog: UpstreamBacklog;
  readonly refusals: (RpcErrorObject | undefined)[];
  readonly pauses: boolean[];
} {
  const refusals: (RpcErrorObject | undefined)[] = [];
  const pauses: boolean[] = [];
  const made = new UpstreamBacklog({
    refuse: (error) => void refusals.push(error),
    pauseClient: (paused) => void pauses.push(paused),
    log: () => {},
    limitChars: 10,
  });
  return { backlog: made, refusals, pauses };
}

describe("UpstreamBacklog", () => {
  test("UpstreamBacklog refuses requests once more than the limit was written while the upstream's input is full, until it drains", () => {
    const { backlog: b, refusals } = backlog();
    b.written("x".repeat(50));
    expect(refusals).toEqual([]);
    b.upstreamPressure(true);
    b.written("x".repeat(10));
    expect(refusals).toEqual([]);
    b.written("x");
    expect(refusals).toEqual([{ code: -32000, message: expect.stringContaining("not reading its input") }]);
    b.written("x".repeat(50));
    expect(refusals).toHaveLength(1);
    b.upstreamPressure(false);
    expect(refusals).toEqual([expect.anything(), undefined]);
    b.upstreamPressure(true);
    b.written("x".repeat(10));
    expect(refusals).toHaveLength(2);
  });

  test("UpstreamBacklog pauses the client's input only while it refuses and the client's output is full", () => {
    const { backlog: b, pauses } = backlog();
    b.clientPressure(true);
    b.upstreamPressure(true);
    expect(pauses).toEqual([]);
    b.written("x".repeat(11));
    expect(pauses).toEqual([true]);
    b.clientPressure(false);
    b.clientPressure(true);
    b.upstreamPressure(false);
    expect(pauses).toEqual([true, false, true, false]);
  });
});
