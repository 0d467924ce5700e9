import { expect, test } from "bun:test";
import fc from "fast-check";
import { isoStamper, lineEncoder, toRecord } from "../../src/audit/audit-line.ts";
import type { AuditEntry, AuditRecord } from "../../src/audit/audit-record.ts";
import type { JsonObject } from "../../src/engine/index.ts";
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

/** The tools of the replayed sessions: `read_config`, and `post` and `send` (policies make them exfiltrating). */
const TOOLS = {
  event: "tools",
  server: "s",
  tools: [
    { name: "read_config", inputSchema: { type: "object" } },
    {
      name: "post",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string" }, api_key: { type: "string" } },
      },
    },
    {
      name: "send",
      inputSchema: { type: "object", properties: { message: { type: "string" }, to: { type: "object" } } },
    },
  ],
};

/**
 * The audit record of the last call of a session (after {@link TOOLS}), decided by the real gate
 * (replayed) under `policy`.
 */
async function recordOfLastCall(
  policy: string,
  calls: readonly Record<string, unknown>[],
): Promise<AuditRecord> {
  const files = parsePolicyFiles([{ text: policy, fileName: "p.yaml" }], builtinPacks());
  const lines = [TOOLS, ...calls.map((call) => ({ event: "call", server: "s", ...call }))];
  const session = parseSession(lines.map((line) => JSON.stringify(line)).join("\n"));
  const { rows } = await replaySession(session, new Gate(files, { home: "/h", cwd: "/w" }));
  const row = rows.at(-1);
  const args = calls.at(-1)?.arguments as JsonObject;
  if (row === undefined || row.reason === null) throw new Error("no reason for the last call");
  const entry: AuditEntry = {
    event: "decision",
    session: "s1",
    seq: rows.length,
    server: "s",
    tool: row.tool,
    args,
    verdict: row.verdict,
    contract: row.contract,
    reason: row.reason,
    ...(row.evidence === undefined ? {} : { evidence: row.evidence }),
  };
  return toRecord(entry, { ts: "t", bouncer: "b" });
}

/**
 * The audit record of a call passing `api_key: secret` to an exfiltrating `post` after `read_config`
 * returned `output`.
 */
function recordOfSecretPost(secret: string, output: string): Promise<AuditRecord> {
  return recordOfLastCall("post:\n  exfiltrating: true\n", [
    { tool: "read_config", arguments: {}, result: { content: [{ type: "text", text: output }] } },
    { tool: "post", arguments: { api_key: secret } },
  ]);
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

test("toRecord() hides a secret-named value nested deeper than args show, where the reason quotes it", async () => {
  let to: JsonObject = { password: "SuperSecretValue123" };
  for (let level = 0; level < 70; level += 1) to = { a: to };
  const record = await recordOfLastCall(
    "send:\n  exfiltrating: true\n  trusted_destinations: [a, password, hi]\n",
    [{ tool: "send", arguments: { message: "hi", to } }],
  );
  expect(record.reason).toStartWith('Destination "[redacted]" in "to.a.a.a');
  expect(JSON.stringify(record)).not.toContain("SuperSecretValue123");
});
