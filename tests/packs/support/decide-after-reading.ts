/**
 * Test support for the pack files (SPEC §4.3): one call decided through the real policy loader
 * (`parsePolicyFiles` with the embedded packs), the gate's pack matching by command line, the tools
 * walk (pins on first sight) and the engine, after the server's own reading tool returned text that
 * names the target, as a prompt injection would.
 */

import { expect } from "bun:test";
import type { Decision, JsonObject, JsonValue, ToolDefinition } from "../../../src/engine/index.ts";
import { builtinPacks } from "../../../src/platform/packs.ts";
import { parsePolicyFiles } from "../../../src/policy/index.ts";
import { Gate } from "../../../src/proxy/gate.ts";

/** A JSON Schema type of a top-level argument. */
export type ArgType = "string" | "number" | "boolean" | "array" | "object";

/**
 * A tool definition with the given top-level argument types: the shape the walk pins.
 * @param name - The tool name.
 * @param props - Argument names and types, as in the server's published schema.
 * @param required - The required arguments.
 * @returns The definition.
 */
export function tool(
  name: string,
  props: Record<string, ArgType>,
  required: readonly string[] = [],
): ToolDefinition {
  const properties: JsonObject = {};
  for (const [key, type] of Object.entries(props))
    properties[key] = type === "array" ? { type, items: {} } : { type };
  return { name, inputSchema: { type: "object", properties, required: [...required] } };
}

/** An upstream as the gate sees it: its command line and a reading tool whose result is injected. */
export interface Server {
  readonly command: readonly string[];
  readonly reader: ToolDefinition;
  readonly read: string;
}

/** One call to decide, with an optional user policy file. */
export interface Call {
  readonly definition: ToolDefinition;
  readonly args: JsonObject;
  readonly policy?: string;
}

/**
 * Decides one call after the server's reading tool returned `server.read`.
 * @param server - The upstream.
 * @param call - The tool, its arguments and the user's policy text (none by default).
 * @returns The engine's decision.
 */
export async function decideAfterReading(server: Server, call: Call): Promise<Decision> {
  const policy = parsePolicyFiles([{ text: call.policy ?? "", fileName: "bouncer.yaml" }], builtinPacks());
  const gate = new Gate(policy, { home: "/home/me", cwd: "/work" });
  gate.registerServer({ name: "upstream", command: [...server.command], cwd: "/work" });
  await gate.walkTools("upstream", [server.reader, call.definition]);
  const read = await gate.decideCall("upstream", server.reader.name, {});
  expect(read.decision.verdict).toBe("allow");
  const result: JsonValue = { content: [{ type: "text", text: server.read }] };
  gate.recordResult({ server: "upstream", tool: server.reader.name, seq: read.seq, args: {} }, { result });
  return (await gate.decideCall("upstream", call.definition.name, call.args)).decision;
}

/** A row of a pack's table: the call and the verdict and first reason code the pack must give. */
export interface PackRow extends Call {
  readonly verdict: "ask" | "deny";
  readonly code: string;
}

/**
 * The `test.each` arguments of a table: a verb for the test name, the tool, its arguments, the row.
 * @param rows - The table.
 * @returns One tuple per row.
 */
export function namedRows(rows: readonly PackRow[]): (readonly [string, string, string, PackRow])[] {
  return rows.map((row) => [
    row.verdict === "ask" ? "asks about" : "denies",
    row.definition.name,
    JSON.stringify(row.args),
    row,
  ]);
}

/**
 * Asserts that the pack, not a heuristic or the default, gave the row's verdict and reason.
 * @param pack - The pack's name.
 * @param server - The upstream.
 * @param row - The call and its expected decision.
 */
export async function expectPackDecision(pack: string, server: Server, row: PackRow): Promise<void> {
  const decision = await decideAfterReading(server, row);
  const first = decision.reasons[0];
  expect({ verdict: decision.verdict, code: first?.code, source: first?.source }).toEqual({
    verdict: row.verdict,
    code: row.code,
    source: `pack:${pack}`,
  });
}
