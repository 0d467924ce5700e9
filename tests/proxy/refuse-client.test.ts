/**
 * refuseClient() (SPEC §3.2: never run ungated): every client request gets the refusal with its id
 * exactly as written, notifications and responses are dropped, and the status comes back once a
 * request was answered or stdin closed.
 */

import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { refuseClient } from "../../src/proxy/refuse-client.ts";
import { deadline } from "./support/harness.ts";

const ERROR = { code: -32001, message: "Invalid policy: p.yaml:1:1: bad", data: { code: "POLICY_INVALID" } };

/** Runs refuseClient over in-memory pipes with the given client input, then collects its output. */
async function refuse(input: string, end: boolean): Promise<{ code: number; lines: string[] }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = "";
  stdout.on("data", (chunk: Buffer) => {
    written += chunk.toString("utf8");
  });
  const exited = refuseClient(ERROR, { stdin, stdout }, { exitCode: 2 });
  stdin.write(input);
  if (end) stdin.end();
  const code = await deadline(exited, 5000, "refuseClient resolves");
  return { code, lines: written.split("\n").filter((line) => line !== "") };
}

describe("refuseClient", () => {
  test("refuseClient() answers each request in a chunk with the refusal, keeping each id's exact text, and drops the rest", async () => {
    const input = [
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":1.0,"method":"resources/read","params":{"uri":"x"}}',
      '{"jsonrpc":"2.0","id":"7","result":{}}',
      '{"jsonrpc":"2.0","id":8,"error":{"code":-1,"message":"no"},"result":{"action":"accept"}}',
      '{"jsonrpc":"2.0","id":"a","method":"prompts/get"}',
      "",
    ].join("\n");
    const { code, lines } = await refuse(input, false);
    expect(code).toBe(2);
    expect(lines).toEqual([
      `{"jsonrpc":"2.0","id":1.0,"error":${JSON.stringify(ERROR)}}`,
      `{"jsonrpc":"2.0","id":"a","error":${JSON.stringify(ERROR)}}`,
    ]);
  });

  test.each([
    ["a line that is not JSON", "{not json\n"],
    ["a batch", '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]\n'],
  ])("refuseClient() answers %s with the refusal and id null", async (_name, input) => {
    const { code, lines } = await refuse(input, false);
    expect(code).toBe(2);
    expect(lines).toEqual([`{"jsonrpc":"2.0","id":null,"error":${JSON.stringify(ERROR)}}`]);
  });

  test("refuseClient() resolves with the status and writes nothing when stdin closes after only notifications", async () => {
    const { code, lines } = await refuse('{"jsonrpc":"2.0","method":"notifications/initialized"}\n', true);
    expect(code).toBe(2);
    expect(lines).toEqual([]);
  });
});
