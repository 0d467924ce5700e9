/**
 * Strict command-line arguments on top of citty (which accepts any flag): unknown flags, missing
 * flag values and unexpected positional arguments become usage errors (exit 2), and repeatable flags
 * (`--policy FILE`...) are collected in order. Every Bouncer command goes through
 * {@link assertKnownArgs}; `src/cli.ts` calls it for the command it dispatches to. Edge.
 *
 * Source: SPEC §5 ("Every command has `--help`; unknown flags are errors").
 * @module
 */

import type { ArgDef, ArgsDef } from "citty";
import { closestKey } from "../policy/closest-key.ts";
import { BouncerError } from "./errors.ts";

/** Options of {@link assertKnownArgs}. */
export interface KnownArgsOptions {
  /** The command as the user typed it, for messages, e.g. `bouncer check`. */
  readonly command?: string;
  /** Accept more positional arguments than the command declares (before `--`). Default false. */
  readonly extraPositionals?: boolean;
  /**
   * Words after `--` belong to the command and are not looked at (`bouncer run`'s upstream command
   * line). Default false: they are positional arguments, counted against the declared ones.
   */
  readonly passThrough?: boolean;
}

/** Flags every command accepts without declaring them. */
const BUILTIN_FLAGS: ReadonlySet<string> = new Set(["help", "h"]);

/**
 * Splits a flag name into its lower-case words: `upstream-name`, `upstreamName` → `upstream`, `name`.
 * @param name - A flag name without dashes.
 * @returns The normalised name (words joined by `-`).
 */
function normaliseFlag(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/_/g, "-")
    .toLowerCase();
}

/**
 * Indexes the flags of a citty argument definition by their normalised names and aliases.
 * @param argsDef - The command's arguments.
 * @returns Flag name → definition (positionals excluded).
 */
function flagTable(argsDef: ArgsDef): Map<string, ArgDef> {
  const table = new Map<string, ArgDef>();
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === "positional") continue;
    table.set(normaliseFlag(name), def);
    const aliases = (def as { readonly alias?: string | readonly string[] }).alias ?? [];
    for (const alias of typeof aliases === "string" ? [aliases] : aliases)
      table.set(normaliseFlag(alias), def);
  }
  return table;
}

/**
 * Whether a token is a flag (rather than a value such as `-` for stdin or `-5`).
 * @param token - One raw argument.
 * @returns True for `--x`, `--x=y` and `-x`.
 */
function isFlagToken(token: string): boolean {
  return token.length > 1 && token.startsWith("-") && !/^-\d/.test(token) && token !== "--";
}

/**
 * Rejects what citty would silently accept: unknown flags (also `--no-x` for a non-boolean `x`), a
 * string flag without a value or with an empty one (`--schema=`, `--policy ""`), a value given to a boolean flag other than `true`/`false`, and more
 * positional arguments than the command declares, or fewer than it requires. Words after `--` are
 * positional arguments, never flags (a tool named `--x`), and count as such, unless
 * `passThrough` (then they are neither looked at nor counted: `explain TOOL -- COMMAND` still needs
 * its TOOL before `--`).
 *
 * Source: SPEC §5.
 * @param rawArgs - The command's own arguments (after the command names).
 * @param argsDef - The command's citty argument definition.
 * @param options - The command name for messages; whether extra positionals are allowed.
 * @returns Nothing: it returns only when the arguments are acceptable.
 * @throws {BouncerError} `UNKNOWN_FLAG`, `MISSING_ARGUMENT` or `USAGE` (all exit 2).
 */
export function assertKnownArgs(
  rawArgs: readonly string[],
  argsDef: ArgsDef,
  options: KnownArgsOptions = {},
): void {
  const command = options.command ?? "bouncer";
  const table = flagTable(argsDef);
  const positionalDefs = Object.entries(argsDef).filter(([, def]) => def.type === "positional");
  const positionalCount = positionalDefs.length;
  const hint = `run "${command} --help" for the accepted flags`;
  let positionals = 0;
  for (let i = 0; i < rawArgs.length; i++) {
    const token = rawArgs[i] ?? "";
    if (token === "--") {
      const rest = rawArgs.slice(i + 1);
      const extra = rest[positionalCount - positionals];
      if (extra !== undefined && options.extraPositionals !== true && options.passThrough !== true) {
        throw new BouncerError("USAGE", `Cannot run "${command}": unexpected argument "${extra}": ${hint}`);
      }
      // Passed-through words are the command's own, not this command's positional arguments.
      if (options.passThrough !== true) positionals += rest.length;
      break;
    }
    if (!isFlagToken(token)) {
      positionals++;
      if (positionals > positionalCount && options.extraPositionals !== true) {
        throw new BouncerError("USAGE", `Cannot run "${command}": unexpected argument "${token}": ${hint}`);
      }
      continue;
    }
    const body = token.replace(/^-{1,2}/, "");
    const eq = body.indexOf("=");
    const rawName = eq === -1 ? body : body.slice(0, eq);
    const name = normaliseFlag(rawName);
    if (BUILTIN_FLAGS.has(name)) continue;
    let def = table.get(name);
    if (def === undefined && name.startsWith("no-") && eq === -1) {
      const negated = table.get(name.slice(3));
      if (negated?.type === "boolean") continue;
      def = undefined;
    }
    if (def === undefined) {
      const near = closestKey(
        name,
        [...table.keys()].filter((flag) => flag.length > 1),
      );
      const guess = near === undefined ? "" : ` (did you mean "--${near}"?)`;
      throw new BouncerError(
        "UNKNOWN_FLAG",
        `Cannot run "${command}": unknown flag "${token.split("=")[0] ?? token}"${guess}: ${hint}`,
      );
    }
    if (def.type === "boolean") {
      const value = eq === -1 ? "true" : body.slice(eq + 1);
      if (value !== "true" && value !== "false") {
        throw new BouncerError(
          "USAGE",
          `Cannot run "${command}": flag "--${rawName}" takes no value, got "${value}"`,
        );
      }
      continue;
    }
    const next = rawArgs[i + 1];
    if (eq === -1 && (next === undefined || next === "--" || next.startsWith("--"))) {
      throw new BouncerError(
        "MISSING_ARGUMENT",
        `Cannot run "${command}": flag "--${rawName}" needs a value`,
      );
    }
    const value = eq === -1 ? (next ?? "") : body.slice(eq + 1);
    if (value === "") {
      // No string flag of Bouncer's means anything when empty: `--schema=` would read the folder.
      throw new BouncerError(
        "MISSING_ARGUMENT",
        `Cannot run "${command}": flag "--${rawName}" needs a value, not an empty one: ${hint}`,
      );
    }
    const allowed = def.type === "enum" ? def.options : undefined;
    if (allowed !== undefined && !allowed.includes(value)) {
      throw new BouncerError(
        "USAGE",
        `Cannot run "${command}": flag "--${rawName}" must be one of ${allowed.join(", ")}, got "${value}": ${hint}`,
      );
    }
    if (eq === -1) i++;
  }
  const missing = positionalDefs[positionals];
  if (missing !== undefined && missing[1].required !== false && missing[1].default === undefined) {
    throw new BouncerError(
      "MISSING_ARGUMENT",
      `Cannot run "${command}": missing argument ${missing[0].toUpperCase()}: ${hint}`,
    );
  }
}

/**
 * Collects every value of a repeatable string flag, in order (`--policy a.yaml --policy=b.yaml`).
 * citty keeps only the last one; commands read repeatable flags through this helper instead.
 * Stops at `--`.
 *
 * Source: SPEC §5.1, §5.5, §5.9 (`[--policy FILE]...`).
 * @param rawArgs - The command's own arguments.
 * @param name - The flag name without dashes, e.g. `policy`.
 * @returns The values (empty when the flag is absent).
 */
export function repeatedFlag(rawArgs: readonly string[], name: string): string[] {
  const wanted = normaliseFlag(name);
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const token = rawArgs[i] ?? "";
    if (token === "--") break;
    if (!token.startsWith("--")) continue;
    const eq = token.indexOf("=");
    const flag = normaliseFlag(token.slice(2, eq === -1 ? undefined : eq));
    if (flag !== wanted) continue;
    if (eq !== -1) values.push(token.slice(eq + 1));
    else if (i + 1 < rawArgs.length) values.push(rawArgs[++i] ?? "");
  }
  return values;
}
