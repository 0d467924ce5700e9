/**
 * Path confinement for `write_params` (SPEC §2.4): every step of a value's resolution inside some
 * allowed prefix, under the working directory and every other base of relative values. The lexical
 * normalisation is `normalize-path.ts`'s. Pure: the file-system walk arrives as an injected
 * {@link PathResolver}; the default is lexical.
 * @module
 */

import { errorText } from "./error-text.ts";
import {
  deviceComponent,
  isFileUri,
  isProblem,
  isRelative,
  normalizePath,
  type ParsedPath,
  parseAbsolute,
  serialise,
  toAbsolute,
} from "./normalize-path.ts";
import type { NormalizedBase, PathContext, PathResolver, RelativeBase } from "./path-context.ts";

/**
 * The outcome of {@link checkPathConfinement}. `base` is set when the value is relative and the
 * check failed resolved against that base (not the working directory); `asPath` when the value is a
 * `file:` URI and the check failed on its reading as a relative path.
 */
export type PathCheck =
  | { readonly kind: "inside"; readonly steps: readonly string[] }
  | {
      readonly kind: "outside";
      readonly step: string;
      readonly steps: readonly string[];
      readonly base?: RelativeBase;
      /** Set when the step is the `file:` value's reading as a relative path, not as a URI. */
      readonly asPath?: true;
    }
  | {
      readonly kind: "invalid";
      readonly problem: string;
      readonly base?: RelativeBase;
      readonly asPath?: true;
    };

const lexicalResolver: PathResolver = (absolutePath) => [absolutePath];

/**
 * Every form of a path: its lexical form first, then each step the resolver lands on walking the
 * lexical form (SPEC §2.4: what a server that normalises the path opens) — and on POSIX, when the
 * value has a `..`, each step of a second walk with its `..` components still in place, as the
 * kernel reads a path opened as given: a link followed by `..` (`out/link/../x`) leads to the
 * parent of the link's target, which the lexical form (`out/x`) never shows. Both walks must stay
 * inside: a server may open either.
 * @param value - A path value or prefix, as written.
 * @param ctx - The path context (its `cwd` is the base of a relative value).
 * @returns Every step, the lexical form first; or why the value cannot be resolved.
 */
export function resolveSteps(value: string, ctx: PathContext): ParsedPath[] | { problem: string } {
  const lexical = toAbsolute(value, ctx);
  if (isProblem(lexical)) return lexical;
  const resolver = ctx.resolve ?? lexicalResolver;
  const forms = [serialise(lexical, ctx.platform)];
  if (ctx.platform === "posix") {
    const kept = toAbsolute(value, ctx, "keep");
    if (isProblem(kept)) return kept;
    const asGiven = serialise(kept, ctx.platform);
    if (asGiven !== forms[0]) forms.push(asGiven);
  }
  const steps: ParsedPath[] = [lexical];
  for (const form of forms) {
    let walked: readonly string[];
    try {
      walked = resolver(form);
    } catch (error) {
      const detail = errorText(error);
      return { problem: `could not be resolved: ${JSON.stringify(detail.slice(0, 200))}` };
    }
    for (const step of walked) {
      const parsed = typeof step === "string" ? parseAbsolute(step, ctx.platform) : undefined;
      if (parsed === undefined) return { problem: "resolved to a path that is not absolute" };
      const device = ctx.platform === "win32" ? deviceComponent(parsed) : undefined;
      if (device !== undefined)
        return { problem: `resolved to the Windows device ${JSON.stringify(device)}` };
      steps.push(parsed);
    }
  }
  return steps;
}

/**
 * The letters whose case NTFS folds alike on every volume (the upcase table each Windows version
 * since XP writes when it formats one): ASCII, Latin-1, Latin Extended-A, basic Greek, basic Cyrillic (less
 * U+0400/U+0450 and U+040D/U+045D, folded only since Vista), Armenian, Latin Extended Additional
 * (Vietnamese) and fullwidth Latin. Other letters are compared as written: a fold the volume's table
 * lacks would take a sibling folder for the prefix (fail open); one it has and this lacks only denies.
 */
const FOLDED_LETTERS: readonly (readonly [number, number])[] = [
  [0x41, 0x5a],
  [0x61, 0x7a],
  [0xc0, 0xff],
  [0x100, 0x17f],
  [0x386, 0x3ce],
  [0x401, 0x40c],
  [0x40e, 0x44f],
  [0x451, 0x45c],
  [0x45e, 0x45f],
  [0x531, 0x586],
  [0x1e00, 0x1ef9],
  [0xff21, 0xff5a],
];

function isFoldedLetter(unit: string): boolean {
  const code = unit.charCodeAt(0);
  return FOLDED_LETTERS.some(([first, last]) => code >= first && code <= last);
}

/**
 * One UTF-16 unit as Windows compares names: its upper case when that is one unit whose lower case is
 * this unit again, both among {@link FOLDED_LETTERS}. Never lower case: the Kelvin sign, the Ohm sign,
 * the Angstrom sign, `ẞ` and `İ` have lower cases (`k`, `ω`, `å`, `ß`, `i`) that NTFS keeps apart
 * from them; `ſ` and `ı` upper-case to `S` and `I` in JavaScript, not in NTFS.
 */
function upcaseUnit(unit: string): string {
  const upper = unit.toUpperCase();
  if (upper.length !== 1 || upper === unit || upper.toLowerCase() !== unit) return unit;
  return isFoldedLetter(unit) && isFoldedLetter(upper) ? upper : unit;
}

/** A path component as Windows compares names (case-insensitive, per UTF-16 unit: SPEC §2.4). */
function foldWindowsName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, control characters included
  if (/^[\x00-\x7f]*$/.test(name)) return name.toUpperCase();
  let folded = "";
  for (let i = 0; i < name.length; i++) folded += upcaseUnit(name.charAt(i));
  return folded;
}

/**
 * Whether a path is a prefix's folder or inside it, component by component (Windows folds case as
 * NTFS does).
 * @param path - A resolved path.
 * @param prefix - A resolved prefix.
 * @param platform - The platform whose comparison applies.
 * @returns True when every component of the prefix starts the path.
 */
function within(path: ParsedPath, prefix: ParsedPath, platform: PathContext["platform"]): boolean {
  const fold = platform === "win32" ? foldWindowsName : (s: string): string => s;
  if (fold(path.root) !== fold(prefix.root) || prefix.parts.length > path.parts.length) return false;
  return prefix.parts.every((part, i) => fold(part) === fold(path.parts[i]!));
}

/**
 * Checks that a path stays inside the allowed prefixes at every step of its resolution: the lexical
 * form and each path the injected resolver lands on must be inside some prefix (any resolved form of
 * it). Containment is per path component; Windows compares case-insensitively, per UTF-16 unit as
 * NTFS does (letters outside the scripts every Windows version folds are compared as written). A relative value is
 * checked resolved against the working directory and against each of `ctx.relativeBases` (stricter
 * than SPEC §2.4's single base: an upstream may resolve it against any of its directories); the
 * prefixes resolve against the working directory only. A `file:` value is checked both decoded as
 * a URI (SPEC §2.4) and as the relative path its text is (stricter than SPEC §2.4: a server that
 * takes paths, such as the reference filesystem server, never decodes it).
 *
 * Source: SPEC §2.4 "Path confinement".
 * @param value - The path argument's value.
 * @param prefixes - `allowed_path_prefixes`, resolved the same way (prefixes that cannot be resolved count for nothing).
 * @param ctx - The path context, including the resolver (default: lexical) and the other bases.
 * @returns `inside`; `outside` with the first step that left every prefix; or `invalid` with the
 *   problem — each with the base it was resolved against when that was not the working directory,
 *   and `asPath` when it was a `file:` value's reading as a relative path.
 * @throws Never for bad input; a throwing resolver yields `invalid`.
 * @example checkPathConfinement("./outside/x", ["./out"], { cwd: "/w", home: "/h", platform: "posix" }).kind // "outside"
 */
export function checkPathConfinement(
  value: string,
  prefixes: readonly string[],
  ctx: PathContext,
): PathCheck {
  const allowed: ParsedPath[] = [];
  for (const prefix of prefixes) {
    const forms = resolveSteps(prefix, ctx);
    if (Array.isArray(forms)) allowed.push(...forms);
  }
  const check = checkReading(value, allowed, ctx);
  if (check.kind !== "inside" || !isFileUri(value)) return check;
  // An upstream that takes its argument as a path, as the reference filesystem server does, reads
  // `file:///data/x` as the relative `file:/data/x` below its directory: that reading must stay
  // inside too.
  const asPath = checkReading(`./${value}`, allowed, ctx);
  return asPath.kind === "inside" ? check : { ...asPath, asPath: true };
}

/** One reading of a value checked against the resolved prefixes: under the working directory, then every other base. */
function checkReading(value: string, allowed: readonly ParsedPath[], ctx: PathContext): PathCheck {
  const first = checkSteps(value, allowed, ctx);
  const bases = ctx.relativeBases ?? [];
  if (first.kind !== "inside" || bases.length === 0 || !isRelative(value, ctx)) return first;
  for (const normalized of basesOf(ctx)) {
    const { base } = normalized;
    if (normalized.kind === "problem") {
      return { kind: "invalid", problem: `is relative, and its base ${normalized.problem}`, base };
    }
    const check = checkSteps(value, allowed, { ...ctx, cwd: normalized.dir });
    if (check.kind !== "inside") return { ...check, base };
  }
  return first;
}

/**
 * Normalises a path context's bases of relative values once, for every later check: call it when
 * the context is built and whenever its `relativeBases` change (the client's roots). The verdicts
 * are those of the context as given; only the per-check cost changes.
 *
 * Source: SPEC §2.4 (relative values; stricter than its single base); STYLE #4 (compile once,
 * decide many).
 * @param ctx - The path context.
 * @returns The same context with `normalizedBases` made from its bases, `cwd`, `home` and
 *   `platform`.
 * @throws Never: a base that cannot be normalised is kept with its problem.
 * @example normalizeRelativeBases({ cwd: "/w", home: "/h", platform: "posix", relativeBases: [{ dir: "file:///data/", from: "client_root" }] }).normalizedBases?.bases // [{ kind: "dir", base: …, dir: "/data" }]
 */
export function normalizeRelativeBases(ctx: PathContext): PathContext {
  const { relativeBases, cwd, home, platform } = ctx;
  const from = { relativeBases, cwd, home, platform };
  return { ...ctx, normalizedBases: { from, bases: normalizeBases(ctx) } };
}

/**
 * The context's bases of relative values normalised: as made once while they are its own, else now.
 * @param ctx - The path context.
 * @returns Its bases, in order, each directory once.
 */
export function basesOf(ctx: PathContext): readonly NormalizedBase[] {
  const made = ctx.normalizedBases;
  if (made === undefined) return normalizeBases(ctx);
  const { from } = made;
  const current =
    from.relativeBases === ctx.relativeBases &&
    from.cwd === ctx.cwd &&
    from.home === ctx.home &&
    from.platform === ctx.platform;
  return current ? made.bases : normalizeBases(ctx);
}

/** Each base of a context resolved against its working directory, in order, each directory once. */
function normalizeBases(ctx: PathContext): NormalizedBase[] {
  const normalized: NormalizedBase[] = [];
  const seen = new Set([normalizePath(ctx.cwd, ctx)]);
  for (const base of ctx.relativeBases ?? []) {
    const dir = toAbsolute(base.dir, ctx);
    if (isProblem(dir)) {
      normalized.push({ kind: "problem", base, problem: dir.problem });
      continue;
    }
    const absolute = serialise(dir, ctx.platform);
    if (seen.has(absolute)) continue;
    seen.add(absolute);
    normalized.push({ kind: "dir", base, dir: absolute });
  }
  return normalized;
}

/** Every step of one value's resolution (against `ctx.cwd`) inside some allowed form. */
function checkSteps(value: string, allowed: readonly ParsedPath[], ctx: PathContext): PathCheck {
  const steps = resolveSteps(value, ctx);
  if (!Array.isArray(steps)) return { kind: "invalid", problem: steps.problem };
  const rendered = steps.map((step) => serialise(step, ctx.platform));
  for (const [i, step] of steps.entries()) {
    if (!allowed.some((prefix) => within(step, prefix, ctx.platform))) {
      return { kind: "outside", step: rendered[i]!, steps: rendered };
    }
  }
  return { kind: "inside", steps: rendered };
}
