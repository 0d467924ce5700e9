/**
 * Classifies one server entry from its decoded fields, the same way for JSON and TOML: stdio (to be
 * wrapped), already wrapped, remote (skipped with a note), or left alone for a stated reason. A key
 * of any string is a server (`constructor` and `__proto__` too: every reader keeps them as plain
 * data). An explicit `type: "stdio"` with a command is stdio whatever URL sits beside it, and an
 * empty or non-string `url` makes no remote server. A stdio server that cannot be wrapped (an empty
 * name, `args` that is not a list of strings) is marked `unwrappable`: it runs unchecked, so
 * `--check` counts it and `init` refuses it with the reason. Pure.
 *
 * Source: SPEC §5.2 ("Remote entries (`url`, `serverUrl`, `type: http|sse`) are skipped with a note;
 * wrapped entries are left alone"; "`--check` lists unwrapped ... entries, exit 1 if any").
 * @module
 */

import type { ConfigEntry, Span, Stash } from "./types.ts";
import { isBouncerLaunch, parseWrappedArgs, runsBouncer } from "./wrapped-args.ts";

/** Decoded fields of an entry (undefined when absent). */
export interface EntryFields {
  readonly command: unknown;
  readonly commandPresent: boolean;
  readonly args: unknown;
  readonly argsPresent: boolean;
  readonly env: unknown;
  readonly cwd: unknown;
  readonly type: unknown;
  /** The values of the `url`, `serverUrl` and `httpUrl` keys present (remote when one is a non-empty string). */
  readonly urls: readonly unknown[];
  readonly stash: unknown;
  readonly stashPresent: boolean;
}

/** An entry's value as the reader sees it. */
export interface EntryShape {
  /** Whether the entry is an object (table). */
  readonly isObject: boolean;
  readonly fields: EntryFields;
  /** Zed's older shape (`command` is an object with `path`). */
  readonly nested: boolean;
}

/** Transport types that mean a remote server. */
const REMOTE_TYPES: ReadonlySet<string> = new Set([
  "http",
  "sse",
  "streamable-http",
  "streamable_http",
  "streamableHttp",
  "ws",
  "websocket",
]);

/**
 * Classifies an entry.
 *
 * Source: SPEC §5.2.
 * @param name - The server's key.
 * @param options - Where the entry is (scope, label, text range) and its decoded shape.
 * @returns The entry, with a reason when it is not wrappable.
 */
export function classifyEntry(
  name: string,
  options: {
    readonly scope: readonly string[];
    readonly label: string;
    readonly span: Span;
    readonly shape: EntryShape;
  },
): ConfigEntry {
  const { fields, nested } = options.shape;
  const base = { name, scope: options.scope, label: options.label, span: options.span };
  const env = envPairs(fields.env);
  const cwd = typeof fields.cwd === "string" ? { cwd: fields.cwd } : {};
  const stash = readStash(fields);
  if (!options.shape.isObject)
    return { ...base, kind: "unsupported", reason: "the entry is not an object", env };
  if (typeof fields.type === "string" && REMOTE_TYPES.has(fields.type)) {
    return { ...base, kind: "remote", reason: `remote server (type "${fields.type}")`, env, ...stash };
  }
  // `type: "stdio"` says how the client starts it: a URL beside the command is not what it uses.
  // With no `type`, clients differ (Claude Desktop and Claude Code start the command, Gemini CLI
  // connects to the URL): the command is wrapped, which changes nothing for a client that uses the
  // URL, and leaving it would let the others run it unchecked while `--check` passed.
  const urlBeside = fields.urls.some((url) => typeof url === "string" && url.trim() !== "");
  const startable =
    fields.commandPresent && typeof fields.command === "string" && fields.command.trim() !== "";
  if (urlBeside && fields.type !== "stdio" && !startable) {
    return { ...base, kind: "remote", reason: "remote server (url)", env, ...stash };
  }
  if (!fields.commandPresent) {
    return { ...base, kind: "unsupported", reason: "no command (an extension or settings-only entry)", env };
  }
  if (typeof fields.command !== "string") {
    const reason = nested ? 'the command object has no string "path"' : "the command is not a string";
    return { ...base, kind: "unsupported", reason, env };
  }
  if (fields.command.trim() === "")
    return { ...base, kind: "unsupported", reason: "the command is empty", env };
  if (fields.argsPresent && !isStringList(fields.args)) {
    // The client starts it all the same (a number turned into text, a string as one argument).
    const reason = "args is not a list of strings (write each argument as a string)";
    return { ...base, kind: "unsupported", reason, unwrappable: true, env };
  }
  const args = isStringList(fields.args) ? fields.args : [];
  const parsed = fields.argsPresent ? parseWrappedArgs(args) : undefined;
  const wrapped =
    parsed !== undefined && isBouncerLaunch(fields.command, parsed.prefixArgs) ? parsed : undefined;
  if (wrapped === undefined && runsBouncer(fields.command, args)) {
    const reason =
      "it already runs bouncer run, in a form init does not write (wrapping it again would nest Bouncer)";
    const fieldsKept = { command: fields.command, args, ...cwd, env, ...stash };
    return { ...base, kind: "unsupported", reason, runsBouncer: true, ...fieldsKept };
  }
  if (wrapped === undefined && name.trim() === "") {
    // Only a new wrap needs a name; an entry an older init wrapped with one stays undoable.
    const reason = "the server name is empty (bouncer run needs one: rename it)";
    return { ...base, kind: "unsupported", reason, unwrappable: true, env };
  }
  return {
    ...base,
    kind: wrapped === undefined ? "stdio" : "wrapped",
    command: fields.command,
    ...(fields.argsPresent ? { args } : {}),
    ...cwd,
    env,
    ...(wrapped === undefined ? {} : { wrapped }),
    ...(nested ? { nested } : {}),
    ...(urlBeside && fields.type !== "stdio" ? { urlBeside: true } : {}),
    ...stash,
  };
}

/**
 * The `x-bouncer-upstream` stash when well formed (`command` string, `args` strings, optional `cwd`).
 * @param fields - The entry's fields.
 * @returns `{ stash }`, `{ stashInvalid: true }` or nothing.
 */
function readStash(fields: EntryFields): { stash?: Stash; stashInvalid?: boolean } {
  if (!fields.stashPresent) return {};
  const value = fields.stash;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { stashInvalid: true };
  const command = Object.hasOwn(value, "command") ? Reflect.get(value, "command") : undefined;
  const args = Object.hasOwn(value, "args") ? Reflect.get(value, "args") : [];
  const cwd = Object.hasOwn(value, "cwd") ? Reflect.get(value, "cwd") : undefined;
  if (typeof command !== "string" || !isStringList(args) || (cwd !== undefined && typeof cwd !== "string")) {
    return { stashInvalid: true };
  }
  return { stash: { command, args, ...(cwd === undefined ? {} : { cwd }) } };
}

/**
 * The string-valued entries of an `env` object.
 * @param env - The decoded `env` value.
 * @returns Key/value pairs (non-string values skipped).
 */
function envPairs(env: unknown): [string, string][] {
  if (typeof env !== "object" || env === null || Array.isArray(env)) return [];
  return Object.keys(env).flatMap((key): [string, string][] => {
    const value: unknown = Reflect.get(env, key);
    return typeof value === "string" ? [[key, value]] : [];
  });
}

/**
 * Whether a value is an array of strings.
 *
 * Source: SPEC §5.2.
 * @param value - Anything.
 * @returns True for `string[]`.
 */
export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
