import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DEFAULT_MAX_LINE_BYTES, LineFramer, type OversizedLine } from "../../src/proxy/line-framer.ts";

const encoder = new TextEncoder();

function frame(
  chunks: readonly (string | Uint8Array)[],
  maxLineBytes?: number,
): { lines: string[]; oversized: OversizedLine[] } {
  const lines: string[] = [];
  const oversized: OversizedLine[] = [];
  const framer = new LineFramer((line) => lines.push(line), {
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
    onOversize: (line) => oversized.push(line),
  });
  for (const chunk of chunks) framer.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  framer.end();
  return { lines, oversized };
}

describe("LineFramer", () => {
  test("LineFramer delivers several messages of one chunk in order", () => {
    expect(frame(['{"a":1}\n{"b":2}\n{"c":3}\n']).lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test("LineFramer joins a message split across chunks", () => {
    expect(frame(['{"jsonrpc":', '"2.0","id"', ":3}\n"]).lines).toEqual(['{"jsonrpc":"2.0","id":3}']);
  });

  test("LineFramer keeps a UTF-8 character split between chunks (F01)", () => {
    const bytes = encoder.encode('{"t":"é€😀"}\n');
    const cuts = [7, 8, 10, 12];
    const chunks = [
      bytes.subarray(0, 7),
      bytes.subarray(7, 8),
      bytes.subarray(8, 10),
      bytes.subarray(10, 12),
      bytes.subarray(12),
    ];
    expect(cuts.length + 1).toBe(chunks.length);
    expect(frame(chunks).lines).toEqual(['{"t":"é€😀"}']);
  });

  test.each([
    ["CRLF line ends", '{"a":1}\r\n{"b":2}\r\n', ['{"a":1}', '{"b":2}']],
    ["blank and whitespace-only lines", '\n\n{"a":1}\n   \n\t\r\n{"b":2}\n', ['{"a":1}', '{"b":2}']],
    ["a leading BOM", '\uFEFF{"a":1}\n', ['{"a":1}']],
    ["a BOM on a later line", '{"a":1}\n\uFEFF{"b":2}\n', ['{"a":1}', '{"b":2}']],
    ["a last line without newline at the end of input", '{"a":1}\n{"b":2}', ['{"a":1}', '{"b":2}']],
    [
      "a non-JSON line (passed on: the relay reports it)",
      'banner text\n{"a":1}\n',
      ["banner text", '{"a":1}'],
    ],
  ] as const)("LineFramer accepts %s", (_name, input, expected) => {
    expect(frame([input]).lines).toEqual([...expected]);
  });

  test("LineFramer passes a line of exactly the limit and reports one byte more, then carries on", () => {
    const limit = 32;
    const exact = `{"x":"${"a".repeat(limit - 8)}"}`;
    const over = `{"x":"${"a".repeat(limit - 7)}"}`;
    expect(encoder.encode(exact).byteLength).toBe(limit);
    const { lines, oversized } = frame([`${exact}\n${over}\n{"after":1}\n`], limit);
    expect(lines).toEqual([exact, '{"after":1}']);
    expect(oversized).toHaveLength(1);
    expect(oversized[0]?.byteLength).toBe(limit + 1);
  });

  test("LineFramer discards an over-long line without buffering it and reports its head and tail", () => {
    const head = '{"jsonrpc":"2.0","id":41,"result":"';
    const tail = '"}';
    const chunks = [head, ..."x".repeat(50).split(""), tail, '\n{"next":true}\n'];
    const { lines, oversized } = frame(chunks, 40);
    expect(lines).toEqual(['{"next":true}']);
    expect(oversized[0]?.head.startsWith(head)).toBe(true);
    expect(oversized[0]?.tail.endsWith(tail)).toBe(true);
    expect(oversized[0]?.byteLength).toBe(head.length + 50 + tail.length);
  });

  test("LineFramer passes a 64 MiB line in 64 KiB chunks and reports 64 MiB + 1 (default limit)", () => {
    const prefix = encoder.encode('{"t":"');
    const suffix = encoder.encode('"}\n');
    const build = (size: number): Uint8Array => {
      const bytes = new Uint8Array(size + 1).fill(0x61);
      bytes.set(prefix, 0);
      bytes.set(suffix, size - 2);
      return bytes;
    };
    const exact = build(DEFAULT_MAX_LINE_BYTES);
    const over = build(DEFAULT_MAX_LINE_BYTES + 1);
    let delivered = 0;
    let lastLength = 0;
    const oversized: OversizedLine[] = [];
    const framer = new LineFramer(
      (line) => {
        delivered++;
        lastLength = line.length;
      },
      { onOversize: (line) => oversized.push(line) },
    );
    for (const bytes of [exact, over]) {
      for (let i = 0; i < bytes.byteLength; i += 65536) framer.push(bytes.subarray(i, i + 65536));
    }
    expect(delivered).toBe(1);
    expect(lastLength).toBe(DEFAULT_MAX_LINE_BYTES);
    expect(oversized.map((o) => o.byteLength)).toEqual([DEFAULT_MAX_LINE_BYTES + 1]);
  });

  test("LineFramer yields the same lines however the bytes are chunked (property)", () => {
    const line = fc.stringMatching(/^[^\n\r\uFEFF]*$/).filter((s) => s.trim() !== "");
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (lines, cutSeeds) => {
          const bytes = encoder.encode(`${lines.join("\n")}\n`);
          const cuts = [...new Set(cutSeeds.map((seed) => seed % (bytes.byteLength + 1)))].sort(
            (a, b) => a - b,
          );
          const chunks: Uint8Array[] = [];
          let start = 0;
          for (const cut of [...cuts, bytes.byteLength]) {
            chunks.push(bytes.subarray(start, cut));
            start = cut;
          }
          expect(frame(chunks).lines).toEqual(lines);
        },
      ),
    );
  });
});
