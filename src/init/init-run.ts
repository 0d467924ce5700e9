/**
 * `bouncer init` and `bouncer init --undo` from flags to files: find the configs, plan every one of
 * them first (a file that does not parse stops everything, exit 2), print what will happen and the
 * masked diff, then — only with `--yes` or an interactive yes, never with `--dry-run` — back up and
 * atomically rewrite each changed file. `--policy` files are validated first: an invalid one stops
 * everything (exit 2), since every wrapped server would fail to start with it. Returns the exit status. Edge.
 *
 * Source: SPEC §5.2, STYLE #15, #16.
 * @module
 */

import path from "node:path";
import pc from "picocolors";
import { checkPolicyPaths, formatIssueLine } from "../commands/policy-files.ts";
import { escapeControls } from "../engine/index.ts";
import { BouncerError, errorLine, isBouncerError } from "../platform/errors.ts";
import type { InitEnvironment } from "./init-environment.ts";
import { chooseLauncher, type SkippedLauncher } from "./launcher.ts";
import { launcherProblem } from "./launcher-problem.ts";
import { colorDiff, maskedDiff } from "./masked-diff.ts";
import { type InitPlan, planInit } from "./plan.ts";
import {
  describeTargets,
  distinctTargets,
  type LoadedTarget,
  loadFailureMessage,
  noConfigMessage,
  noServerNamedMessage,
  resolveTargets,
  safeLine,
} from "./targets.ts";
import type { Launcher } from "./types.ts";
import { writeConfigFile } from "./write-config.ts";
import { hardLinkWarning, writtenLine } from "./write-report.ts";
import { watchWriteSignals } from "./write-signals.ts";

/** The flags of `bouncer init` (SPEC §5.2). */
export interface InitRequest {
  readonly config?: string;
  readonly client?: string;
  readonly servers: readonly string[];
  readonly policies: readonly string[];
  readonly dryRun: boolean;
  readonly yes: boolean;
  readonly undo: boolean;
}

/** A target with its plan. */
interface Planned {
  readonly target: LoadedTarget;
  readonly plan: InitPlan;
}

/**
 * Runs `bouncer init` (wrap) or `bouncer init --undo`.
 *
 * Source: SPEC §5.2.
 * @param request - The flags.
 * @param environment - Streams, environment, clock, terminal.
 * @returns 0 on success (also when nothing needed to change, and when the user answers no at the
 *   prompt), 1 on a runtime failure or a refused entry, 2 on a usage error, an invalid `--policy`
 *   file or a config that does not parse.
 * @throws {BouncerError} Usage errors from flag combinations and unknown clients; `POLICY_UNREADABLE`
 *   for a `--policy` file that cannot be read.
 */
export async function runInit(request: InitRequest, environment: InitEnvironment): Promise<number> {
  const { io } = environment;
  const command = request.undo ? "bouncer init --undo" : "bouncer init";
  if (request.undo && request.policies.length > 0) {
    throw new BouncerError("USAGE", `Cannot run "${command}": --policy only applies when wrapping`);
  }
  const policies = await resolvePolicies(request.policies, environment);
  if (policies === undefined) return 2;
  const set = resolveTargets({ ...request, command }, environment);
  if (set.targets.length === 0) {
    io.err(noConfigMessage(set));
    return 2;
  }
  if (!set.explicit) io.err(`Client configs found:\n${describeTargets(set.targets)}`);
  const choice = request.undo || environment.launcher !== undefined ? undefined : chooseLauncher(environment);
  if (choice?.skipped !== undefined) io.err(safeLine(skippedLauncherLine(choice.launcher, choice.skipped)));
  const launcher = request.undo ? undefined : (environment.launcher ?? choice?.launcher);
  const planned: Planned[] = [];
  let failed = false;
  const onTarget = (line: string, failure: boolean): void => {
    io.err(line);
    if (failure) failed = true;
  };
  // Two paths to one file (`.cursor/mcp.json` a symlink to `.mcp.json`): planned and written once.
  for await (const target of distinctTargets(set.targets, onTarget)) {
    try {
      const plan = planInit(target.read.text, {
        client: target.client,
        mode: request.undo ? "undo" : "wrap",
        servers: request.servers,
        policies,
        ...(launcher === undefined ? {} : { launcher }),
      });
      if (plan.config.sections.length > 0) planned.push({ target, plan });
      else if (set.explicit) {
        const key = target.client.sections.keys.join('" or "');
        io.err(errorLine(`Cannot use "${target.path}": it has no MCP server section ("${key}")`));
        failed = true;
      } else io.err(safeLine(`${target.path}: no MCP server section, skipped`));
    } catch (error) {
      io.err(errorLine(loadFailureMessage(error, target.path)));
      failed = true;
    }
  }
  if (failed) {
    io.err("bouncer: Nothing written\n");
    return 2;
  }
  if (planned.length === 0) {
    // Every file found was skipped for having no server section: nothing could be done (SPEC §5.2).
    io.err("bouncer: None of the client configs found has an MCP server section: nothing written\n");
    return 2;
  }
  const missing = request.servers.filter(
    (name) => !planned.some((p) => p.plan.config.entries.some((e) => e.name === name)),
  );
  if (missing.length > 0) {
    io.err(noServerNamedMessage(missing, ": nothing written"));
    return 2;
  }
  report(planned, environment);
  return await apply(planned, { request, environment });
}

/**
 * The line that names the launcher `init` writes when it passed over the `bouncer` on PATH.
 *
 * Source: SPEC §5.2 (the launcher); the review of `npm link` launchers.
 * @param launcher - The launcher written.
 * @param skipped - The PATH `bouncer` passed over.
 * @returns One line, without its line feed.
 */
function skippedLauncherLine(launcher: Launcher, skipped: SkippedLauncher): string {
  const written = [launcher.command, ...launcher.prefixArgs].join(" ");
  return `Launcher written: "${written}", not "${skipped.path}" found on PATH: that is a script run by ${skipped.runtime}, which would read the .env and bunfig.toml of the folder a client starts it in`;
}

/**
 * Prints each file's entry actions and warnings (stderr; a wrapped entry's launcher that is gone or
 * unsafe, as `--check` finds it) and the masked diffs (stdout).
 * @param planned - The plans.
 * @param environment - Where to print.
 */
function report(planned: readonly Planned[], environment: InitEnvironment): void {
  const { io } = environment;
  // Names, comments and values come from the config file (a cloned repository's `.mcp.json`, say):
  // what a terminal would act on or hide is escaped before the user reviews it. A line of the plan
  // is escaped whole (a name holding a line feed cannot print a line of its own); the diff keeps its
  // line ends (a CRLF file's are shown as plain line ends; the file is written with its own).
  const safe = (text: string): string =>
    escapeControls(text.replaceAll("\r\n", "\n"), { keepNewlines: true, keepTabs: true });
  for (const { target, plan } of planned) {
    io.err(safeLine(`${target.path} (${target.client.title}):`));
    if (plan.actions.length === 0) io.err("  no servers\n");
    for (const action of plan.actions) {
      io.err(safeLine(`  ${action.action === "refuse" ? "refused: " : ""}${action.message}`));
      // `init` leaves a wrapped entry alone: a launcher gone since is said, with the fix, not skipped.
      const problem =
        action.entry.kind === "wrapped" ? launcherProblem(action.entry, environment) : undefined;
      if (problem !== undefined) io.err(safeLine(`  warning: "${action.entry.label}": ${problem.message}`));
    }
    for (const warning of plan.warnings) io.err(safeLine(`  warning: ${warning}`));
    const split = plan.changed ? hardLinkWarning(target) : undefined;
    if (split !== undefined) io.err(safeLine(`  warning: ${split}`));
    const diff = safe(maskedDiff(plan, { file: target.path, client: target.client }));
    if (diff !== "") io.out(io.color ? colorDiff(diff, pc) : diff);
  }
}

/**
 * Writes the changed files when allowed.
 * @param planned - The plans.
 * @param context - The request and environment.
 * @returns The exit status.
 */
async function apply(
  planned: readonly Planned[],
  context: { readonly request: InitRequest; readonly environment: InitEnvironment },
): Promise<number> {
  const { request, environment } = context;
  const { io } = environment;
  const refused = planned.some((p) => p.plan.actions.some((a) => a.action === "refuse"));
  const changed = planned.filter((p) => p.plan.changed);
  const base = refused ? 1 : 0;
  if (changed.length === 0) {
    // After a refusal, "nothing to change" would read as success.
    if (refused) io.err("bouncer: Nothing written\n");
    else io.err(request.undo ? "Nothing to restore\n" : "Nothing to change: no stdio server left to wrap\n");
    return base;
  }
  if (request.dryRun) {
    io.err("Dry run: nothing written\n");
    return base;
  }
  if (!request.yes) {
    if (!environment.interactive) {
      io.err("bouncer: Not written: run again with --yes to write (no terminal to confirm on)\n");
      return 2;
    }
    const files = changed.length === 1 ? "1 file" : `${changed.length} files`;
    const answer = await environment.confirm(`Write ${files}? [y/N] `);
    if (answer === "interrupted") {
      io.err("Interrupted: nothing written\n");
      return 130;
    }
    if (!answer) {
      // A user who declines has not failed: the answer is honoured, as a dry run's is (README).
      io.err("Nothing written\n");
      return base;
    }
  }
  // From here a signal stops the run cleanly: the write in progress removes its temp file and
  // backup and releases its lock, and no further file is written (`write-signals.ts`).
  const signals = watchWriteSignals();
  let failures = 0;
  try {
    for (const [index, { target, plan }] of changed.entries()) {
      if (signals.interrupted() !== undefined) break;
      try {
        const { backup } = await writeConfigFile(target.read, plan.after, {
          now: environment.now(),
          signal: signals.signal,
          onLockWait: (lock) =>
            io.err(
              safeLine(
                `Waiting for another bouncer init to finish with "${target.path}" (lock file "${lock}")`,
              ),
            ),
        });
        io.err(safeLine(writtenLine(target, backup)));
      } catch (error) {
        if (!isBouncerError(error)) throw error;
        if (error.code === "INTERRUPTED") {
          const rest = changed.length - index - 1;
          const more = rest === 0 ? "" : `; ${rest} more file(s) not written`;
          io.err(errorLine(`${error.message} (no temp file, backup or lock left)${more}`));
          break;
        }
        io.err(errorLine(error.message));
        failures++;
      }
    }
  } finally {
    signals.remove();
  }
  const stopped = signals.interrupted();
  if (stopped !== undefined) {
    io.err(`bouncer: Stopped by ${stopped.signal}\n`);
    return stopped.code;
  }
  if (failures === 0 && !request.undo)
    io.err("Restart the client to start the wrapped servers through Bouncer\n");
  return failures > 0 ? 1 : base;
}

/**
 * Validates the `--policy` files as `bouncer run` will (the policy module, with the built-in packs)
 * and resolves them to absolute paths (the client starts Bouncer from another folder). An invalid
 * file would make every wrapped server fail at start-up, so its issues are printed instead.
 *
 * Source: SPEC §4.2 (strict validation), §5.2.
 * @param policies - The values given, in order.
 * @param environment - Working directory and where to print.
 * @returns Absolute paths, or undefined when a file is invalid (its issues printed, `FILE:LINE:COLUMN`).
 * @throws {BouncerError} `POLICY_UNREADABLE` (exit 2) for a file that cannot be read.
 */
async function resolvePolicies(
  policies: readonly string[],
  environment: InitEnvironment,
): Promise<string[] | undefined> {
  const { io } = environment;
  if (policies.length === 0) return [];
  const checked = await checkPolicyPaths(policies, { cwd: io.cwd });
  if (!checked.ok) {
    for (const issue of checked.issues) io.err(`${formatIssueLine(issue)}\n`);
    io.err("bouncer: Cannot wrap with an invalid policy: nothing written\n");
    return undefined;
  }
  return policies.map((policy) => path.resolve(io.cwd, policy));
}
