import { describe, expect, test } from "bun:test";
import { GC_MIN_LINE_BYTES, GcNudge, runtimeCollect } from "../../src/platform/gc-nudge.ts";
import { LineFramer } from "../../src/proxy/line-framer.ts";

const encoder = new TextEncoder();

describe("GcNudge", () => {
  test("collects once everyBytes of large lines passed since the last collection", () => {
    let collections = 0;
    const big = GC_MIN_LINE_BYTES;
    const nudge = new GcNudge({ everyBytes: 3 * big, collect: () => collections++ });
    nudge.passed(big);
    nudge.passed(big);
    expect(collections).toBe(0);
    nudge.passed(big);
    expect(collections).toBe(1);
    nudge.passed(2 * big);
    expect(collections).toBe(1);
    nudge.passed(big);
    expect(collections).toBe(2);
  });

  test("a line that alone reaches everyBytes is collected for before its handler, without counting it", () => {
    let collections = 0;
    const big = GC_MIN_LINE_BYTES;
    const nudge = new GcNudge({ everyBytes: 2 * big, collect: () => collections++ });
    nudge.arrived(2 * big - 1);
    expect(collections).toBe(0);
    nudge.arrived(2 * big);
    expect(collections).toBe(1);
    // Arrivals leave the count of passed lines alone: one passed line of `big` does not reach it.
    nudge.passed(big);
    expect(collections).toBe(1);
    nudge.passed(big);
    expect(collections).toBe(2);
  });

  test("a line under the large-line size never collects on arrival, even with a smaller everyBytes", () => {
    let collections = 0;
    const nudge = new GcNudge({ everyBytes: 1, collect: () => collections++ });
    nudge.arrived(GC_MIN_LINE_BYTES - 1);
    expect(collections).toBe(0);
    nudge.arrived(GC_MIN_LINE_BYTES);
    expect(collections).toBe(1);
  });

  test("small lines are never counted, however many pass", () => {
    let collections = 0;
    const nudge = new GcNudge({ everyBytes: GC_MIN_LINE_BYTES, collect: () => collections++ });
    for (let i = 0; i < 100_000; i++) nudge.passed(GC_MIN_LINE_BYTES - 1);
    expect(collections).toBe(0);
  });

  test("a failing collector is ignored: the line passes and the next threshold collects again", () => {
    let attempts = 0;
    const failing = new GcNudge({
      everyBytes: GC_MIN_LINE_BYTES,
      collect: () => {
        attempts++;
        throw new Error("boom");
      },
    });
    expect(() => failing.passed(GC_MIN_LINE_BYTES)).not.toThrow();
    failing.passed(GC_MIN_LINE_BYTES);
    expect(attempts).toBe(2);
    expect(() => failing.arrived(GC_MIN_LINE_BYTES)).not.toThrow();
    expect(attempts).toBe(3);
  });

  test("under Bun the runtime collector exists and runs", () => {
    const collect = runtimeCollect();
    expect(typeof collect).toBe("function");
    expect(() => collect?.()).not.toThrow();
  });
});

describe("LineFramer nudge", () => {
  test("is told each delivered line's byte length after its handler, never for blank lines", () => {
    const events: string[] = [];
    const framer = new LineFramer((line) => events.push(`line ${line}`), {
      nudge: { passed: (bytes) => events.push(`passed ${bytes}`) },
    });
    framer.push(encoder.encode('{"a":"é"}\r\n   \n\n{"b":1}'));
    framer.end();
    expect(events).toEqual(['line {"a":"é"}', "passed 10", 'line {"b":1}', "passed 7"]);
  });

  test("is told each line's byte length once decoded, before its handler, when it listens for arrivals", () => {
    const events: string[] = [];
    const framer = new LineFramer((line) => events.push(`line ${line}`), {
      nudge: {
        arrived: (bytes) => events.push(`arrived ${bytes}`),
        passed: (bytes) => events.push(`passed ${bytes}`),
      },
    });
    framer.push(encoder.encode('{"a":"é"}\r\n   \n{"b":'));
    framer.push(encoder.encode("1}\n"));
    expect(events).toEqual([
      "arrived 10",
      'line {"a":"é"}',
      "passed 10",
      "arrived 7",
      'line {"b":1}',
      "passed 7",
    ]);
  });

  test("a collecting nudge collects before and after each line of everyBytes, lines unchanged", () => {
    const lines: string[] = [];
    const collect = runtimeCollect();
    const events: string[] = [];
    const framer = new LineFramer(
      (line) => {
        events.push("line");
        lines.push(line);
      },
      {
        nudge: new GcNudge({
          everyBytes: 100_000,
          collect: () => {
            events.push("collect");
            collect?.();
          },
        }),
      },
    );
    const big = `{"x":"${"y".repeat(100_000)}"}`;
    framer.push(encoder.encode(`${big}\n${big.slice(0, 50_000)}`));
    framer.push(encoder.encode(`${big.slice(50_000)}\n`));
    expect(lines).toEqual([big, big]);
    expect(events).toEqual(["collect", "line", "collect", "collect", "line", "collect"]);
  });

  test("a collecting nudge with everyBytes 1 collects before and after each large line", () => {
    const lines: string[] = [];
    const collect = runtimeCollect();
    let collections = 0;
    const framer = new LineFramer((line) => lines.push(line), {
      nudge: new GcNudge({
        everyBytes: 1,
        collect: () => {
          collections++;
          collect?.();
        },
      }),
    });
    const big = `{"x":"${"y".repeat(100_000)}"}`;
    framer.push(encoder.encode(`${big}\n${big}\n`));
    expect(lines).toEqual([big, big]);
    expect(collections).toBe(4);
  });
});
