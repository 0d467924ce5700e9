/**
 * Flag parsing shared by the bench commands: `--help` prints the usage (exit 0) and an unknown or
 * malformed flag prints what is wrong and the usage (exit 2), instead of a stack trace.
 *
 * Source: brief ("`--help` on every command", clear errors); SPEC §5 (exit 2 for a usage error).
 * @module
 */

import { type ParseArgsConfig, parseArgs } from "node:util";

/** Flags a bench accepts, as `node:util` `parseArgs` options. */
export type BenchFlags = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses a bench's flags, or says how to use it.
 * @param argv - The arguments after the script.
 * @param flags - The accepted flags (`--help` is added).
 * @param usage - The usage text, several lines.
 * @returns The parsed values, or the exit status when the command should end now (0 after
 *   `--help`, 2 after a usage error).
 */
export function benchArgs<F extends BenchFlags>(
  argv: readonly string[],
  flags: F,
  usage: string,
): { readonly values: ReturnType<typeof parseArgs<{ options: F; strict: true }>>["values"] } | number {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: [...argv], options: { ...flags, help: { type: "boolean" } }, strict: true })
      .values as Record<string, unknown>;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${usage}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return { values: values as ReturnType<typeof parseArgs<{ options: F; strict: true }>>["values"] };
}
