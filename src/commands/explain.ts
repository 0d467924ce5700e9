/**
 * `bouncer explain TOOL [--server NAME] [--server-info-name NAME] [--schema FILE] [--policy FILE]...
 * [--json] [-- COMMAND [ARG]...]`: the effective rules of one tool, each with the layer it came from,
 * and which packs matched the server — on its command line and `serverInfo.name` when given, as
 * `bouncer run` matches them, else on its name alone (said so). With `--schema`, the heuristics read
 * that input schema (a tool definition, a bare input schema, or a `tools/list` result holding TOOL).
 * Edge.
 *
 * Source: SPEC §5.5, §4.1 (layers), §4.3 ("`bouncer explain` ... print which pack matched"), §4.4.
 * @module
 */

import { resolve } from "node:path";
import { defineCommand } from "citty";
import type { JsonValue, ToolDefinition } from "../engine/index.ts";
import { isJsonObject, safeName } from "../engine/index.ts";
import { repeatedFlag } from "../platform/args.ts";
import { BouncerError, jsonParseDetail } from "../platform/errors.ts";
import { describeReadError } from "../platform/fs-error-text.ts";
import { readRegularTextFile } from "../platform/regular-file.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import { confinementWarnings, explainToolRules, resolveToolRules } from "../policy/index.ts";
import { destinationsLine, destinationsView } from "./explain-destinations.ts";
import { explainPacks, type PackFacts, packLines, packsMembers } from "./explain-packs.ts";
import { type CommandIo, commandIo } from "./io.ts";
import { loadPolicyPaths } from "./policy-files.ts";
import { placeholderNotes, rulesLines, settingSourceMembers, warningJson } from "./rules-view.ts";

/** What `bouncer explain` was asked. */
export interface ExplainOptions {
  readonly tool: string;
  /** The server's `--upstream-name`: selects `servers.<name>` entries and packs matched by name. */
  readonly server?: string;
  /** The upstream command line (the words after `--`, as `bouncer run` takes them): matches packs. */
  readonly command?: readonly string[];
  /** The server's `serverInfo.name`: matches packs. */
  readonly serverInfoName?: string;
  /** A JSON file with the tool's definition or input schema. */
  readonly schema?: string;
  readonly policies: readonly string[];
  readonly json?: boolean;
}

/**
 * Finds the tool's definition in a schema file's content: a `tools/list` result (`{tools:[...]}`,
 * also inside a JSON-RPC response), a tool definition (`{name, inputSchema}`), or a bare input
 * schema.
 *
 * Source: SPEC §5.5 (`--schema FILE`).
 * @param content - The parsed file.
 * @param tool - The tool to explain.
 * @returns The definition (named TOOL).
 * @throws {BouncerError} `SCHEMA_INVALID` when the content holds no usable schema for TOOL.
 */
export function definitionFrom(content: JsonValue, tool: string): ToolDefinition {
  // A JSON-RPC response as saved from the wire: its result.
  if (isJsonObject(content) && Object.hasOwn(content, "jsonrpc") && Object.hasOwn(content, "result")) {
    return definitionFrom(content.result ?? null, tool);
  }
  if (isJsonObject(content) && Object.hasOwn(content, "tools") && Array.isArray(content.tools)) {
    const found = content.tools.find(
      (item) => isJsonObject(item) && Object.hasOwn(item, "name") && item.name === tool,
    );
    if (found === undefined)
      throw new BouncerError(
        "SCHEMA_INVALID",
        `Cannot explain "${tool}": the tool list has no tool "${tool}"`,
      );
    return definitionFrom(found, tool);
  }
  if (!isJsonObject(content))
    throw new BouncerError("SCHEMA_INVALID", `Cannot explain "${tool}": the schema is not a JSON object`);
  if (Object.hasOwn(content, "inputSchema")) {
    const { inputSchema, annotations, name } = content;
    // A definition of another tool would explain the wrong tool's arguments.
    if (typeof name === "string" && name !== tool) {
      throw new BouncerError(
        "SCHEMA_INVALID",
        `Cannot explain "${tool}": the schema file defines the tool ${JSON.stringify(name)}, not "${tool}"`,
      );
    }
    if (!isJsonObject(inputSchema))
      throw new BouncerError("SCHEMA_INVALID", `Cannot explain "${tool}": "inputSchema" is not an object`);
    return { name: tool, inputSchema, ...(isJsonObject(annotations) ? { annotations } : {}) };
  }
  return { name: tool, inputSchema: content };
}

/**
 * Reads and parses a schema file.
 * @param file - The path as given.
 * @param cwd - The directory it is relative to.
 * @returns The parsed JSON.
 * @throws {BouncerError} `SCHEMA_INVALID` when it cannot be read or parsed.
 */
async function readSchema(file: string, cwd: string): Promise<JsonValue> {
  let text: string;
  try {
    text = readRegularTextFile(resolve(cwd, file)); // a FIFO is refused, not waited on
  } catch (error) {
    throw new BouncerError("SCHEMA_INVALID", `Cannot read schema "${file}": ${describeReadError(error)}`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    const detail = jsonParseDetail(error);
    throw new BouncerError("SCHEMA_INVALID", `Cannot read schema "${file}": invalid JSON: ${detail}`, {
      cause: error,
    });
  }
}

/**
 * Runs `bouncer explain`.
 *
 * Source: SPEC §5.5.
 * @param options - The tool, server, schema and policy files.
 * @param io - Where output goes.
 * @returns 0.
 * @throws {PolicyError} `POLICY_INVALID` (exit 2) for an invalid policy file.
 * @throws {BouncerError} `SCHEMA_INVALID` (exit 2) for an unusable schema file; `USAGE` (exit 2) for
 *   an empty TOOL.
 */
export async function runExplain(options: ExplainOptions, io: CommandIo): Promise<number> {
  // An empty name names no tool an upstream can list (MCP tool names are 1 or more characters).
  if (options.tool === "") throw new BouncerError("USAGE", 'Cannot run "bouncer explain": TOOL is empty');
  const policy = await loadPolicyPaths(options.policies, { cwd: io.cwd });
  const definition =
    options.schema === undefined
      ? undefined
      : definitionFrom(await readSchema(options.schema, io.cwd), options.tool);
  const server = options.server ?? "";
  const { command, serverInfoName } = options;
  const facts: PackFacts = {
    ...(options.server === undefined ? {} : { upstreamName: options.server }),
    ...(command === undefined ? {} : { command }),
    ...(serverInfoName === undefined ? {} : { serverInfoName }),
  };
  const explained = explainPacks(policy.packs, facts);
  const packs = explained.matched;
  const context = {
    server,
    packs,
    ...(command === undefined ? {} : { command }),
    // Without a command line: show a pack's `$COMMAND_LINE_DIRS` rather than no confinement at all.
    showPlaceholders: true,
  };
  const rules = resolveToolRules(policy, {
    ...context,
    tool: options.tool,
    ...(definition === undefined ? {} : { definition }),
  });
  // Prefixes that confine nothing (SPEC §2.4); unless the packs are run's, others may match at run.
  const warnings = confinementWarnings(policy, {
    ...context,
    tools: [options.tool],
    packsKnown: explained.exact,
  });
  const destinations = destinationsView(rules, options.tool, definition?.inputSchema);
  if (options.json === true) {
    const document = {
      tool: options.tool,
      ...(options.server === undefined ? {} : { server: options.server }),
      ...packsMembers(explained, facts),
      rules: explainToolRules(rules).map((row) => ({ ...row })),
      ...(destinations === undefined ? {} : { destinations }),
      taint_min_length: rules.taintMinLength,
      heuristics: rules.heuristics,
      ...settingSourceMembers(rules),
      warnings: warnings.map((warning) => warningJson({ warning })),
    };
    io.out(`${terminalJson(document)}\n`);
    return 0;
  }
  const where = options.server === undefined ? "" : ` on server ${safeName(options.server)}`;
  const lines = [`Tool ${safeName(options.tool)}${where}:`, ...rulesLines(rules)];
  if (warnings.length > 0) lines.push("", ...warnings.map((warning) => `Warning: ${warning.message}`));
  if (destinations !== undefined) lines.push("", destinationsLine(destinations));
  lines.push(...placeholderNotes([rules]));
  // A misspelt tool name looks like a tool with every rule at its default: say it plainly (only
  // what was looked at: without --server, servers.<name> entries were not, nor packs without facts).
  const packsLooked = options.server !== undefined || command !== undefined || serverInfoName !== undefined;
  if (explainToolRules(rules).every((row) => row.source === "default") && packs.length === 0) {
    const looked =
      options.server !== undefined
        ? "No policy file or pack"
        : packsLooked
          ? "No top-level rule or pack"
          : "No top-level rule";
    lines.push("", `${looked} names ${safeName(options.tool)}: every rule above is a default`);
  }
  if (definition === undefined) {
    lines.push(
      "",
      "No --schema given: what the schema heuristics add (sink-shaped arguments, annotations) is not shown",
    );
  }
  if (options.server === undefined) {
    const applied = packsLooked ? "servers.<name> entries are" : "servers.<name> entries and packs are";
    lines.push("", `No --server given: ${applied} not applied`);
  }
  if (packsLooked) {
    if (packs.length === 0) lines.push("", "Packs: none matched");
    else lines.push("", "Packs:", ...packLines(packs));
    if (explained.note !== undefined) lines.push(explained.note);
  }
  io.out(`${lines.join("\n")}\n`);
  return 0;
}

/**
 * The upstream's facts from the command line: the words after `--` (as `bouncer run` takes them) and
 * `--server-info-name`.
 * @param rawArgs - The command's own arguments.
 * @param serverInfoName - citty's value of `--server-info-name`.
 * @returns The `command` and `serverInfoName` options given.
 * @throws {BouncerError} `USAGE` (exit 2) for a `--` with no command after it.
 */
function serverFacts(
  rawArgs: readonly string[],
  serverInfoName: unknown,
): Pick<ExplainOptions, "command" | "serverInfoName"> {
  const dash = rawArgs.indexOf("--");
  const command = dash === -1 ? undefined : rawArgs.slice(dash + 1);
  if (command?.length === 0)
    throw new BouncerError("USAGE", 'Cannot run "bouncer explain": no upstream command after "--"');
  return {
    ...(command === undefined ? {} : { command }),
    ...(typeof serverInfoName === "string" ? { serverInfoName } : {}),
  };
}

/** The citty definition of `bouncer explain`. */
export const explainCommand = defineCommand({
  meta: {
    name: "explain",
    description: "Print the effective rules of one tool and the layer each came from",
  },
  args: {
    tool: { type: "positional", description: "The tool name", required: true },
    server: {
      type: "string",
      description: "The server's --upstream-name (selects servers.<name> and packs)",
      valueHint: "NAME",
    },
    "server-info-name": {
      type: "string",
      description: "The server's serverInfo.name (matches packs, as bouncer run does)",
      valueHint: "NAME",
    },
    schema: {
      type: "string",
      description: "A JSON file with the tool's definition or input schema",
      valueHint: "FILE",
    },
    policy: { type: "string", description: "A policy file (repeatable; later files win)", valueHint: "FILE" },
    json: { type: "boolean", description: "Print one JSON document" },
  },
  run: ({ args, rawArgs, data }): Promise<number> =>
    runExplain(
      {
        tool: args.tool,
        policies: repeatedFlag(rawArgs, "policy"),
        json: args.json === true,
        ...(typeof args.server === "string" ? { server: args.server } : {}),
        ...(typeof args.schema === "string" ? { schema: args.schema } : {}),
        ...serverFacts(rawArgs, args["server-info-name"]),
      },
      commandIo(data),
    ),
});

export default explainCommand;
