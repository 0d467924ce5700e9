import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  assetUrl,
  brewDescription,
  formatSha256Sums,
  homebrewFormula,
  parseSha256Sums,
  type ReleaseInfo,
  scoopManifest,
  sha256File,
} from "../../scripts/build/release-files.ts";
import { TARGETS } from "../../scripts/build/targets.ts";

const scratch = mkdtempSync(join(tmpdir(), "bouncer-release-files-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const INFO: ReleaseInfo = {
  version: "1.2.3",
  repo: "acme/bouncer",
  description: "A local stdio MCP proxy that decides every tools/call deterministically: pins and more",
  license: "MIT",
};

/** A distinct fake hash per target, so a swapped pair shows. */
const SUMS = new Map(
  TARGETS.map((row, index): [string, string] => [row.file, index.toString(16).repeat(64)]),
);

describe("formatSha256Sums()", () => {
  test("formatSha256Sums() output is accepted by sha256sum -c and fails it after a change", () => {
    const files = ["bouncer-b", "bouncer-a.exe"];
    for (const [index, file] of files.entries()) writeFileSync(join(scratch, file), `content ${index}\n`);
    const text = formatSha256Sums(files.map((file) => ({ file, sha256: sha256File(join(scratch, file)) })));
    writeFileSync(join(scratch, "SHA256SUMS"), text);
    expect(text.split("\n")[0]).toEndWith("  bouncer-a.exe");
    const ok = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: scratch });
    expect(ok.exitCode).toBe(0);
    writeFileSync(join(scratch, "bouncer-b"), "tampered\n");
    const bad = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: scratch });
    expect(bad.exitCode).not.toBe(0);
  });

  test.each([
    { file: "x", sha256: "ABC" },
    { file: "x", sha256: "A".repeat(64) },
    { file: "dir/x", sha256: "a".repeat(64) },
    { file: "x\ny", sha256: "a".repeat(64) },
  ])("formatSha256Sums() refuses %p", (entry) => {
    expect(() => formatSha256Sums([entry])).toThrow(TypeError);
  });
});

describe("parseSha256Sums()", () => {
  test("parseSha256Sums() reads text and binary separators", () => {
    const sums = parseSha256Sums(`${"a".repeat(64)}  one\n${"b".repeat(64)} *two.exe\n`);
    expect([...sums]).toEqual([
      ["one", "a".repeat(64)],
      ["two.exe", "b".repeat(64)],
    ]);
  });

  test.each([`${"a".repeat(63)}  short\n`, "garbage\n", `${"a".repeat(64)}  x\n${"b".repeat(64)}  x\n`])(
    "parseSha256Sums() rejects the malformed file %p",
    (text) => {
      expect(() => parseSha256Sums(text)).toThrow(SyntaxError);
    },
  );
});

describe("homebrewFormula()", () => {
  const formula = homebrewFormula(INFO, { sums: SUMS, targets: TARGETS });

  test("homebrewFormula() pairs each macOS and Linux url with that file's checksum", () => {
    const pairs = [...formula.matchAll(/url "([^"]+)"\n\s+sha256 "([0-9a-f]{64})"/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const expected = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"].map((name) => {
      const row = TARGETS.find((candidate) => candidate.name === name)!;
      return [assetUrl(INFO, row.file), SUMS.get(row.file)];
    });
    expect(pairs).toEqual(expected);
    expect(pairs[0]?.[0]).toBe(
      "https://github.com/acme/bouncer/releases/download/v1.2.3/bouncer-darwin-arm64",
    );
  });

  test("homebrewFormula() installs the download as bin/bouncer and tests --version", () => {
    expect(formula).toContain('bin.install Dir["bouncer-*"].fetch(0) => "bouncer"');
    expect(formula).toContain('shell_output("#{bin}/bouncer --version")');
    expect(formula).toContain('version "1.2.3"');
    expect(formula).toMatch(/on_macos do\n {4}on_arm do/);
  });

  test("homebrewFormula() refuses a build without a brew target", () => {
    const partial = TARGETS.filter((row) => row.name !== "darwin-x64");
    expect(() => homebrewFormula(INFO, { sums: SUMS, targets: partial })).toThrow(RangeError);
    expect(() => homebrewFormula(INFO, { sums: new Map(), targets: TARGETS })).toThrow(RangeError);
  });

  test.each([
    { ...INFO, version: "v1.2.3" },
    { ...INFO, version: '1.2.3"; system "x' },
    { ...INFO, repo: "acme" },
    { ...INFO, repo: 'acme/b" + x' },
  ])("homebrewFormula() refuses the malformed release %p", (info) => {
    expect(() => homebrewFormula(info, { sums: SUMS, targets: TARGETS })).toThrow(TypeError);
  });
});

describe("brewDescription()", () => {
  test.each([
    ["A local proxy: details", "Local proxy"],
    ["the tool.", "Tool"],
    ["An x", "X"],
    [`word ${"y".repeat(90)}`, "Word"],
  ])("brewDescription() turns %p into %p", (input, expected) => {
    expect(brewDescription(input)).toBe(expected);
  });
});

describe("scoopManifest()", () => {
  const manifest = JSON.parse(scoopManifest(INFO, { sums: SUMS, targets: TARGETS }));
  const windows = TARGETS.find((row) => row.name === "windows-x64")!;

  test("scoopManifest() points at the Windows executable, renamed bouncer.exe, with its checksum", () => {
    expect(manifest.version).toBe("1.2.3");
    expect(manifest.bin).toBe("bouncer.exe");
    expect(manifest.architecture["64bit"]).toEqual({
      url: "https://github.com/acme/bouncer/releases/download/v1.2.3/bouncer-windows-x64.exe#/bouncer.exe",
      hash: SUMS.get(windows.file),
    });
  });

  test("scoopManifest() autoupdate pattern gives this release's url for its version", () => {
    const pattern: string = manifest.autoupdate.architecture["64bit"].url;
    expect(pattern.replaceAll("$version", "1.2.3")).toBe(manifest.architecture["64bit"].url);
    expect(manifest.autoupdate.hash.url).toBe("$baseurl/SHA256SUMS");
  });

  test("scoopManifest() refuses a build without the Windows target", () => {
    expect(() => scoopManifest(INFO, { sums: SUMS, targets: TARGETS.slice(0, 4) })).toThrow(RangeError);
  });
});
