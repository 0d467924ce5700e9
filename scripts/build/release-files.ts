/**
 * The release files written beside the executables: `SHA256SUMS` (the `sha256sum` text format), a
 * Homebrew formula (`bouncer.rb`) and a scoop manifest (`bouncer.json`), each pointing at the GitHub
 * release assets of one version with their checksums. Pure text generation plus one hashing helper.
 * Edge (build tooling).
 *
 * Source: SPEC §6, issue 5.
 * @module
 */

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { BuildTarget } from "./targets.ts";

/** One line of `SHA256SUMS`. */
export interface ChecksumEntry {
  /** Lower-case hex SHA-256. */
  readonly sha256: string;
  /** The file name (no folder). */
  readonly file: string;
}

/** What the formula and manifest need to know about the release. */
export interface ReleaseInfo {
  /** The version without a leading `v` (`0.1.0`). */
  readonly version: string;
  /** The GitHub repository, `owner/name`. */
  readonly repo: string;
  /** One-line description. */
  readonly description: string;
  /** SPDX licence identifier. */
  readonly license: string;
}

/** The built files a formula or manifest points at. */
export interface ReleaseAssets {
  /** File name to SHA-256 (from {@link parseSha256Sums} or the build). */
  readonly sums: ReadonlyMap<string, string>;
  /** The targets built. */
  readonly targets: readonly BuildTarget[];
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const REPO_SHAPE = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/**
 * The SHA-256 of a file, as lower-case hex.
 * @param path - The file.
 * @returns 64 hex digits.
 * @throws {Error} When the file cannot be read.
 */
export function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/**
 * Formats checksums as `sha256sum` does in text mode: `<hex>  <file>` per line, sorted by file name,
 * with a final newline, so `sha256sum -c SHA256SUMS` verifies the release.
 * @param entries - Files and their hashes.
 * @returns The file's text.
 * @throws {TypeError} When a hash is not 64 lower-case hex digits or a name holds a line break or slash.
 */
export function formatSha256Sums(entries: readonly ChecksumEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const entry of sorted) {
    if (!SHA256_HEX.test(entry.sha256)) {
      throw new TypeError(`Cannot write checksum for "${entry.file}": "${entry.sha256}" is not a SHA-256`);
    }
    if (/[\r\n/\\]/.test(entry.file)) {
      throw new TypeError(`Cannot write checksum for "${entry.file}": a file name must be a plain name`);
    }
  }
  return sorted.map((entry) => `${entry.sha256}  ${entry.file}\n`).join("");
}

/**
 * Parses `sha256sum` output (text `  ` or binary ` *` separator).
 * @param text - The file's text.
 * @returns A map from file name to hash.
 * @throws {SyntaxError} On a malformed line (with its number) or a file listed twice.
 */
export function parseSha256Sums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line === "" && index === lines.length - 1) continue;
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (match === null) throw new SyntaxError(`Cannot parse SHA256SUMS: line ${index + 1}: "${line}"`);
    const [, hash, file] = match as unknown as [string, string, string];
    if (sums.has(file)) throw new SyntaxError(`Cannot parse SHA256SUMS: line ${index + 1}: "${file}" twice`);
    sums.set(file, hash);
  }
  return sums;
}

/**
 * The download URL of a release asset.
 * @param info - Version and repository.
 * @param file - The asset's file name.
 * @returns `https://github.com/<repo>/releases/download/v<version>/<file>`.
 */
export function assetUrl(info: ReleaseInfo, file: string): string {
  return `https://github.com/${info.repo}/releases/download/v${info.version}/${file}`;
}

/**
 * Finds the checksum of one target's file.
 * @param sums - File name to hash.
 * @param target - The target.
 * @returns The hash.
 * @throws {RangeError} When the target was not built.
 */
function sumOf(sums: ReadonlyMap<string, string>, target: BuildTarget): string {
  const hash = sums.get(target.file);
  if (hash === undefined) {
    throw new RangeError(`Cannot write release files: target "${target.name}" has no checksum`);
  }
  return hash;
}

/**
 * Checks the release facts that end up inside Ruby and JSON text.
 * @param info - The release.
 * @throws {TypeError} When the version or repository has an unexpected shape.
 */
function assertReleaseInfo(info: ReleaseInfo): void {
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(info.version)) {
    throw new TypeError(`Cannot write release files: version "${info.version}" is not semver`);
  }
  if (!REPO_SHAPE.test(info.repo)) {
    throw new TypeError(`Cannot write release files: repository "${info.repo}" is not "owner/name"`);
  }
}

/**
 * A Ruby double-quoted string literal (escapes backslash, quote and `#{`).
 * @param value - The text.
 * @returns The literal.
 */
function rubyString(value: string): string {
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`).replace(/#\{/g, "\\#{")}"`;
}

/**
 * A description as Homebrew's audit wants it: no leading article, the part before a colon, at most 80
 * characters, capitalised, no final period.
 * @param description - The package description.
 * @returns The formula's `desc`.
 */
export function brewDescription(description: string): string {
  let text = description
    .replace(/^\s*(?:a|an|the)\s+/i, "")
    .split(":")[0]!
    .trim()
    .replace(/\.$/, "");
  if (text.length > 80) text = text.slice(0, 80).replace(/\s+\S*$/, "");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A Homebrew formula installing the prebuilt executable for macOS (arm64, x64) and Linux (glibc arm64,
 * x64): one `url`/`sha256` pair per platform, the binary installed as `bin/bouncer`, and a test that runs
 * `bouncer --version`. The binary at `bin/bouncer` keeps its path across upgrades (SPEC §5.2).
 * @param info - Version, repository, description, licence.
 * @param assets - Checksums and targets built (the four brew targets must be among them).
 * @returns The formula's Ruby text.
 * @throws {RangeError} When a needed target has no checksum. {TypeError} On a malformed version or repo.
 */
export function homebrewFormula(info: ReleaseInfo, assets: ReleaseAssets): string {
  assertReleaseInfo(info);
  const { sums, targets } = assets;
  const pick = (name: string): { url: string; sha256: string } => {
    const row = targets.find((candidate) => candidate.name === name);
    if (row === undefined)
      throw new RangeError(`Cannot write the Homebrew formula: target "${name}" missing`);
    return { url: assetUrl(info, row.file), sha256: sumOf(sums, row) };
  };
  const block = (indent: string, name: string): string => {
    const asset = pick(name);
    return `${indent}url ${rubyString(asset.url)}\n${indent}sha256 ${rubyString(asset.sha256)}\n`;
  };
  return [
    "# Generated by scripts/build.ts for this release; do not edit by hand.\n",
    "class Bouncer < Formula\n",
    `  desc ${rubyString(brewDescription(info.description))}\n`,
    `  homepage ${rubyString(`https://github.com/${info.repo}`)}\n`,
    `  version ${rubyString(info.version)}\n`,
    `  license ${rubyString(info.license)}\n\n`,
    "  on_macos do\n    on_arm do\n",
    block("      ", "darwin-arm64"),
    "    end\n    on_intel do\n",
    block("      ", "darwin-x64"),
    "    end\n  end\n\n",
    "  on_linux do\n    on_arm do\n",
    block("      ", "linux-arm64"),
    "    end\n    on_intel do\n",
    block("      ", "linux-x64"),
    "    end\n  end\n\n",
    '  def install\n    bin.install Dir["bouncer-*"].fetch(0) => "bouncer"\n  end\n\n',
    '  test do\n    assert_match version.to_s, shell_output("#{bin}/bouncer --version")\n  end\n',
    "end\n",
  ].join("");
}

/**
 * A scoop manifest for the Windows x64 executable, renamed to `bouncer.exe` on download (scoop's
 * `#/name` URL fragment) so the scoop shim keeps one stable path across upgrades (SPEC §5.2). Its
 * `autoupdate` section holds the URL pattern (`$version`) and reads the hash from the release's
 * `SHA256SUMS` by file name.
 * @param info - Version, repository, description, licence.
 * @param assets - Checksums and targets built (`windows-x64` must be among them).
 * @returns The manifest as formatted JSON text with a final newline.
 * @throws {RangeError} When the Windows target has no checksum. {TypeError} On a malformed version or repo.
 */
export function scoopManifest(info: ReleaseInfo, assets: ReleaseAssets): string {
  assertReleaseInfo(info);
  const { sums, targets } = assets;
  const row = targets.find((candidate) => candidate.name === "windows-x64");
  if (row === undefined)
    throw new RangeError('Cannot write the scoop manifest: target "windows-x64" missing');
  const pattern = `https://github.com/${info.repo}/releases/download/v$version/${row.file}#/bouncer.exe`;
  const manifest = {
    version: info.version,
    description: info.description,
    homepage: `https://github.com/${info.repo}`,
    license: info.license,
    architecture: {
      "64bit": { url: `${assetUrl(info, row.file)}#/bouncer.exe`, hash: sumOf(sums, row) },
    },
    bin: "bouncer.exe",
    checkver: { github: `https://github.com/${info.repo}` },
    autoupdate: {
      architecture: { "64bit": { url: pattern } },
      hash: { url: "$baseurl/SHA256SUMS" },
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
