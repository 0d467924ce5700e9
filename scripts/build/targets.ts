/**
 * The release targets of `bun run build`: one row per executable, with the Bun compile target, the file
 * name under `dist/` and the executable format and machine its header must show. Edge (build tooling).
 *
 * Source: SPEC §6 (linux x64/arm64 glibc and musl, darwin x64/arm64, windows x64), issue 5.
 * @module
 */

/** Operating systems Bouncer ships for. */
export type TargetOs = "linux" | "darwin" | "windows";

/** CPU architectures Bouncer ships for. */
export type TargetArch = "x64" | "arm64";

/** The C library a Linux build links against (`none` off Linux). */
export type TargetLibc = "glibc" | "musl" | "none";

/** Executable container formats: ELF (Linux), Mach-O (macOS), PE (Windows). */
export type ExecutableFormat = "elf" | "macho" | "pe";

/** One release executable. */
export interface BuildTarget {
  /** Short name, also the file suffix: `linux-x64`, `linux-x64-musl`, `windows-x64`, ... */
  readonly name: string;
  readonly os: TargetOs;
  readonly arch: TargetArch;
  readonly libc: TargetLibc;
  /** The `--target` given to `bun build --compile`. */
  readonly bunTarget: string;
  /** File name under the output folder: `bouncer-<os>-<arch>[-musl][.exe]`. */
  readonly file: string;
  /** The header the file must carry. */
  readonly format: ExecutableFormat;
}

/**
 * Builds a target row from its parts (names are derived, never typed twice).
 * @param os - Operating system.
 * @param arch - CPU architecture.
 * @param libc - C library (`none` off Linux).
 * @returns The target.
 */
function target(os: TargetOs, arch: TargetArch, libc: TargetLibc): BuildTarget {
  const name = `${os}-${arch}${libc === "musl" ? "-musl" : ""}`;
  const format: ExecutableFormat = os === "linux" ? "elf" : os === "darwin" ? "macho" : "pe";
  return {
    name,
    os,
    arch,
    libc,
    bunTarget: `bun-${name}`,
    file: `bouncer-${name}${os === "windows" ? ".exe" : ""}`,
    format,
  };
}

/** Every release target, in build order (the usual host first). Source: SPEC §6. */
export const TARGETS: readonly BuildTarget[] = [
  target("linux", "x64", "glibc"),
  target("linux", "arm64", "glibc"),
  target("linux", "x64", "musl"),
  target("linux", "arm64", "musl"),
  target("darwin", "x64", "none"),
  target("darwin", "arm64", "none"),
  target("windows", "x64", "none"),
];

/**
 * Looks targets up by name (`linux-x64`, `darwin-arm64`, ...), in the order of {@link TARGETS}.
 * @param names - Target names; an empty list selects every target.
 * @returns The selected targets.
 * @throws {RangeError} When a name is not a known target.
 */
export function selectTargets(names: readonly string[]): BuildTarget[] {
  if (names.length === 0) return [...TARGETS];
  const known = new Map(TARGETS.map((row): [string, BuildTarget] => [row.name, row]));
  for (const name of names) {
    if (!known.has(name)) {
      const list = TARGETS.map((row) => row.name).join(", ");
      throw new RangeError(`Cannot select build target "${name}": known targets are ${list}`);
    }
  }
  return TARGETS.filter((row) => names.includes(row.name));
}

/** What the running machine is, as far as choosing a target goes. */
export interface HostDescription {
  /** `process.platform`. */
  readonly platform: string;
  /** `process.arch`. */
  readonly arch: string;
  /** On Linux, whether the C library is musl. */
  readonly musl: boolean;
}

/**
 * The target whose executable runs on a given host, or `null` when Bouncer ships none for it.
 * @param host - Platform, architecture and libc of the host.
 * @returns The matching target, or null.
 */
export function hostTarget(host: HostDescription): BuildTarget | null {
  const os: TargetOs | null =
    host.platform === "linux"
      ? "linux"
      : host.platform === "darwin"
        ? "darwin"
        : host.platform === "win32"
          ? "windows"
          : null;
  const arch: TargetArch | null = host.arch === "x64" ? "x64" : host.arch === "arm64" ? "arm64" : null;
  if (os === null || arch === null) return null;
  const libc: TargetLibc = os !== "linux" ? "none" : host.musl ? "musl" : "glibc";
  return TARGETS.find((row) => row.os === os && row.arch === arch && row.libc === libc) ?? null;
}
