/**
 * The environment a path value is resolved in (SPEC §2.4): the upstream's working directory, the
 * home, the platform, the file-system walk, and the other directories the upstream may resolve a
 * relative value against. Types only; `normalize-path.ts` and `paths.ts` use them. Pure.
 *
 * Source: SPEC §2.4 "Path confinement".
 * @module
 */

/**
 * Resolves a path the way the file system would (SPEC §2.4): given an absolute path — lexically
 * normalised, and on POSIX also (a second call) with its `..` components still in place, to be
 * applied after any link before them as the kernel does — returns every absolute path the walk
 * lands on (each symlink step resolved), the final one last. The pure default returns `[path]` (the
 * engine collapses it); the edge passes an lstat/readlink walk.
 */
export type PathResolver = (absolutePath: string) => readonly string[];

/**
 * A directory, besides its working directory, that an upstream may resolve a relative path against:
 * one on its command line, or a root the client gave it (a filesystem server resolves relative paths
 * against its allowed directories). SPEC §2.4 resolves relative values against the working directory;
 * Bouncer is stricter and requires a relative value to stay inside under every base.
 */
export interface RelativeBase {
  /**
   * The directory as it was given: absolute, relative (to the working directory), `~`, or a
   * `file:` URI. Untrusted when it comes from the client: render it before showing it.
   */
  readonly dir: string;
  /** Where it comes from: the upstream's command line, or a root the client gave it (`roots/list`). */
  readonly from: "command_line" | "client_root";
}

/** The environment a path is resolved in (SPEC §2.4). */
export interface PathContext {
  /** The upstream's working directory (absolute). */
  readonly cwd: string;
  /** The user's home directory, for `~` expansion. */
  readonly home: string;
  readonly platform: "posix" | "win32";
  readonly resolve?: PathResolver;
  /**
   * Other directories the upstream may resolve a relative path value against; a relative value must
   * be inside the prefixes resolved against each of them too (prefixes still resolve against `cwd`).
   */
  readonly relativeBases?: readonly RelativeBase[];
  /**
   * `relativeBases` normalised once, when the context was built or its bases changed
   * (`normalizeRelativeBases`); absent, or made from other bases, they are normalised per check.
   */
  readonly normalizedBases?: NormalizedBases;
  /**
   * Bouncer's own files and folders (its home with the pins and sessions, the policy files, the
   * audit log, the session file, the client configs: `own-paths.ts` makes the list), absolute: no
   * path argument of `write_params` may resolve inside one of them,
   * or to a folder that holds one, whatever the prefixes allow. Stricter than SPEC §2.4, which is
   * silent on them.
   */
  readonly protectedPaths?: readonly string[];
}

/**
 * One base of relative values as the confinement check uses it: its directory normalised against
 * the working directory, or why it cannot be (every relative value is then invalid).
 */
export type NormalizedBase =
  | { readonly kind: "dir"; readonly base: RelativeBase; readonly dir: string }
  | { readonly kind: "problem"; readonly base: RelativeBase; readonly problem: string };

/**
 * A path context's bases of relative values, normalised, with what they were normalised from: the
 * check uses them only while its context has this very `relativeBases` array and the same `cwd`,
 * `home` and `platform` (a context copied with other bases or another directory never checks
 * against stale ones).
 *
 * Source: SPEC §2.4 (relative values; stricter than its single base).
 */
export interface NormalizedBases {
  readonly from: {
    readonly relativeBases: readonly RelativeBase[] | undefined;
    readonly cwd: string;
    readonly home: string;
    readonly platform: "posix" | "win32";
  };
  /**
   * The bases in order, each directory once and none equal to the working directory (those add
   * nothing to the check); bases that cannot be normalised stay, in their place.
   */
  readonly bases: readonly NormalizedBase[];
}
