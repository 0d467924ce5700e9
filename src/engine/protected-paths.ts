/**
 * Bouncer's own files, out of reach of path arguments (stricter than SPEC §2.4, which is silent on
 * them): a gated tool that writes files — the filesystem server, whose pack confines it to the
 * directories on its command line, often the home — could otherwise rewrite a pin file (accepting
 * a changed definition that no person saw), move it away (the next session pins the server again on
 * first sight), or rewrite the policy or the audit log. A value of `write_params` that resolves, at
 * any step and under any base of relative values, inside one of the context's protected paths, or
 * to a folder holding one, is reported. The resolution is `paths.ts`'s. Pure.
 *
 * Source: SPEC §2.2 (accepting a definition is a person's act: `bouncer pins accept` reads the
 * terminal, never the agent's input), §2.4 (path resolution), §2.1 (fail closed).
 * @module
 */

import { isFileUri, isRelative, type ParsedPath, serialise } from "./normalize-path.ts";
import type { PathContext, RelativeBase } from "./path-context.ts";
import { basesOf, resolveSteps } from "./paths.ts";

/** The outcome of {@link checkProtectedPaths}. */
export type ProtectedCheck =
  | { readonly kind: "clear" }
  | {
      readonly kind: "protected";
      /** The step that reached a protected path. */
      readonly step: string;
      /** The protected path it reached (one of its resolved forms). */
      readonly reached: string;
      readonly base?: RelativeBase;
    }
  | { readonly kind: "invalid"; readonly problem: string; readonly base?: RelativeBase };

const CLEAR: ProtectedCheck = { kind: "clear" };

/**
 * Checks that a path value reaches none of the context's protected paths: no step of its resolution
 * (lexical, and each one the injected walk lands on) is a protected path, inside one, or a folder
 * that holds one (a folder moved or replaced takes Bouncer's files with it) — resolved against the
 * working directory and, when relative, against every other base of relative values; a `file:`
 * value also read as the relative path its text is. A value that cannot be resolved is `invalid`:
 * whether it reaches one cannot be told.
 *
 * Source: SPEC §2.4 (resolution), §2.2 (a definition is accepted by a person), §2.1 (fail closed).
 * @param value - The path argument's value.
 * @param ctx - The path context with its `protectedPaths` (none: always clear).
 * @returns `clear`, `protected` with the step and the path it reached, or `invalid`.
 * @throws Never for bad input; a throwing resolver yields `invalid`.
 * @example checkProtectedPaths("/h/.bouncer/pins/x.json", { cwd: "/w", home: "/h", platform: "posix", protectedPaths: ["/h/.bouncer"] }).kind // "protected"
 */
export function checkProtectedPaths(value: string, ctx: PathContext): ProtectedCheck {
  const paths = ctx.protectedPaths ?? [];
  if (paths.length === 0) return CLEAR;
  const guarded: ParsedPath[] = [];
  for (const path of paths) {
    const forms = resolveSteps(path, ctx);
    if (Array.isArray(forms)) guarded.push(...forms);
    else {
      // A protected path the walk cannot resolve is still guarded as written (fail closed).
      const { resolve: _walk, ...lexicalCtx } = ctx;
      const lexical = resolveSteps(path, lexicalCtx);
      if (Array.isArray(lexical)) guarded.push(...lexical);
    }
  }
  const readings = isFileUri(value) ? [value, `./${value}`] : [value];
  for (const reading of readings) {
    const check = checkReading(reading, guarded, ctx);
    if (check.kind !== "clear") return check;
  }
  return CLEAR;
}

/** One reading of a value, against the working directory and, when relative, every other base. */
function checkReading(value: string, guarded: readonly ParsedPath[], ctx: PathContext): ProtectedCheck {
  const first = checkSteps(value, guarded, ctx);
  if (first.kind !== "clear" || !isRelative(value, ctx)) return first;
  for (const normalized of basesOf(ctx)) {
    const { base } = normalized;
    if (normalized.kind === "problem") {
      return { kind: "invalid", problem: `is relative, and its base ${normalized.problem}`, base };
    }
    const check = checkSteps(value, guarded, { ...ctx, cwd: normalized.dir });
    if (check.kind !== "clear") return { ...check, base };
  }
  return first;
}

/** Every step of one value's resolution (against `ctx.cwd`) apart from every protected form. */
function checkSteps(value: string, guarded: readonly ParsedPath[], ctx: PathContext): ProtectedCheck {
  const steps = resolveSteps(value, ctx);
  if (!Array.isArray(steps)) return { kind: "invalid", problem: steps.problem };
  for (const step of steps) {
    for (const path of guarded) {
      if (reaches(step, path, ctx.platform) || reaches(path, step, ctx.platform)) {
        const reached = serialise(path, ctx.platform);
        return { kind: "protected", step: serialise(step, ctx.platform), reached };
      }
    }
  }
  return CLEAR;
}

/**
 * A drive's administrative share (`\\localhost\C$\`, `\\127.1\c$\`, the machine's own name: any
 * host, since which names this machine cannot be told here, and another host only adds a deny) as
 * the drive it is (`C:\`); any other root as it is, upper-cased.
 */
function guardRoot(root: string): string {
  const share = /^\\\\[^\\]+\\([a-z])\$\\$/i.exec(root);
  return share === null ? root.toUpperCase() : `${share[1]!.toUpperCase()}:\\`;
}

/**
 * A name as a protected path is compared by: case folded on every platform (macOS and Windows
 * ignore case by default, and a stricter match only adds denies), in NFC (macOS stores NFD); on
 * Windows without an NTFS stream suffix (`.bouncer::$INDEX_ALLOCATION`) and without the trailing
 * dots and spaces Windows drops (`.bouncer.`).
 */
function guardName(name: string, platform: PathContext["platform"]): string {
  let folded = name.normalize("NFC").toLowerCase();
  if (platform === "win32") {
    const stream = folded.indexOf(":");
    if (stream > 0) folded = folded.slice(0, stream);
    folded = folded.replace(/[. ]+$/, "");
  }
  return folded;
}

/** A Windows 8.3 short name (`BOUNCE~1`, `POLICY~2.YAM`): its first characters, before the `~`. */
const SHORT_NAME = /^([^~.\s]{1,6})~\d+(?:\.[^.]{0,3})?$/;

/**
 * Whether two names may name one file (either way round): the same folded name, or, on Windows, an
 * 8.3 short name that may stand for the other (its characters before `~` start the long name without dots and
 * spaces: `BOUNCE~1` for `.bouncer`). A short name is matched by its shape alone, so another file
 * of that shape is protected too (a deny, never an allow).
 */
function sameName(stepName: string, guardedName: string, platform: PathContext["platform"]): boolean {
  const a = guardName(stepName, platform);
  const b = guardName(guardedName, platform);
  if (a === b) return true;
  if (platform !== "win32") return false;
  const shortA = SHORT_NAME.exec(a)?.[1];
  if (shortA !== undefined && b.replace(/[. ]/g, "").startsWith(shortA)) return true;
  const shortB = SHORT_NAME.exec(b)?.[1];
  return shortB !== undefined && a.replace(/[. ]/g, "").startsWith(shortB);
}

/**
 * Whether a path is a protected path or inside it, names compared as {@link sameName} does:
 * stricter than `within` (which the prefixes use, where an alias can only deny), since here an
 * alias that is not recognised would let a write reach Bouncer's files.
 */
function reaches(path: ParsedPath, protectedPath: ParsedPath, platform: PathContext["platform"]): boolean {
  if (guardRoot(path.root) !== guardRoot(protectedPath.root)) return false;
  if (protectedPath.parts.length > path.parts.length) return false;
  return protectedPath.parts.every((part, i) => sameName(path.parts[i]!, part, platform));
}
