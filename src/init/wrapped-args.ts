/**
 * The argument list of a wrapped entry: built by `bouncer init`, recognised again by the second
 * `init` (idempotence), `--undo`, `--check` and `doctor`. Pure.
 *
 * A wrapped entry runs `LAUNCHER [prefixArgs...] run --upstream-name NAME [--policy FILE]... -- COMMAND
 * [ARG]...`; everything after `--` is the original command line, element for element.
 *
 * Source: SPEC §5.1 (`bouncer run` flags), §5.2 (the wrapped entry).
 * @module
 */

import type { Launcher, WrappedArgs } from "./types.ts";

/** Flags of `bouncer run` that take a value (SPEC §5.1); a wrapped entry uses only these before `--`. */
const RUN_VALUE_FLAGS: ReadonlySet<string> = new Set([
  "--upstream-name",
  "--policy",
  "--config",
  "--audit-log",
  "--record",
  "--pins",
  "--mode",
  "--ask-timeout",
  "--max-asks",
  "--human-min-ms",
  "--unknown-methods",
]);

/**
 * The arguments Bouncer adds in front of the original command: the launcher's prefix, `run`,
 * `--upstream-name NAME`, one `--policy FILE` per policy, then `--`.
 *
 * Source: SPEC §5.2.
 * @param launcher - How the client starts Bouncer.
 * @param upstream - The server's name in the client config (its `--upstream-name`) and the absolute
 *   policy paths, in order.
 * @returns The arguments before the original command.
 * @example wrapperArgs({ command: "/opt/homebrew/bin/bouncer", prefixArgs: [] }, { name: "fs", policies: [] })
 * // ["run", "--upstream-name", "fs", "--"]
 */
export function wrapperArgs(
  launcher: Launcher,
  upstream: { readonly name: string; readonly policies: readonly string[] },
): string[] {
  const { name, policies } = upstream;
  return [
    ...launcher.prefixArgs,
    "run",
    "--upstream-name",
    name,
    ...policies.flatMap((policy) => ["--policy", policy]),
    "--",
  ];
}

/**
 * Recognises a wrapped entry's arguments: the first `run` followed only by known `bouncer run` flags,
 * including `--upstream-name`, then either `-- COMMAND [ARG]...` (the form `init` writes) or a
 * `--config` flag (the form other wrappers write, upstream in the stash).
 *
 * Source: SPEC §5.1, §5.2 ("wrapped entries are left alone").
 * @param args - An entry's `args`.
 * @returns The split arguments, or undefined when the entry is not wrapped by Bouncer.
 */
export function parseWrappedArgs(args: readonly string[]): WrappedArgs | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "run") continue;
    const parsed = parseRunFlags(args, i + 1);
    if (parsed !== undefined) return { prefixArgs: args.slice(0, i), ...parsed };
  }
  return undefined;
}

/**
 * Reads `bouncer run` flags from `from` up to `--` (or the end).
 * @param args - An entry's arguments.
 * @param from - Index just after `run`.
 * @returns Everything but the prefix, or undefined when the flags are not Bouncer's.
 */
function parseRunFlags(args: readonly string[], from: number): Omit<WrappedArgs, "prefixArgs"> | undefined {
  let upstreamName: string | undefined;
  let config: string | undefined;
  const policies: string[] = [];
  const modes: { mode?: string; pins?: string } = {};
  let index = from;
  for (; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (!RUN_VALUE_FLAGS.has(flag)) return undefined;
    let value: string | undefined;
    if (eq === -1) {
      index++;
      value = args[index];
    } else {
      value = arg.slice(eq + 1);
    }
    if (value === undefined) return undefined;
    if (flag === "--upstream-name") upstreamName = value;
    else if (flag === "--policy") policies.push(value);
    else if (flag === "--config") config = value;
    else if (flag === "--mode") modes.mode = value;
    else if (flag === "--pins") modes.pins = value;
  }
  if (upstreamName === undefined) return undefined;
  if (index < args.length) {
    const command = args[index + 1];
    if (command === undefined) return undefined;
    const rest = args.slice(index + 2);
    return { upstreamName, policies, ...modes, form: "dash", command, args: rest, dashIndex: index };
  }
  if (config === undefined) return undefined;
  return { upstreamName, policies, ...modes, form: "config", command: "", args: [], dashIndex: -1 };
}
