/**
 * `npm run bench:security`: replays the AgentDojo-derived corpus (1,046 scenarios, four suites)
 * through the shared gate as `bouncer replay` does — one fresh client session per scenario, a careful
 * human who approves asks on the user's own steps and declines asks on attack steps — and prints, per
 * suite and in total, attack steps allowed / denied / asked, injected scenarios stopped, the
 * worst-case attack success rate, out-of-scope injected scenarios apart, benign tasks with a denied
 * call and asks per benign task, with AgentDojo's published numbers beside them as a different
 * experiment. Writes `dist/bench/security.json`. Exit 0 (with `--check`: 1 when a target is missed).
 *
 * Flags: `--corpus FILE` (default the compressed corpus beside this script), `--out FILE` (default
 * `dist/bench/security.json`), `--commit gate|off`, `--others heuristics|not-exfiltrating`,
 * `--outputs all|forwarded`, `--directory` (trust each suite's directory allowlist), `--on-tainted
 * deny|ask`, `--ask-on-tainted TOOL` (repeatable), `--variants` (also run each alternative choice and
 * print one line per choice), `--ids N` (scenario ids shown per notable step), `--check`.
 *
 * Source: SPEC §7; issue 6 part 1.
 * @module
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, machine } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchArgs } from "./bench-args.ts";
import { loadCorpus } from "./security/corpus.ts";
import { PUBLISHED } from "./security/published.ts";
import { notableSteps, renderReport, table } from "./security/report.ts";
import { type BenchOptions, type BenchRun, runBench } from "./security/run-bench.ts";
import { acceptance } from "./security/score.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

/** What `--help` prints. */
const USAGE = `Usage: npm run bench:security -- [--corpus FILE] [--out FILE] [--commit gate|off]
  [--others heuristics|not-exfiltrating] [--outputs all|forwarded] [--directory]
  [--on-tainted deny|ask] [--ask-on-tainted TOOL]... [--variants] [--ids N] [--check]
Replays the AgentDojo-derived corpus through the gate and writes dist/bench/security.json.`;
const ROOT = resolve(HERE, "../..");

/** The alternative choices `--variants` measures, each against the run's own choices. */
const VARIANTS: readonly { readonly label: string; readonly options: BenchOptions }[] = [
  { label: "commit tools not gated", options: { commit: "off" } },
  { label: "other tools exfiltrating: false (pack style)", options: { others: "not-exfiltrating" } },
  { label: "only forwarded outputs recorded", options: { outputs: "forwarded" } },
  { label: "directory allowlist trusted", options: { directory: true } },
  { label: "defaults.on_tainted: ask", options: { onTainted: "ask" } },
];

function machineInfo(): { nproc: number; arch: string; cpu: string } {
  return { nproc: availableParallelism(), arch: machine(), cpu: cpus()[0]?.model ?? "unknown" };
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new TypeError(`Cannot run bench: --${flag} must be one of ${allowed.join(", ")}, not "${value}"`);
}

function summaryLine(label: string, run: BenchRun): string[] {
  const t = run.total;
  return [
    label,
    `${t.attacks_allowed}`,
    `${t.attacks_denied_pct}`,
    `${t.attacks_asked}`,
    `${t.benign_tasks_denied}/${t.benign_tasks}`,
    `${t.benign_asks_median}/${t.benign_asks_mean}/${t.benign_asks_max}`,
    `${t.asr_worst_case_pct}`,
    `${t.injected_scenarios_user_denied}`,
    acceptance(t).every((c) => c.met) ? "yes" : "no",
  ];
}

function variantJson(label: string, run: BenchRun): Record<string, unknown> {
  return { label, choices: run.options, ...run.total, acceptance: acceptance(run.total) };
}

async function main(argv: readonly string[]): Promise<number> {
  const parsed = benchArgs(
    argv,
    {
      corpus: { type: "string" },
      out: { type: "string" },
      commit: { type: "string" },
      others: { type: "string" },
      outputs: { type: "string" },
      directory: { type: "boolean" },
      "on-tainted": { type: "string" },
      "ask-on-tainted": { type: "string", multiple: true },
      variants: { type: "boolean" },
      ids: { type: "string" },
      check: { type: "boolean" },
    },
    USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const corpusFile = resolve(values.corpus ?? resolve(HERE, "data/agentdojo-corpus.json.gz"));
  const outFile = resolve(values.out ?? resolve(ROOT, "dist/bench/security.json"));
  const commit = oneOf(values.commit, ["gate", "off"], "commit");
  const others = oneOf(values.others, ["heuristics", "not-exfiltrating"], "others");
  const outputs = oneOf(values.outputs, ["all", "forwarded"], "outputs");
  const onTainted = oneOf(values["on-tainted"], ["deny", "ask"], "on-tainted");
  const base: BenchOptions = {
    ...(commit === undefined ? {} : { commit }),
    ...(others === undefined ? {} : { others }),
    ...(outputs === undefined ? {} : { outputs }),
    ...(values.directory === true ? { directory: true } : {}),
    ...(onTainted === undefined ? {} : { onTainted }),
    ...(values["ask-on-tainted"] === undefined ? {} : { askOnTainted: values["ask-on-tainted"] }),
  };
  const corpus = loadCorpus(corpusFile);
  const tty = process.stderr.isTTY === true;
  const progress =
    (label: string) =>
    (done: number, total: number): void => {
      if (tty && (done % 25 === 0 || done === total)) process.stderr.write(`\r${label}: ${done}/${total}`);
      if (done === total) process.stderr.write(`${tty ? "\r" : ""}${label}: ${total} scenarios replayed\n`);
    };
  const started = performance.now();
  const run = await runBench(corpus, { ...base, onProgress: progress("replay") });
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const date = new Date().toISOString();
  const host = machineInfo();
  const title =
    `AgentDojo replay (${corpus.scenarios.length} scenarios, ${corpusFile.replace(`${ROOT}/`, "")}) — ` +
    `${date.slice(0, 10)}, ${host.nproc} × ${host.cpu}, ${host.arch}, ${seconds} s`;
  const ids = values.ids === undefined ? 3 : Number.parseInt(values.ids, 10);
  process.stdout.write(renderReport(run, { title, ids }));
  const variants: Record<string, unknown>[] = [];
  if (values.variants === true) {
    const lines = [summaryLine("this run", run)];
    for (const variant of VARIANTS) {
      const other = await runBench(corpus, {
        ...base,
        ...variant.options,
        onProgress: progress(variant.label),
      });
      lines.push(summaryLine(variant.label, other));
      variants.push(variantJson(variant.label, other));
    }
    const head = [
      "choice",
      "attacks allowed",
      "denied %",
      "asked",
      "benign denied",
      "asks med/mean/max",
      "ASR %",
      "inj. user denied",
      "all met",
    ];
    process.stdout.write(`\nChoices compared (totals)\n${table(head, lines).join("\n")}\n`);
  }
  const checks = acceptance(run.total);
  const json = {
    generated: date,
    machine: host,
    seconds,
    corpus: {
      file: corpusFile.replace(`${ROOT}/`, ""),
      scenarios: corpus.scenarios.length,
      source: corpus.meta.source,
    },
    choices: run.options,
    ...run.total,
    suites: Object.fromEntries(run.suites),
    v1_task_set: { ...run.v1.total, suites: Object.fromEntries(run.v1.suites) },
    attack_classes: Object.fromEntries(run.classes),
    acceptance: checks,
    notable_steps: notableSteps(run),
    policies: Object.fromEntries(run.policies),
    published: { note: "different experiment: live models", rows: PUBLISHED },
    ...(variants.length > 0 ? { variants } : {}),
  };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`\nwrote ${outFile.replace(`${ROOT}/`, "")}\n`);
  return values.check === true && !checks.every((c) => c.met) ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
