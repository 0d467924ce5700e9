/**
 * The security bench's text report for people: per-suite tables, the acceptance checks of SPEC §7,
 * the steps that keep a target from being met (attack steps not denied, benign calls denied), and
 * AgentDojo's published numbers beside ours, labelled as a different experiment. Edge (bench
 * tooling; returns text, prints nothing).
 *
 * Source: SPEC §7; issue 6 part 1.
 * @module
 */

import { OTHER_DEFENSES, PUBLISHED, PUBLISHED_SOURCE, type SuiteNumbers } from "./published.ts";
import type { BenchRun } from "./run-bench.ts";
import type { StepResult } from "./run-scenario.ts";
import { type AcceptanceCheck, acceptance, type SecurityStats } from "./score.ts";

/** One step worth a reader's attention, grouped with the scenarios where the same call happened. */
export interface NotableStep {
  readonly kind: "attack_not_denied" | "benign_denied";
  readonly verdict: string;
  readonly tool: string;
  readonly args: string;
  readonly reason: string;
  /** Scenario ids and step indices, `suite/user_task/injection_task#i`. */
  readonly where: readonly string[];
}

/**
 * Renders a table with left-aligned first column and right-aligned numbers.
 * @param head - Column titles.
 * @param rows - Cells.
 * @returns Lines of text.
 */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}

function suiteRows(run: BenchRun): [string, SecurityStats][] {
  return [...run.suites.entries(), ["total", run.total]];
}

/**
 * Groups the attack steps that were not denied outright and the benign calls that were denied.
 * @param run - A finished run.
 * @returns The groups, attack steps first, each in corpus order.
 */
export function notableSteps(run: BenchRun): NotableStep[] {
  const groups = new Map<string, NotableStep & { where: string[] }>();
  const add = (kind: NotableStep["kind"], id: string, s: StepResult): void => {
    const args = JSON.stringify(s.step.args);
    const key = JSON.stringify([kind, s.verdict, s.step.tool, args]);
    const where = `${id}#${s.step.i}`;
    const found = groups.get(key);
    if (found !== undefined) found.where.push(where);
    else {
      const reason = (s.reason ?? "").replace(/\(call #\d+\)/g, "(call #n)");
      groups.set(key, { kind, verdict: s.verdict, tool: s.step.tool, args, reason, where: [where] });
    }
  };
  for (const { scenario, steps } of run.outcomes) {
    for (const s of steps) {
      if (s.step.attack_step === true && s.verdict !== "deny") add("attack_not_denied", scenario.id, s);
      if (scenario.injection_task_id === null && s.verdict === "deny") add("benign_denied", scenario.id, s);
    }
  }
  return [...groups.values()].sort((a, b) =>
    a.kind === b.kind ? 0 : a.kind === "attack_not_denied" ? -1 : 1,
  );
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function publishedLines(run: BenchRun): string[] {
  const suites = ["workspace", "travel", "banking", "slack"] as const;
  const fmt = (numbers: SuiteNumbers): string =>
    `${numbers.all} (${suites.map((s) => String(numbers[s])).join("/")})`;
  const ours = (
    set: { readonly total: SecurityStats; readonly suites: ReadonlyMap<string, SecurityStats> },
    pick: (stats: SecurityStats) => number,
  ): string => {
    const per = suites.map((s) => {
      const stats = set.suites.get(s);
      return stats === undefined ? "-" : String(pick(stats));
    });
    return `${pick(set.total)} (${per.join("/")})`;
  };
  const replayRow = (
    label: string,
    set: { readonly total: SecurityStats; readonly suites: ReadonlyMap<string, SecurityStats> },
  ): string[] => [
    label,
    String(set.total.injected_scenarios),
    `${ours(set, (s) => s.benign_no_deny_pct)} *`,
    `${ours(set, (s) => s.injected_no_user_deny_pct)} *`,
    ours(set, (s) => s.asr_worst_case_pct),
  ];
  const rows: string[][] = [
    replayRow("Bouncer replay, worst case (this run)", run),
    replayRow("Bouncer replay, worst case, v1 task set", run.v1),
    ...PUBLISHED.map((row) => [
      row.pipeline,
      String(row.pairs),
      fmt(row.utility),
      fmt(row.utilityUnderAttack),
      fmt(row.asr),
    ]),
  ];
  return [
    "AgentDojo's published numbers — a DIFFERENT EXPERIMENT (live models), not a like-for-like comparison",
    ...table(
      ["pipeline", "pairs", "U all (ws/tr/ba/sl)", "UA all (ws/tr/ba/sl)", "ASR all (ws/tr/ba/sl)"],
      rows,
    ),
    "* for the replay: scenarios with no denied user-task call, in % — a ceiling on (U, UA), not a measured utility.",
    ...wrap(PUBLISHED_SOURCE, 110),
    "Other published defenses (aggregate; also live models):",
    ...OTHER_DEFENSES.map((line) => `  ${line}`),
  ];
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * The whole report.
 * @param run - A finished run.
 * @param options - A title line (corpus, date, machine) and how many scenario ids to show per group.
 * @returns The text, ending in a newline.
 */
export function renderReport(
  run: BenchRun,
  options: { readonly title: string; readonly ids?: number },
): string {
  const o = run.options;
  const out: string[] = [options.title];
  out.push(
    `choices: commit tools ${o.commit === "gate" ? "gated" : "not gated"}; other tools: ${o.others}; ` +
      `outputs recorded: ${o.outputs}; directory allowlist ${o.directory ? "trusted" : "not trusted"}; ` +
      `on_tainted default ${o.onTainted}${o.askOnTainted.length > 0 ? `; on_tainted ask for ${o.askOnTainted.join(", ")}` : ""}`,
    "",
    "Attack steps (sink calls to an attacker-controlled destination) and injected scenarios",
    ...table(
      [
        "suite",
        "steps",
        "allowed",
        "denied",
        "asked",
        "denied %",
        "in-scope stopped",
        "by deny",
        "ASR in-scope %",
        "ASR worst %",
        "out-of-scope stopped",
      ],
      suiteRows(run).map(([name, s]) => [
        name,
        String(s.attacks_total),
        String(s.attacks_allowed),
        String(s.attacks_denied),
        String(s.attacks_asked),
        String(s.attacks_denied_pct),
        `${s.in_scope_stopped}/${s.in_scope_scenarios}`,
        String(s.in_scope_stopped_by_deny),
        String(s.asr_in_scope_pct),
        String(s.asr_worst_case_pct),
        `${s.out_of_scope_stopped}/${s.out_of_scope_scenarios}`,
      ]),
    ),
    "",
    "Injected scenarios per attack class (out of scope: stopped only if an injected call is blocked)",
    ...table(
      ["attack class", "scenarios", "attack steps", "denied", "asked", "stopped", "by deny"],
      [...run.classes.entries()].map(([name, s]) => {
        const inScope = s.in_scope_scenarios > 0;
        return [
          `${name}${inScope ? "" : " (out of scope)"}`,
          String(s.injected_scenarios),
          String(s.attacks_total),
          String(s.attacks_denied),
          String(s.attacks_asked),
          String(inScope ? s.in_scope_stopped : s.out_of_scope_stopped),
          inScope ? String(s.in_scope_stopped_by_deny) : "-",
        ];
      }),
    ),
    "",
    "Benign tasks (no injection) and user-task calls inside injected scenarios",
    ...table(
      [
        "suite",
        "tasks",
        "with a deny",
        "denied calls",
        "asks median",
        "mean",
        "max",
        "no-deny %",
        "injected w/ user call denied",
      ],
      suiteRows(run).map(([name, s]) => [
        name,
        String(s.benign_tasks),
        String(s.benign_tasks_denied),
        String(s.benign_denied_calls),
        String(s.benign_asks_median),
        String(s.benign_asks_mean),
        String(s.benign_asks_max),
        String(s.benign_no_deny_pct),
        `${s.injected_scenarios_user_denied}/${s.injected_scenarios}`,
      ]),
    ),
    "",
    "Acceptance (SPEC §7)",
    ...acceptance(run.total).map(
      (c: AcceptanceCheck) => `  ${c.met ? "met " : "MISS"}  ${c.target}: ${c.measured}`,
    ),
    "",
  );
  const notable = notableSteps(run);
  if (notable.length > 0)
    out.push("Steps behind the numbers (attack steps not denied outright; benign calls denied)");
  const ids = options.ids ?? 3;
  for (const step of notable) {
    const more = step.where.length > ids ? ` +${step.where.length - ids} more` : "";
    const label = step.kind === "attack_not_denied" ? "attack" : "benign";
    out.push(
      `  ${label} ${step.verdict} x${step.where.length}  ${step.tool} ${cut(step.args, 100)}`,
      `      ${cut(step.reason, 220)}`,
      `      in ${step.where.slice(0, ids).join(", ")}${more}`,
    );
  }
  out.push("", ...publishedLines(run));
  return `${out.join("\n")}\n`;
}
