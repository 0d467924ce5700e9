import { expect, test } from "bun:test";
import fc from "fast-check";
import { isoStamper, lineEncoder, toRecord } from "../../src/audit/audit-line.ts";
import type { AuditEntry, AuditRecord } from "../../src/audit/audit-record.ts";
import { builtinPacks } from "../../src/platform/packs.ts";
import { parsePolicyFiles } from "../../src/policy/index.ts";
import { Gate } from "../../src/proxy/gate.ts";
import { replaySession } from "../../src/proxy/replay.ts";
import { parseSession } from "../../src/proxy/replay-session.ts";

test("isoStamper() gives the text of Date.prototype.toISOString for every millisecond, across second boundaries", () => {
  const stamp = isoStamper();
  const start = Date.UTC(2026, 0, 2, 3, 4, 5, 990);
  for (let ms = start; ms < start + 2100; ms++) expect(stamp(ms)).toBe(new Date(ms).toISOString());
});

test("isoStamper() agrees with toISOString for any time in any order, fractional and negative ones included", () => {
  const stamp = isoStamper();
  fc.assert(
    fc.property(
      fc.oneof(
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
        fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
      ),
      (ms) => {
        expect(stamp(ms)).toBe(new Date(ms).toISOString());
      },
    ),
  );
});

test("isoStamper() throws like toISOString for a time it cannot render", () => {
  expect(() => isoStamper()(Number.NaN)).toThrow(RangeError);
});

test("lineEncoder() gives the UTF-8 bytes of short and long lines, each call's own", () => {
  const encode = lineEncoder();
  for (const line of [
    "",
    "plain\n",
    "é ✓ 𝄞\n",
    "x".repeat(16 * 1024),
    `${"é".repeat(16 * 1024)}\n`,
    "\ud800 lone\n",
  ]) {
    expect(Buffer.from(encode(line))).toEqual(Buffer.from(line, "utf8"));
  }
  const first = Buffer.from(encode("first\n"));
  encode("second line\n");
  expect(first.toString("utf8")).toBe("first\n");
});

/**
 * The audit record of a call passing `api_key: secret` to an exfiltrating `post` after `read_config`
 * returned `output`, decided by the real gate (replayed).
 */
async function recordOfSecretPost(secret: string, output: string): Promise<AuditRecord> {
  const policy = parsePolicyFiles(
    [{ text: "post:\n  exfiltrating: true\n", fileName: "p.yaml" }],
    builtinPacks(),
  );
  const schema = { type: "object", properties: { message: { type: "string" }, api_key: { type: "string" } } };
  const read = { name: "read_config", inputSchema: { type: "object" } };
  const lines = [
    { event: "tools", server: "s", tools: [read, { name: "post", inputSchema: schema }] },
    {
      event: "call",
      server: "s",
      tool: "read_config",
      arguments: {},
      result: { content: [{ type: "text", text: output }] },
    },
    { event: "call", server: "s", tool: "post", arguments: { api_key: secret } },
  ];
  const session = parseSession(lines.map((line) => JSON.stringify(line)).join("\n"));
  const { rows } = await replaySession(session, new Gate(policy, { home: "/h", cwd: "/w" }));
  const row = rows[1];
  if (row === undefined || row.reason === null) throw new Error("no reason for the post call");
  const entry: AuditEntry = {
    event: "decision",
    session: "s1",
    seq: 2,
    server: "s",
    tool: "post",
    args: { api_key: secret },
    verdict: row.verdict,
    contract: row.contract,
    reason: row.reason,
    ...(row.evidence === undefined ? {} : { evidence: row.evidence }),
  };
  return toRecord(entry, { ts: "t", bouncer: "b" });
}

test.each([
  [
    "lower-cased in the excerpt",
    "Hunter2Pass",
    "The service api key is Hunter2Pass (keep it private)",
    /hunter2pass/i,
  ],
  ["of 4 characters", "Hu7X", "The service api key is Hu7X (keep it private)", /hu7x/i],
  [
    "non-ASCII, escaped where the reason quotes it",
    "Pässwort9",
    "Key: Pässwort9 (private)",
    /p(ä|\\u\{e4\})sswort/i,
  ],
  [
    "in full-width letters, NFKC in the excerpt",
    "Ｈｕｎｔ２Ｐａｓｓ",
    "code Ｈｕｎｔ２Ｐａｓｓ here",
    /hunt2pass|\\u\{ff/i,
  ],
])(
  "toRecord() hides a secret-named argument's value where the reason and evidence quote output (%s)",
  async (_name, secret, output, shown) => {
    const record = await recordOfSecretPost(secret, output);
    expect(record.args).toEqual({ api_key: "[redacted]" });
    expect(JSON.stringify(record.evidence)).toContain(`"kind":"free_text"`);
    const text = JSON.stringify({ reason: record.reason, evidence: record.evidence });
    expect(text).not.toMatch(shown);
    expect(text).toContain("[redacted]");
  },
);
