/**
 * Checks a build output folder: every target's executable exists, carries the header of its platform
 * (ELF with the right machine and, on Linux, the glibc or musl loader; Mach-O 64 with the right CPU; PE32+
 * for x86-64) and matches its line in `SHA256SUMS`. Runnable: `bun scripts/build/verify-dist.ts [DIR]`
 * prints one line per problem and exits 1 if there is any. Edge (build tooling).
 *
 * Source: SPEC §6, issue 5 ("every target's file exists with the right header and matches SHA256SUMS").
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { headerMismatch, readExecutableHeader, readHead } from "./executable-header.ts";
import { parseSha256Sums, sha256File } from "./release-files.ts";
import { type BuildTarget, TARGETS } from "./targets.ts";

/**
 * Checks an output folder against the targets and its `SHA256SUMS`.
 * @param dir - The folder (normally `dist`).
 * @param targets - Targets expected there; default every release target.
 * @returns One message per problem; empty when all is well.
 */
export function verifyDist(dir: string, targets: readonly BuildTarget[] = TARGETS): string[] {
  const problems: string[] = [];
  const sumsPath = join(dir, "SHA256SUMS");
  let sums = new Map<string, string>();
  if (existsSync(sumsPath)) {
    try {
      sums = parseSha256Sums(readFileSync(sumsPath, "utf8"));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  } else {
    problems.push(`"${sumsPath}" is missing`);
  }
  for (const target of targets) {
    const path = join(dir, target.file);
    if (!existsSync(path)) {
      problems.push(`"${target.file}" is missing`);
      continue;
    }
    const mismatch = headerMismatch(readExecutableHeader(readHead(path)), target);
    if (mismatch !== null) problems.push(`"${target.file}" has the wrong header: ${mismatch}`);
    const listed = sums.get(target.file);
    if (listed === undefined) problems.push(`"${target.file}" is not listed in SHA256SUMS`);
    else if (listed !== sha256File(path)) problems.push(`"${target.file}" does not match SHA256SUMS`);
  }
  return problems;
}

if (import.meta.main) {
  const dir = process.argv[2] ?? "dist";
  const problems = verifyDist(dir);
  for (const problem of problems) process.stderr.write(`verify-dist: ${problem}\n`);
  if (problems.length === 0) process.stdout.write(`verify-dist: ${TARGETS.length} targets in "${dir}" ok\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
