/**
 * Path normalisation and confinement for `write_params` (SPEC §2.4). Pure: the file-system walk
 * arrives as an injected {@link PathResolver}; the default is lexical.
 * @module
 */

import type { PathContext, PathResolver, RelativeBase } from "./types.ts";

/**
 * The outcome of {@link checkPathConfinement}. `base` is set when the value is relative and the
 * check failed resolved against that base (not the working directory).
 */
export type PathCheck =
  | { readonly kind: "inside"; readonly steps: readonly string[] }
  | {
      readonly kind: "outside";
      readonly step: string;
      readonly steps: readonly string[];
      readonly base?: RelativeBase;
    }
  | { readonly kind: "invalid"; readonly problem: string; readonly base?: RelativeBase };

/** An absolute path split into its root (`/`, `C:\`, `\\server\share\`) and its components. */
interface ParsedPath {
  readonly root: string;
  readonly parts: readonly string[];
}

type Parsed = ParsedPath | { readonly problem: string };

const lexicalResolver: PathResolver = (absolutePath) => [absolutePath];

function isProblem(value: Parsed): value is { readonly problem: string } {
  return Object.hasOwn(value, "problem");
}

/**
 * How `..` is treated: `collapse` removes it with the component before (the lexical form, SPEC §2.4),
 * `keep` leaves it for the walk (a POSIX kernel applies `..` after the link before it: `out/link/..`
 * is the parent of the link's target, not `out`).
 */
type Parents = "collapse" | "keep";

function collapse(segments: readonly string[], parents: Parents = "collapse"): string[] {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue;
    if (segment === ".." && parents === "collapse") out.pop();
    else out.push(segment);
  }
  return out;
}

/** Parses an absolute path; `undefined` when it is not absolute for the platform. */
function parseAbsolute(
  path: string,
  platform: PathContext["platform"],
  parents: Parents = "collapse",
): ParsedPath | undefined {
  if (platform === "posix") {
    return path.startsWith("/") ? { root: "/", parts: collapse(path.split("/"), parents) } : undefined;
  }
  let p = path.replaceAll("/", "\\");
  if (/^\\\\\?\\UNC\\/i.test(p)) p = `\\\\${p.slice(8)}`;
  else if (p.startsWith("\\\\?\\")) p = p.slice(4);
  const drive = /^([A-Za-z]):\\/.exec(p);
  if (drive !== null) {
    return { root: `${drive[1]!.toUpperCase()}:\\`, parts: collapse(p.slice(3).split("\\")) };
  }
  const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\|$)/.exec(p);
  if (unc !== null && unc[1] !== "." && unc[1] !== "?") {
    return { root: `\\\\${unc[1]}\\${unc[2]}\\`, parts: collapse(p.slice(unc[0].length).split("\\")) };
  }
  return undefined;
}

function serialise(path: ParsedPath, platform: PathContext["platform"]): string {
  return path.root + path.parts.join(platform === "posix" ? "/" : "\\");
}

function decodeFileUri(value: string, platform: PathContext["platform"]): string | { problem: string } {
  const rest = value.slice("file:".length);
  let host = "";
  let pathPart = rest;
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    host = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    pathPart = slash === -1 ? "/" : rest.slice(slash);
  }
  pathPart = pathPart.replace(/[?#].*$/s, "");
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    return { problem: "is a file URI with an invalid percent-encoding" };
  }
  const local = host === "" || host.toLowerCase() === "localhost";
  if (platform === "posix") {
    return local ? decoded : { problem: "is a file URI naming another host" };
  }
  if (!local) return `\\\\${host}${decoded}`;
  return /^\/[A-Za-z]:/.test(decoded) ? decoded.slice(1) : decoded;
}

/** Steps 1–2 of SPEC §2.4: a `file:` URI decoded, `~` expanded (`~user` refused), NUL refused. */
function expand(value: string, ctx: PathContext): string | { problem: string } {
  const { platform } = ctx;
  if (value.includes("\0")) return { problem: "contains a NUL character" };
  let v = value;
  if (/^file:/i.test(v)) {
    const decoded = decodeFileUri(v, platform);
    if (typeof decoded !== "string") return decoded;
    v = decoded;
    if (v.includes("\0")) return { problem: "contains a NUL character" };
  }
  const sep = platform === "posix" ? /^~(?:\/|$)/ : /^~(?:[\\/]|$)/;
  if (sep.test(v)) {
    const home = parseAbsolute(ctx.home, platform);
    if (home === undefined) return { problem: "starts with ~ but the home directory is not absolute" };
    return serialise(home, platform) + (platform === "posix" ? "/" : "\\") + v.slice(1);
  }
  if (v.startsWith("~")) return { problem: "uses the ~user form, which is not supported" };
  return v;
}

/** Whether a value, decoded and expanded, is relative: the upstream resolves it against some base. */
function isRelative(value: string, ctx: PathContext): boolean {
  const v = expand(value, ctx);
  return typeof v === "string" && parseAbsolute(v, ctx.platform) === undefined;
}

/**
 * Lexically resolves one path value to an absolute path (steps 1–4 of SPEC §2.4); with `keep`, the
 * `..` components stay (POSIX only: Windows applies `..` lexically before the file system).
 */
function toAbsolute(value: string, ctx: PathContext, parents: Parents = "collapse"): Parsed {
  const { platform } = ctx;
  const v = expand(value, ctx);
  if (typeof v !== "string") return v;
  const absolute = parseAbsolute(v, platform, parents);
  if (absolute !== undefined) return absolute;
  const cwd = parseAbsolute(ctx.cwd, platform);
  if (cwd === undefined) return { problem: "is relative but the working directory is not absolute" };
  if (platform === "win32") {
    const w = v.replaceAll("/", "\\");
    if (w.startsWith("\\\\")) return { problem: "is not a supported Windows path form" };
    if (w.startsWith("\\")) return { root: cwd.root, parts: collapse(w.split("\\")) };
    const driveRelative = /^([A-Za-z]):/.exec(w);
    if (driveRelative !== null) {
      if (`${driveRelative[1]!.toUpperCase()}:\\` !== cwd.root) {
        return { problem: "is relative to another drive's working directory" };
      }
      return { root: cwd.root, parts: collapse([...cwd.parts, ...w.slice(2).split("\\")]) };
    }
    return { root: cwd.root, parts: collapse([...cwd.parts, ...w.split("\\")]) };
  }
  return { root: cwd.root, parts: collapse([...cwd.parts, ...v.split("/")], parents) };
}

/**
 * Every form of a path: its lexical form first, then each step the resolver lands on walking the
 * lexical form (SPEC §2.4: what a server that normalises the path opens) — and on POSIX, when the
 * value has a `..`, each step of a second walk with its `..` components still in place, as the
 * kernel reads a path opened as given: a link followed by `..` (`out/link/../x`) leads to the
 * parent of the link's target, which the lexical form (`out/x`) never shows. Both walks must stay
 * inside: a server may open either.
 */
function resolveSteps(value: string, ctx: PathContext): ParsedPath[] | { problem: string } {
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
      const detail = error instanceof Error ? error.message : String(error);
      return { problem: `could not be resolved: ${JSON.stringify(detail.slice(0, 200))}` };
    }
    for (const step of walked) {
      const parsed = typeof step === "string" ? parseAbsolute(step, ctx.platform) : undefined;
      if (parsed === undefined) return { problem: "resolved to a path that is not absolute" };
      steps.push(parsed);
    }
  }
  return steps;
}

function within(path: ParsedPath, prefix: ParsedPath, platform: PathContext["platform"]): boolean {
  const fold = platform === "win32" ? (s: string): string => s.toLowerCase() : (s: string): string => s;
  if (fold(path.root) !== fold(prefix.root) || prefix.parts.length > path.parts.length) return false;
  return prefix.parts.every((part, i) => fold(part) === fold(path.parts[i]!));
}

/**
 * Normalises a path value lexically: `file://` decoded, `~` expanded, resolved against the working
 * directory, `.` and `..` collapsed (Windows: separators, drive letters).
 *
 * Source: SPEC §2.4 "Path confinement" (normalisation, in order).
 * @param value - The path as the call or the policy wrote it.
 * @param ctx - Working directory, home directory and platform.
 * @returns The absolute path, or `undefined` when the value cannot be normalised safely.
 * @throws Never.
 */
export function normalizePath(value: string, ctx: PathContext): string | undefined {
  const parsed = toAbsolute(value, ctx);
  return isProblem(parsed) ? undefined : serialise(parsed, ctx.platform);
}

/**
 * Checks that a path stays inside the allowed prefixes at every step of its resolution: the lexical
 * form and each path the injected resolver lands on must be inside some prefix (any resolved form of
 * it). Containment is per path component; Windows compares case-insensitively. A relative value is
 * checked resolved against the working directory and against each of `ctx.relativeBases` (stricter
 * than SPEC §2.4's single base: an upstream may resolve it against any of its directories); the
 * prefixes resolve against the working directory only.
 *
 * Source: SPEC §2.4 "Path confinement".
 * @param value - The path argument's value.
 * @param prefixes - `allowed_path_prefixes`, resolved the same way (prefixes that cannot be resolved count for nothing).
 * @param ctx - The path context, including the resolver (default: lexical) and the other bases.
 * @returns `inside`; `outside` with the first step that left every prefix; or `invalid` with the
 *   problem — each with the base it was resolved against when that was not the working directory.
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
  const first = checkSteps(value, allowed, ctx);
  const bases = ctx.relativeBases ?? [];
  if (first.kind !== "inside" || bases.length === 0 || !isRelative(value, ctx)) return first;
  const seen = new Set([normalizePath(ctx.cwd, ctx)]);
  for (const base of bases) {
    const dir = toAbsolute(base.dir, ctx);
    if (isProblem(dir)) return { kind: "invalid", problem: `is relative, and its base ${dir.problem}`, base };
    const cwd = serialise(dir, ctx.platform);
    if (seen.has(cwd)) continue;
    seen.add(cwd);
    const check = checkSteps(value, allowed, { ...ctx, cwd });
    if (check.kind !== "inside") return { ...check, base };
  }
  return first;
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
