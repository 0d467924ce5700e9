/**
 * The pin file format (SPEC §2.2): one JSON document per server identity holding the server's facts
 * (name, scrubbed command line, working directory — never env), the hash-scheme version, every pinned
 * tool's full definition and hash, and the pending definitions (changed or new tools waiting for
 * `bouncer pins accept`). Tools are lists of records, never objects keyed by tool name (names are
 * hostile, STYLE #6). Parsing is strict: anything unexpected is an error naming the file, never an
 * empty store (STYLE #14). Edge (pure).
 *
 * Source: SPEC §2.2 ("What is pinned", "Where", "Changed tool"), STYLE #6, #14.
 * @module
 */

import { createHash } from "node:crypto";
import {
  canonicalToolJson,
  type JsonObject,
  PIN_HASH_SCHEME,
  shellWord,
  type ToolDefinition,
} from "../engine/index.ts";
import { BouncerError, jsonParseDetail } from "../platform/errors.ts";

/** Version of the file layout. */
export const PIN_FILE_VERSION = 1;

/** One pinned or pending definition. */
export interface PinRecord {
  readonly name: string;
  /** SHA-256 (hex) of the canonical definition. */
  readonly hash: string;
  /** The definition as the upstream listed it (extra fields kept). */
  readonly definition: ToolDefinition;
  /** When it was pinned or last seen (ISO 8601). */
  readonly at: string;
  /** For a pending record: a changed pinned tool, or a new one. */
  readonly kind?: "changed" | "new";
}

/** A pin file's content. */
export interface PinFile {
  readonly server: string;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly tools: readonly PinRecord[];
  readonly pending: readonly PinRecord[];
}

/**
 * SHA-256 of a definition's canonical form, hex.
 *
 * Source: SPEC §2.2 ("that definition's SHA-256, with a hash-scheme version").
 * @param definition - A tool definition.
 * @returns 64 hex digits.
 */
export function definitionHash(definition: ToolDefinition): string {
  return createHash("sha256").update(canonicalToolJson(definition)).digest("hex");
}

/**
 * Serialises a pin file (stable, indented, one final newline).
 *
 * Source: SPEC §2.2.
 * @param file - The content.
 * @returns The text to write.
 */
export function serializePinFile(file: PinFile): string {
  const record = (entry: PinRecord): JsonObject => ({
    name: entry.name,
    hash: entry.hash,
    at: entry.at,
    ...(entry.kind === undefined ? {} : { kind: entry.kind }),
    definition: entry.definition as unknown as JsonObject,
  });
  const document: JsonObject = {
    version: PIN_FILE_VERSION,
    hashScheme: PIN_HASH_SCHEME,
    server: file.server,
    command: [...file.command],
    cwd: file.cwd,
    tools: file.tools.map(record),
    pending: file.pending.map(record),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Parses and checks a pin file. Every pinned hash must match its definition.
 *
 * Source: SPEC §2.2, STYLE #14 (a corrupt pin store is an error that names the file).
 * @param text - The file's text.
 * @param fileName - The file, for messages.
 * @returns The content.
 * @throws {BouncerError} `PINS_CORRUPT` naming the file and what is wrong.
 */
export function parsePinFile(text: string, fileName: string): PinFile {
  const corrupt = (detail: string): BouncerError =>
    new BouncerError(
      "PINS_CORRUPT",
      `Cannot read pins "${fileName}": ${detail}: fix the file, or remove it with: rm ${shellWord(fileName) ?? JSON.stringify(fileName)} (its server is then pinned again on first sight)`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(`not valid JSON (${jsonParseDetail(error)})`);
  }
  if (!isObject(value)) throw corrupt("not a JSON object");
  const version = own(value, "version");
  if (version === undefined) throw corrupt(`it has no "version" (this Bouncer writes ${PIN_FILE_VERSION})`);
  if (version !== PIN_FILE_VERSION) throw corrupt(`unsupported version ${JSON.stringify(version)}`);
  const scheme = own(value, "hashScheme");
  if (scheme !== PIN_HASH_SCHEME) {
    throw corrupt(
      `hash scheme ${JSON.stringify(scheme)} is not the scheme ${PIN_HASH_SCHEME} of this Bouncer`,
    );
  }
  const server = own(value, "server");
  const cwd = own(value, "cwd");
  const command = own(value, "command");
  if (typeof server !== "string") throw corrupt('"server" is not a string');
  if (typeof cwd !== "string") throw corrupt('"cwd" is not a string');
  if (!Array.isArray(command) || !command.every((part) => typeof part === "string")) {
    throw corrupt('"command" is not a list of strings');
  }
  return {
    server,
    cwd,
    command: command as string[],
    tools: parseRecords(own(value, "tools"), { what: "tools", corrupt }),
    pending: parseRecords(own(value, "pending"), { what: "pending", corrupt }),
  };
}

/**
 * Parses one list of records.
 * @param value - The list.
 * @param options - Its key, for messages, and the error factory.
 * @returns The records.
 * @throws {BouncerError} For any malformed record or a repeated name.
 */
function parseRecords(
  value: unknown,
  options: { readonly what: string; readonly corrupt: (detail: string) => BouncerError },
): PinRecord[] {
  const { what, corrupt } = options;
  if (!Array.isArray(value)) throw corrupt(`"${what}" is not a list`);
  const names = new Set<string>();
  return value.map((entry: unknown, index): PinRecord => {
    const where = `"${what}" entry ${index + 1}`;
    if (!isObject(entry)) throw corrupt(`${where} is not an object`);
    const name = own(entry, "name");
    const hash = own(entry, "hash");
    const at = own(entry, "at");
    const kind = own(entry, "kind");
    const definition = own(entry, "definition");
    if (typeof name !== "string") throw corrupt(`${where} has no name`);
    if (names.has(name)) throw corrupt(`${where} repeats the tool ${JSON.stringify(name)}`);
    names.add(name);
    if (typeof hash !== "string" || typeof at !== "string") throw corrupt(`${where} has no hash or date`);
    if (kind !== undefined && kind !== "changed" && kind !== "new") throw corrupt(`${where} has a bad kind`);
    if (!isObject(definition) || own(definition, "name") !== name) {
      throw corrupt(`${where} has no definition of tool ${JSON.stringify(name)}`);
    }
    const tool = definition as unknown as ToolDefinition;
    if (definitionHash(tool) !== hash) {
      throw corrupt(`${where}: the hash of tool ${JSON.stringify(name)} does not match its definition`);
    }
    return { name, hash, at, definition: tool, ...(kind === undefined ? {} : { kind }) };
  });
}

/**
 * @param value - Anything.
 * @returns True for a plain object.
 */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads an own member (keys are hostile: STYLE #6).
 * @param object - An object.
 * @param key - The member.
 * @returns Its value, or undefined.
 */
function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * The pending list a walk leaves: exactly the walk's changed and new definitions (a tool no longer
 * listed, or listed again as pinned, leaves it), each record kept as it was when unchanged, less
 * any already pinned as it is (accepted meanwhile).
 *
 * Source: SPEC §2.2 ("The pending definition is stored beside the pins").
 * @param file - The pin file as it is.
 * @param options - The walk's pending definitions (names unique) and the date of new records.
 * @returns The new pending list, or undefined when it holds the same records as the file's.
 */
export function replacePending(
  file: PinFile,
  options: { readonly wanted: readonly Omit<PinRecord, "at">[]; readonly at: string },
): PinRecord[] | undefined {
  const key = (record: Omit<PinRecord, "at">): string => `${record.hash}:${record.kind ?? "changed"}`;
  const pinned = new Map(file.tools.map((record) => [record.name, record.hash] as const));
  const old = new Map(file.pending.map((record) => [record.name, record] as const));
  const next: PinRecord[] = [];
  let kept = 0;
  for (const record of options.wanted) {
    if (pinned.get(record.name) === record.hash) continue;
    const before = old.get(record.name);
    if (before !== undefined && key(before) === key(record)) {
      next.push(before);
      kept += 1;
    } else next.push({ ...record, at: options.at });
  }
  return kept === next.length && kept === file.pending.length ? undefined : next;
}
