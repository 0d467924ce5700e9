/**
 * The AgentDojo-derived replay corpus (`scripts/bench/data/agentdojo-corpus.json.gz`, sample in
 * `tests/fixtures/agentdojo/corpus.sample.json`): its types and a loader that checks the fields the
 * security bench reads. The format is documented in the corpus itself (`meta.field_docs`) and in the
 * corpus README's §6, which travels with the data set; the licence notice is
 * `scripts/bench/data/LICENSE-agentdojo.md`. Edge (bench tooling).
 *
 * Source: SPEC §7 (security measurement), issue 6 part 1.
 * @module
 */

import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { JsonObject, JsonValue } from "../../../src/engine/index.ts";

/** How the corpus classifies a tool (README §3). */
export type SinkClass = "exfiltrating" | "commit";

/** One tool of a suite, as listed in `meta.suites[suite].tools`. */
export interface CorpusTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonObject;
  /** Absent (or null) for read and non-sink write tools. */
  readonly sink_class?: SinkClass | null;
  readonly dest_params?: readonly string[] | null;
}

/** One suite's tools and its suggested directory allowlist. */
export interface CorpusSuite {
  readonly tools: readonly CorpusTool[];
  readonly directory_allowlist: readonly string[];
}

/** One step of a scenario: a tool call and the exact text AgentDojo hands back. */
export interface CorpusStep {
  readonly i: number;
  readonly origin: "user_task" | "injection_task";
  readonly tool: string;
  readonly args: JsonObject;
  readonly output: string;
  /** Present when the tool raised (then `output` is empty). */
  readonly error?: string;
  /** A sink call to an attacker-controlled destination. */
  readonly attack_step?: boolean;
  readonly sink?: { readonly class: SinkClass; readonly dest_params: readonly string[] };
}

/** One scenario: a benign user task, or a (user task, injection task) pair. */
export interface CorpusScenario {
  readonly id: string;
  readonly suite: string;
  readonly user_task_id: string;
  /** Null for a benign scenario. */
  readonly injection_task_id: string | null;
  readonly attack_class?: string;
  readonly steps: readonly CorpusStep[];
  readonly expected: {
    readonly sink_steps_must_not_deny: readonly number[];
    readonly attack_steps_must_not_allow: readonly number[];
  };
}

/** The whole corpus. */
export interface Corpus {
  readonly meta: {
    readonly source: JsonObject;
    readonly suites: Readonly<Record<string, CorpusSuite>>;
  };
  readonly scenarios: readonly CorpusScenario[];
}

/** Attack classes a destination gate is expected to stop (README §4: the other 157 are out of scope). */
export const IN_SCOPE_CLASSES: ReadonlySet<string> = new Set([
  "exfil_to_attacker",
  "commit_to_attacker_choice",
  "access_grant_to_attacker",
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks the fields the bench reads, so a truncated or foreign file fails loudly instead of
 * producing numbers.
 * @param value - The parsed JSON.
 * @param file - The file name, for messages.
 * @returns The corpus.
 * @throws {TypeError} When a field the bench reads is missing or of the wrong type.
 */
export function checkCorpus(value: JsonValue, file: string): Corpus {
  const fail = (what: string): never => {
    throw new TypeError(`Cannot read corpus "${file}": ${what}`);
  };
  if (!isObject(value) || !isObject(value.meta) || !Array.isArray(value.scenarios)) {
    return fail('expected an object with "meta" and "scenarios"');
  }
  const suites = value.meta.suites;
  if (!isObject(suites)) return fail('"meta.suites" is not an object');
  for (const [name, suite] of Object.entries(suites)) {
    if (!isObject(suite) || !Array.isArray(suite.tools)) fail(`suite "${name}" has no tool list`);
  }
  for (const [index, scenario] of value.scenarios.entries()) {
    if (!isObject(scenario) || typeof scenario.id !== "string" || !Array.isArray(scenario.steps)) {
      fail(`scenario ${index} has no "id" or "steps"`);
      continue;
    }
    if (typeof scenario.suite !== "string" || !Object.hasOwn(suites, scenario.suite)) {
      fail(`scenario "${scenario.id}" names an unknown suite`);
    }
    if (!isObject(scenario.expected)) fail(`scenario "${scenario.id}" has no "expected"`);
    for (const step of scenario.steps) {
      if (!isObject(step) || typeof step.tool !== "string" || !isObject(step.args)) {
        fail(`scenario "${scenario.id}" has a step without "tool" or "args"`);
      } else if (typeof step.output !== "string") {
        fail(`scenario "${scenario.id}" step ${String(step.i)} has no "output" string`);
      }
    }
  }
  return value as unknown as Corpus;
}

/**
 * Reads the corpus: `.gz` files are gunzipped, anything else is read as JSON text.
 * @param file - The path.
 * @returns The checked corpus.
 * @throws {TypeError} For a file that is not a corpus; the file system's error when unreadable.
 */
export function loadCorpus(file: string): Corpus {
  const bytes = readFileSync(file);
  const text = file.endsWith(".gz") ? gunzipSync(bytes).toString("utf8") : bytes.toString("utf8");
  return checkCorpus(JSON.parse(text) as JsonValue, file);
}
