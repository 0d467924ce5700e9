/**
 * The file-system walk behind path confinement (SPEC §2.4): an absolute path is walked component by
 * component with `lstat`; each symbolic link met is resolved with `readlink` and the walk goes on from
 * its target, so every place the path leads to is seen — including the target of a dangling link,
 * taken as written — and, for a component missing as written, each entry of its folder that is the
 * same name under Unicode normalisation. The engine receives this as its injected `PathResolver` and
 * checks every step against the allowed prefixes. Edge (file system).
 *
 * Source: SPEC §2.4 ("walked component by component with `lstat`, each symlink resolved with
 * `readlink` (a dangling link resolved to its target as written)"), §8 (a race between check and use).
 * @module
 */

import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";

/** A `node:path` flavour (`path.posix` or `path.win32`). */
type PathApi = typeof path.posix;

/** Symbolic links followed in one walk before it gives up, as the kernel does (`ELOOP`). */
export const MAX_LINKS = 40;

/** Options of {@link walkPath}. */
export interface PathWalkOptions {
  /** `node:path` flavour (default: the running platform's). */
  readonly pathApi?: PathApi;
  /** `lstat` stand-in returning whether the path is a link, or undefined when it does not exist. */
  readonly inspect?: (candidate: string) => "link" | "other" | undefined;
  /** `readlink` stand-in. */
  readonly readLink?: (candidate: string) => string;
  /** `readdir` stand-in: the entry names of a folder, none when it does not exist. */
  readonly listDir?: (directory: string) => readonly string[];
}

/**
 * Whether an error is a file-system error with one of the given codes.
 * @param error - Anything caught.
 * @param codes - Error codes such as `ENOENT`.
 * @returns True when `error.code` is one of them.
 */
function hasCode(error: unknown, codes: readonly string[]): boolean {
  if (!(error instanceof Error)) return false;
  const code: unknown = Reflect.get(error, "code");
  return typeof code === "string" && codes.includes(code);
}

/**
 * `lstat` reduced to what the walk needs.
 * @param candidate - An absolute path.
 * @returns `link`, `other`, or undefined when nothing is there (or a component is not a directory).
 * @throws {Error} Other file-system errors (e.g. `EACCES`): the engine then denies the call.
 */
function inspectPath(candidate: string): "link" | "other" | undefined {
  try {
    return lstatSync(candidate).isSymbolicLink() ? "link" : "other";
  } catch (error) {
    if (hasCode(error, ["ENOENT", "ENOTDIR"])) return undefined;
    throw error;
  }
}

/** Walks through names equal to a missing one under Unicode normalisation, per walk, before it gives up. */
export const MAX_EQUIVALENT_WALKS = 64;

/** What one walk shares across its branches. */
interface Walk {
  readonly p: PathApi;
  readonly inspect: (candidate: string) => "link" | "other" | undefined;
  readonly readLink: (candidate: string) => string;
  readonly listDir: (directory: string) => readonly string[];
  readonly absolutePath: string;
  links: number;
  equivalents: number;
}

/**
 * Walks an absolute path the way the file system would resolve it and returns every absolute path the
 * walk lands on: after each symbolic link, the link's target joined with the components still to
 * walk (when neither holds a `..`: joined lexically, it would not be where the path leads); the fully
 * walked path last. A path without links gives `[path]`. Components past a missing
 * one are taken lexically (a file about to be created, or the target of a dangling link) — but first,
 * a missing component's folder is searched for entries of the same name under Unicode normalisation
 * (NFC equal: `linke\u0301` and `linké`), which a server may open in its place, and the walk goes on
 * through each of them too (their steps come before the lexical rest).
 *
 * Source: SPEC §2.4.
 * @param absolutePath - An absolute, lexically normalised path.
 * @param options - Test doubles for the platform and the file system.
 * @returns The steps, the final resolved path last.
 * @throws {Error} After {@link MAX_LINKS} links (a loop), after {@link MAX_EQUIVALENT_WALKS} walks
 *   through equivalent names, or on a file-system error other than "not found": the engine turns a
 *   throwing resolver into a deny.
 * @example walkPath("/data/out/link/x.txt") // ["/etc/x.txt"] when /data/out/link -> /etc
 */
export function walkPath(absolutePath: string, options: PathWalkOptions = {}): readonly string[] {
  const p = options.pathApi ?? path;
  if (!p.isAbsolute(absolutePath)) throw new Error(`Cannot walk path "${absolutePath}": it is not absolute`);
  const walk: Walk = {
    p,
    inspect: options.inspect ?? inspectPath,
    readLink: options.readLink ?? ((candidate: string): string => readlinkSync(candidate)),
    listDir: options.listDir ?? listDirectory,
    absolutePath,
    links: 0,
    equivalents: 0,
  };
  const root = p.parse(absolutePath).root;
  return walkFrom(root, splitComponents(absolutePath.slice(root.length), p), walk);
}

/**
 * One branch of {@link walkPath}: from an existing folder, the components still to walk.
 * @param start - Where the branch starts (an existing folder, resolved).
 * @param components - The components still to walk.
 * @param walk - The walk's shared state and file system.
 * @returns The branch's steps, its final path last.
 * @throws {Error} As {@link walkPath}.
 */
function walkFrom(start: string, components: readonly string[], walk: Walk): string[] {
  const { p } = walk;
  const steps: string[] = [];
  let current = start;
  let rest = components;
  let missing = false;
  while (rest.length > 0) {
    const [head, ...tail] = rest;
    rest = tail;
    if (head === undefined || head === ".") continue;
    if (head === "..") {
      current = p.dirname(current);
      continue;
    }
    const candidate = p.join(current, head);
    const kind: "link" | "other" | undefined = missing ? undefined : walk.inspect(candidate);
    if (kind === undefined && !missing) {
      for (const twin of equivalentNames(current, head, walk)) {
        walk.equivalents++;
        if (walk.equivalents > MAX_EQUIVALENT_WALKS)
          throw new Error(`Cannot walk path "${walk.absolutePath}": too many Unicode-equivalent names`);
        steps.push(...walkFrom(current, [twin, ...rest], walk));
      }
    }
    if (kind !== "link") {
      missing ||= kind === undefined;
      current = candidate;
      continue;
    }
    walk.links++;
    if (walk.links > MAX_LINKS)
      throw new Error(`Cannot walk path "${walk.absolutePath}": too many symbolic links`);
    const target = walk.readLink(candidate);
    current = p.isAbsolute(target) ? p.parse(target).root : current;
    const targetParts = splitComponents(p.isAbsolute(target) ? target.slice(current.length) : target, p);
    // The link's target joined with the rest is a spelling of where the path leads only when no
    // `..` is in it: joined lexically, a `..` after a further link would name a folder the walk never
    // reaches — and a prefix's steps are allowed places, so such a step would widen the prefix.
    if (!targetParts.includes("..") && !rest.includes(".."))
      steps.push(p.join(current, ...targetParts, ...rest));
    rest = [...targetParts, ...rest];
  }
  steps.push(current);
  return steps;
}

/**
 * The entries of a folder that are another spelling of a name under Unicode normalisation (NFC
 * equal, not equal as written): what a server that matches names by normalisation opens in place of a
 * name that does not exist as written.
 * @param directory - The folder (resolved).
 * @param name - The missing component.
 * @param walk - The walk (its `listDir`).
 * @returns The other spellings present (none when the folder does not exist).
 * @throws {Error} A file-system error other than "not found" listing the folder (e.g. `EACCES`).
 */
function equivalentNames(directory: string, name: string, walk: Walk): string[] {
  const key = name.normalize("NFC");
  return walk.listDir(directory).filter((entry) => entry !== name && entry.normalize("NFC") === key);
}

/**
 * `readdir` reduced to what the walk needs.
 * @param directory - An absolute path.
 * @returns The entry names; none when the folder does not exist (or is not a folder).
 * @throws {Error} Other file-system errors (e.g. `EACCES`): the engine then denies the call.
 */
function listDirectory(directory: string): readonly string[] {
  try {
    return readdirSync(directory);
  } catch (error) {
    if (hasCode(error, ["ENOENT", "ENOTDIR"])) return [];
    throw error;
  }
}

/**
 * Splits the part of a path after its root into components.
 * @param rest - The path without its root.
 * @param p - The path flavour.
 * @returns Its non-empty components.
 */
function splitComponents(rest: string, p: PathApi): string[] {
  const separators = p.sep === "\\" ? /[\\/]+/ : /\/+/;
  return rest.split(separators).filter((part) => part !== "");
}

/**
 * The resolver handed to the gate (`GateOptions.resolvePath`): {@link walkPath} on the real file
 * system.
 *
 * Source: SPEC §2.4.
 * @param absolutePath - An absolute, lexically normalised path.
 * @returns Every step of the walk, the final one last.
 * @throws {Error} As {@link walkPath}.
 */
export function resolvePathSteps(absolutePath: string): readonly string[] {
  return walkPath(absolutePath);
}
