/**
 * Lexical path normalisation (SPEC §2.4 steps 1–4): a `file:` URI decoded, `~` expanded, a relative
 * value resolved against the working directory, `.` and `..` collapsed, Windows separators, drives
 * and UNC roots. No file system: the confinement check (`paths.ts`) walks what this produces. Pure.
 *
 * Source: SPEC §2.4 "Path confinement" (normalisation, in order).
 * @module
 */

import type { PathContext } from "./path-context.ts";

/** An absolute path split into its root (`/`, `C:\`, `\\server\share\`) and its components. */
export interface ParsedPath {
  readonly root: string;
  readonly parts: readonly string[];
}

/** A parsed path, or why the value has none. */
export type Parsed = ParsedPath | { readonly problem: string };

/**
 * @param value - A parse.
 * @returns Whether it is a problem rather than a path.
 */
export function isProblem(value: Parsed): value is { readonly problem: string } {
  return Object.hasOwn(value, "problem");
}

/**
 * How `..` is treated: `collapse` removes it with the component before (the lexical form, SPEC §2.4),
 * `keep` leaves it for the walk (a POSIX kernel applies `..` after the link before it: `out/link/..`
 * is the parent of the link's target, not `out`).
 */
export type Parents = "collapse" | "keep";

function collapse(segments: readonly string[], parents: Parents = "collapse"): string[] {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue;
    if (segment === ".." && parents === "collapse") out.pop();
    else out.push(segment);
  }
  return out;
}

/**
 * Whether a Windows path (separators already `\`) is a `\\?\` path with a `.` or `..` component.
 * Windows hands such a path on without collapsing them, while Node's `fs` collapses them against a
 * root of its own (`\\?\C:\..\UNC\host\share\x` opens `\\?\UNC\host\share\x`): no one lexical
 * reading is the one opened, so such a path is refused.
 */
function hasVerbatimDots(path: string): boolean {
  return (
    path.startsWith("\\\\?\\") &&
    path
      .slice(4)
      .split("\\")
      .some((part) => part === "." || part === "..")
  );
}

/** Parses an absolute path; `undefined` when it is not absolute for the platform, or a `\\?\` path with `.` or `..`. */
export function parseAbsolute(
  path: string,
  platform: PathContext["platform"],
  parents: Parents = "collapse",
): ParsedPath | undefined {
  if (platform === "posix") {
    return path.startsWith("/") ? { root: "/", parts: collapse(path.split("/"), parents) } : undefined;
  }
  let p = path.replaceAll("/", "\\");
  if (hasVerbatimDots(p)) return undefined;
  if (/^\\\\\?\\UNC\\/i.test(p)) p = `\\\\${p.slice(8)}`;
  else if (p.startsWith("\\\\?\\")) p = p.slice(4);
  const drive = /^([A-Za-z]):\\/.exec(p);
  if (drive !== null) {
    return { root: `${drive[1]!.toUpperCase()}:\\`, parts: collapse(p.slice(3).split("\\")) };
  }
  const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\|$)/.exec(p);
  if (unc !== null && unc[1] !== "." && unc[1] !== "?" && unc[2] !== "." && unc[2] !== "..") {
    return { root: `\\\\${unc[1]}\\${unc[2]}\\`, parts: collapse(p.slice(unc[0].length).split("\\")) };
  }
  return undefined;
}

/** The text of a parsed path, with the platform's separator. */
export function serialise(path: ParsedPath, platform: PathContext["platform"]): string {
  return path.root + path.parts.join(platform === "posix" ? "/" : "\\");
}

/**
 * Decodes a `file:` URI the way SPEC §2.4 reads `file://` (its host, then its percent-decoded path),
 * refusing every form on which readers disagree, since the upstream may use any of them: a WHATWG
 * URL parser (Node's `fileURLToPath(new URL(…))`) reads `file:etc/passwd` from the root, a path
 * reader from the working directory; the parser drops tabs, line breaks and outer spaces, and turns
 * `\` into `/`; and {@link parserDisagreement}.
 */
function decodeFileUri(value: string, platform: PathContext["platform"]): string | { problem: string } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 controls URL parsers drop or strip
  if (/[\\\t\n\r]|^[\x00-\x20]|[\x00-\x20]$/.test(value)) {
    return {
      problem:
        "is a file URI with a backslash, a tab, a line break or outer spaces, which URL parsers rewrite",
    };
  }
  const rest = value.slice("file:".length);
  if (!rest.startsWith("/")) {
    return {
      problem:
        'is a file URI that does not start with "file:/", which URL and path readers resolve differently',
    };
  }
  let host = "";
  let pathPart = rest;
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    host = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    pathPart = slash === -1 ? "/" : rest.slice(slash);
  }
  if (!/^[A-Za-z0-9._~-]*$/.test(host)) return { problem: "is a file URI whose host is not a plain name" };
  pathPart = pathPart.replace(/[?#].*$/s, "");
  const local = host === "" || host.toLowerCase() === "localhost";
  const disagreement = parserDisagreement(pathPart, { platform, share: !local });
  if (disagreement !== undefined) return { problem: disagreement };
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    return { problem: "is a file URI with an invalid percent-encoding" };
  }
  if (platform === "posix") {
    return local ? decoded : { problem: "is a file URI naming another host" };
  }
  if (!local) return `\\\\${host}${decoded}`;
  return /^\/[A-Za-z]:/.test(decoded) ? decoded.slice(1) : decoded;
}

/**
 * Why a WHATWG URL parser reads a `file:` URI's path (as written: `/`-separated, percent-encoded)
 * otherwise than a decode-then-collapse reader, or `undefined`: it keeps an empty segment as one
 * that `..` removes (`/a//../x` is `/a/x` to it, `/x` to a path reader); it reads `C|` as `C:`,
 * takes a drive segment after a `.` as the drive (`/./C:/x` is `C:\x`), and never removes a drive
 * with `..` (on POSIX `/C:/../x` is `/C:/x`), but removes a share (`//srv/share/../x` is
 * `\\srv\x`); and `..` removes `a%2Fb` whole. Drives are refused where a path reader does not read
 * them as one: after the first segment, and on POSIX.
 */
function parserDisagreement(
  path: string,
  options: { readonly platform: PathContext["platform"]; readonly share: boolean },
): string | undefined {
  const { platform } = options;
  if (/%2f|%5c/i.test(path)) {
    return "is a file URI with an encoded / or \\ (%2F, %5C), which URL parsers keep inside one segment";
  }
  const segments = path.split("/").slice(1);
  const isDotDot = (segment: string): boolean => /^(?:\.|%2e){2}$/i.test(segment);
  const lastDotDot = segments.findLastIndex(isDotDot);
  if (segments.slice(0, Math.max(lastDotDot, 0)).includes("")) {
    return "is a file URI with an empty segment before a .., which URL parsers count as a folder";
  }
  let depth = 0;
  for (const segment of segments) {
    if (isDotDot(segment)) depth -= 1;
    else if (!/^(?:\.|%2e)$/i.test(segment)) depth += 1;
    if (options.share && depth < 1) return "is a file URI whose .. leaves the share its host names";
    depth = Math.max(depth, 0);
  }
  const drive =
    platform === "posix"
      ? (segment: string): boolean => /^[A-Za-z][:|]$/.test(segment)
      : (segment: string, i: number): boolean =>
          /^[A-Za-z](?:\||%7c)/i.test(segment) || (i > 0 && /^[A-Za-z](?::|%3a)/i.test(segment));
  if (segments.some(drive)) {
    return "is a file URI with a drive that URL parsers read apart (written C|, after the first segment, or on POSIX)";
  }
  return undefined;
}

/**
 * Whether a value is read as a `file:` URI (step 1 of SPEC §2.4): it starts with `file:` in any
 * case, once the tabs and line breaks and the outer C0 controls and spaces URL parsers drop are gone.
 * @param value - A path value.
 * @returns True when {@link toAbsolute} decodes it (or refuses it) as a URI.
 */
export function isFileUri(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: URL parsers drop tabs and line breaks, and outer C0 controls and spaces
  return /^file:/i.test(value.replace(/[\t\n\r]/g, "").replace(/^[\x00-\x20]+/, ""));
}

/** Steps 1–2 of SPEC §2.4: a `file:` URI decoded, `~` expanded (`~user` refused), NUL refused. */
function expand(value: string, ctx: PathContext): string | { problem: string } {
  const { platform } = ctx;
  if (value.includes("\0")) return { problem: "contains a NUL character" };
  let v = value;
  if (isFileUri(v)) {
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
export function isRelative(value: string, ctx: PathContext): boolean {
  const v = expand(value, ctx);
  return typeof v === "string" && parseAbsolute(v, ctx.platform) === undefined;
}

/** The names Windows reserves for devices, in any case: `NUL`, `COM1`, `LPT²`, `CONIN$`, … */
const DEVICE_NAME = /^(?:CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|CLOCK\$|(?:COM|LPT)[0-9\u00B9\u00B2\u00B3])$/i;

/**
 * The first component of a Windows path that names a device, or `undefined`: Windows opens the
 * device for a reserved name, with any extension or stream after it and trailing spaces before
 * that (`NUL`, `nul.txt`, `COM1 .log`, `CON:`), in any folder.
 *
 * @param path - A parsed Windows path.
 * @returns The component, as written.
 */
export function deviceComponent(path: ParsedPath): string | undefined {
  return path.parts.find((part) => DEVICE_NAME.test(part.split(/[.:]/, 1)[0]!.replace(/ +$/, "")));
}

/**
 * Lexically resolves one path value to an absolute path (steps 1–4 of SPEC §2.4); with `keep`, the
 * `..` components stay (POSIX only: Windows applies `..` lexically before the file system). On
 * Windows, a path naming a device (`C:\data\NUL`, `nul.txt`) is a problem: it is no file inside.
 */
export function toAbsolute(value: string, ctx: PathContext, parents: Parents = "collapse"): Parsed {
  const parsed = lexicalAbsolute(value, ctx, parents);
  if (ctx.platform !== "win32" || isProblem(parsed)) return parsed;
  const device = deviceComponent(parsed);
  return device === undefined ? parsed : { problem: `names the Windows device ${JSON.stringify(device)}` };
}

function lexicalAbsolute(value: string, ctx: PathContext, parents: Parents): Parsed {
  const { platform } = ctx;
  const v = expand(value, ctx);
  if (typeof v !== "string") return v;
  if (platform === "win32" && hasVerbatimDots(v.replaceAll("/", "\\"))) {
    return { problem: "is a \\\\?\\ path with a . or .. component, which Windows does not collapse" };
  }
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
