/**
 * The flags of `bouncer run`, parsed and validated strictly: unknown flags, missing or malformed
 * values, a flag given twice (other than `--policy`), and a missing or doubled upstream are usage
 * errors (exit 2). The upstream comes either after `--` or from a client config's
 * `x-bouncer-upstream` stash (`--config`). Edge.
 *
 * Source: SPEC §5.1, §5 ("unknown flags are errors"), §3.4 (ask flags), §3.8 (`--mode`).
 * @module
 */

import type { ArgsDef } from "citty";
import { BouncerError } from "../platform/errors.ts";

/** The upstream to launch. */
export interface UpstreamLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Absolute working directory (Bouncer's own unless the stash gives an absolute one, F15). */
  readonly cwd: string;
  /** Where it came from: the command line, or a client config file. */
  readonly source: "argv" | "config";
  /**
   * From a client config: the `--policy` files the entry's own `bouncer run` arguments name (before
   * `--`), as written; `bouncer run --config` applies only its own flags (SPEC §5.1 "same flags").
   */
  readonly entryPolicies?: readonly string[];
}

/** Parsed `bouncer run` flags. */
export interface RunOptions {
  readonly upstreamName: string;
  /** `--policy`, in order (later files win). */
  readonly policies: readonly string[];
  readonly auditLog?: string;
  readonly record?: string;
  readonly pins: "tofu" | "strict" | "off";
  readonly mode: "enforce" | "audit";
  /** `--ask-timeout` in seconds (default 600). */
  readonly askTimeoutSeconds: number;
  /** `--max-asks` (default 20). */
  readonly maxAsks: number;
  /** `--human-min-ms` (default 300; 0 turns the check off). */
  readonly humanMinMs: number;
  readonly unknownMethods: "relay" | "deny";
  /** `--config`: the client config to read the upstream from. */
  readonly config?: string;
  /** The command after `--` (absent with `--config`). */
  readonly command?: readonly string[];
}

/** The citty argument definition (for `--help` and the strict flag check of `src/cli.ts`). */
export const runArgs = {
  "upstream-name": {
    type: "string",
    description: "Name of the wrapped server (pins, policy servers.<name>)",
    valueHint: "NAME",
  },
  policy: { type: "string", description: "Policy file (repeatable; later files win)", valueHint: "FILE" },
  "audit-log": {
    type: "string",
    description: "Audit log file (default $BOUNCER_HOME/audit.jsonl)",
    valueHint: "FILE",
  },
  record: { type: "string", description: "Also write a replayable session file", valueHint: "FILE" },
  pins: {
    type: "string",
    description: "Pinning mode: tofu | strict | off (default tofu)",
    valueHint: "MODE",
  },
  mode: { type: "string", description: "enforce | audit (default enforce)", valueHint: "MODE" },
  "ask-timeout": {
    type: "string",
    description: "Seconds before an unanswered ask denies (default 600)",
    valueHint: "SECONDS",
  },
  "max-asks": {
    type: "string",
    description: "Asks per session before further asks deny (default 20)",
    valueHint: "N",
  },
  "human-min-ms": {
    type: "string",
    description: "Faster answers count as automatic (default 300; 0 = off)",
    valueHint: "MS",
  },
  "unknown-methods": {
    type: "string",
    description: "relay | deny methods Bouncer does not know (default relay)",
    valueHint: "MODE",
  },
  config: {
    type: "string",
    description: "Read the upstream from this client config's x-bouncer-upstream stash",
    valueHint: "FILE",
  },
} as const satisfies ArgsDef;

/** Flag name → kind. */
const FLAGS: ReadonlyMap<string, "single" | "repeat"> = new Map(
  Object.keys(runArgs).map((name) => [name, name === "policy" ? "repeat" : "single"] as const),
);

/**
 * A usage error of `bouncer run`.
 * @param detail - What is wrong.
 * @param code - The error code (default `USAGE`).
 * @returns The error.
 */
function usage(detail: string, code = "USAGE"): BouncerError {
  return new BouncerError(
    code,
    `Cannot run "bouncer run": ${detail}: run "bouncer run --help" for the accepted flags`,
  );
}

/**
 * Splits raw arguments into flag values and the command after `--`.
 * @param rawArgs - The arguments after `run`.
 * @returns Flag name → values, and the command.
 * @throws {BouncerError} On unknown flags, missing values, stray positionals, repeated single flags.
 */
function collect(rawArgs: readonly string[]): { values: Map<string, string[]>; command?: string[] } {
  const values = new Map<string, string[]>();
  for (let i = 0; i < rawArgs.length; i++) {
    const token = rawArgs[i] ?? "";
    if (token === "--") return { values, command: rawArgs.slice(i + 1) };
    if (!token.startsWith("--"))
      throw usage(`unexpected argument "${token}" (put the upstream command after "--")`);
    const eq = token.indexOf("=");
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const kind = FLAGS.get(name);
    if (kind === undefined) throw usage(`unknown flag "--${name}"`, "UNKNOWN_FLAG");
    let value: string | undefined;
    if (eq !== -1) value = token.slice(eq + 1);
    else {
      value = rawArgs[i + 1];
      if (value === undefined || value === "--" || value.startsWith("--"))
        throw usage(`flag "--${name}" needs a value`, "MISSING_ARGUMENT");
      i++;
    }
    const list = values.get(name) ?? [];
    if (kind === "single" && list.length > 0) throw usage(`flag "--${name}" is given twice`);
    list.push(value);
    values.set(name, list);
  }
  return { values };
}

/**
 * One of a fixed set of words.
 * @param values - The collected values.
 * @param options - Flag name, allowed words, default.
 * @returns The word.
 * @throws {BouncerError} For any other value.
 */
function choice<T extends string>(
  values: ReadonlyMap<string, readonly string[]>,
  options: { readonly name: string; readonly allowed: readonly T[]; readonly fallback: T },
): T {
  const value = values.get(options.name)?.[0];
  if (value === undefined) return options.fallback;
  const found = options.allowed.find((allowed) => allowed === value);
  if (found === undefined)
    throw usage(`flag "--${options.name}" must be one of ${options.allowed.join(", ")}, got "${value}"`);
  return found;
}

/**
 * A non-negative number.
 * @param values - The collected values.
 * @param options - Flag name, default, whether fractions are allowed, whether 0 is allowed.
 * @returns The number.
 * @throws {BouncerError} For anything else.
 */
function count(
  values: ReadonlyMap<string, readonly string[]>,
  options: {
    readonly name: string;
    readonly fallback: number;
    readonly fraction?: boolean;
    readonly positive?: boolean;
  },
): number {
  const value = values.get(options.name)?.[0];
  if (value === undefined) return options.fallback;
  const shape = options.fraction === true ? /^\d+(\.\d+)?$/ : /^\d+$/;
  const parsed = Number(value);
  if (!shape.test(value) || !Number.isFinite(parsed) || (options.positive === true && parsed === 0)) {
    const what =
      options.fraction === true
        ? "a positive number"
        : options.positive === true
          ? "a positive integer"
          : "an integer of 0 or more";
    throw usage(`flag "--${options.name}" must be ${what}, got "${value}"`);
  }
  return parsed;
}

/**
 * Parses the arguments of `bouncer run`.
 *
 * Source: SPEC §5.1.
 * @param rawArgs - The arguments after `run`.
 * @returns The options.
 * @throws {BouncerError} A usage error (exit 2) for anything malformed.
 * @example parseRunArgs(["--upstream-name", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"])
 */
export function parseRunArgs(rawArgs: readonly string[]): RunOptions {
  const { values, command } = collect(rawArgs);
  const upstreamName = values.get("upstream-name")?.[0];
  if (upstreamName === undefined) throw usage('flag "--upstream-name" is required', "MISSING_ARGUMENT");
  if (upstreamName.trim() === "")
    throw usage('flag "--upstream-name" needs a name, not an empty value', "MISSING_ARGUMENT");
  const config = values.get("config")?.[0];
  if (config !== undefined && command !== undefined)
    throw usage('give either "--config" or a command after "--", not both');
  if (config === undefined && (command === undefined || command.length === 0)) {
    throw usage(
      'missing the upstream command: "bouncer run --upstream-name NAME -- COMMAND [ARG]..."',
      "MISSING_ARGUMENT",
    );
  }
  const optional = (name: string): string | undefined => {
    const value = values.get(name)?.[0];
    if (value === "")
      throw usage(`flag "--${name}" needs a file name, not an empty value`, "MISSING_ARGUMENT");
    return value;
  };
  const auditLog = optional("audit-log");
  const record = optional("record");
  return {
    upstreamName,
    policies: values.get("policy") ?? [],
    ...(auditLog === undefined ? {} : { auditLog }),
    ...(record === undefined ? {} : { record }),
    pins: choice(values, { name: "pins", allowed: ["tofu", "strict", "off"], fallback: "tofu" }),
    mode: choice(values, { name: "mode", allowed: ["enforce", "audit"], fallback: "enforce" }),
    askTimeoutSeconds: count(values, { name: "ask-timeout", fallback: 600, fraction: true, positive: true }),
    maxAsks: count(values, { name: "max-asks", fallback: 20 }),
    humanMinMs: count(values, { name: "human-min-ms", fallback: 300 }),
    unknownMethods: choice(values, {
      name: "unknown-methods",
      allowed: ["relay", "deny"],
      fallback: "relay",
    }),
    ...(config === undefined ? {} : { config }),
    ...(command === undefined ? {} : { command }),
  };
}
