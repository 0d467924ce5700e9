import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { formatSha256Sums, sha256File } from "../../scripts/build/release-files.ts";
import { type BuildTarget, TARGETS } from "../../scripts/build/targets.ts";
import {
  headerMismatch,
  readExecutableHeader,
  readHead,
  verifyDist,
} from "../../scripts/build/verify-dist.ts";

/**
 * A minimal 64-bit little-endian ELF: header plus one PT_INTERP program header.
 * @param machine - e_machine (0x3e x86-64, 0xb7 aarch64).
 * @param interpreter - The loader path, or null for none.
 * @returns The bytes.
 */
function fakeElf(machine: number, interpreter: string | null): Uint8Array {
  const bytes = new Uint8Array(256);
  const view = new DataView(bytes.buffer);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  view.setUint16(0x12, machine, true);
  view.setBigUint64(0x20, 64n, true);
  view.setUint16(0x36, 56, true);
  view.setUint16(0x38, interpreter === null ? 0 : 1, true);
  if (interpreter !== null) {
    const text = new TextEncoder().encode(`${interpreter}\0`);
    view.setUint32(64, 3, true);
    view.setBigUint64(64 + 8, 128n, true);
    view.setBigUint64(64 + 32, BigInt(text.length), true);
    bytes.set(text, 128);
  }
  return bytes;
}

/**
 * A minimal Mach-O 64 header with one load command.
 * @param cpu - cputype (0x01000007 x86_64, 0x0100000c arm64).
 * @param signed - Whether the load command is LC_CODE_SIGNATURE.
 * @returns The bytes.
 */
function fakeMachO(cpu: number, signed: boolean): Uint8Array {
  const bytes = new Uint8Array(128);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0xfeedfacf, true);
  view.setUint32(4, cpu, true);
  view.setUint32(16, 1, true);
  view.setUint32(32, signed ? 0x1d : 0x19, true);
  view.setUint32(36, 16, true);
  return bytes;
}

/**
 * A minimal PE32+ header.
 * @param machine - COFF machine (0x8664 x86-64).
 * @returns The bytes.
 */
function fakePe(machine: number): Uint8Array {
  const bytes = new Uint8Array(128);
  const view = new DataView(bytes.buffer);
  bytes.set([0x4d, 0x5a]);
  view.setUint32(0x3c, 64, true);
  view.setUint32(64, 0x00004550, true);
  view.setUint16(68, machine, true);
  view.setUint16(88, 0x20b, true);
  return bytes;
}

const GLIBC_X64 = "/lib64/ld-linux-x86-64.so.2";
const GLIBC_ARM64 = "/lib/ld-linux-aarch64.so.1";
const MUSL_X64 = "/lib/ld-musl-x86_64.so.1";
const MUSL_ARM64 = "/lib/ld-musl-aarch64.so.1";

/** A correct header for each target. */
const GOOD = new Map<string, Uint8Array>([
  ["linux-x64", fakeElf(0x3e, GLIBC_X64)],
  ["linux-arm64", fakeElf(0xb7, GLIBC_ARM64)],
  ["linux-x64-musl", fakeElf(0x3e, MUSL_X64)],
  ["linux-arm64-musl", fakeElf(0xb7, MUSL_ARM64)],
  ["darwin-x64", fakeMachO(0x01000007, true)],
  ["darwin-arm64", fakeMachO(0x0100000c, true)],
  ["windows-x64", fakePe(0x8664)],
]);

/**
 * @param name - Target name.
 * @returns The target row.
 */
function targetNamed(name: string): BuildTarget {
  return TARGETS.find((row) => row.name === name)!;
}

describe("headerMismatch()", () => {
  test.each(TARGETS.map((row) => row.name))("headerMismatch() accepts a correct %s header", (name) => {
    expect(headerMismatch(readExecutableHeader(GOOD.get(name)!), targetNamed(name))).toBeNull();
  });

  test.each([
    { name: "linux-x64", bytes: fakeElf(0xb7, GLIBC_ARM64), why: "arm64 binary" },
    { name: "linux-x64", bytes: fakeElf(0x3e, MUSL_X64), why: "musl loader" },
    { name: "linux-x64-musl", bytes: fakeElf(0x3e, GLIBC_X64), why: "glibc loader" },
    { name: "linux-arm64-musl", bytes: fakeElf(0xb7, null), why: "no loader" },
    { name: "linux-x64", bytes: fakeMachO(0x01000007, true), why: "Mach-O" },
    { name: "darwin-arm64", bytes: fakeMachO(0x01000007, true), why: "x86_64 Mach-O" },
    { name: "darwin-arm64", bytes: fakeMachO(0x0100000c, false), why: "unsigned" },
    { name: "windows-x64", bytes: fakePe(0xaa64), why: "arm64 PE" },
    { name: "windows-x64", bytes: fakeElf(0x3e, GLIBC_X64), why: "ELF" },
    { name: "windows-x64", bytes: new TextEncoder().encode("#!/bin/sh\n".padEnd(100, "x")), why: "a script" },
  ])("headerMismatch() rejects $why as $name", ({ name, bytes }) => {
    expect(headerMismatch(readExecutableHeader(bytes), targetNamed(name))).not.toBeNull();
  });

  test("readExecutableHeader() reads the glibc loader of the Bun running this test", () => {
    if (process.platform !== "linux") return;
    const header = readExecutableHeader(readHead(process.execPath));
    expect(header?.format).toBe("elf");
    expect(header?.interpreter ?? "").toMatch(/ld-(linux|musl)/);
  });
});

describe("verifyDist()", () => {
  const scratch = mkdtempSync(join(tmpdir(), "bouncer-verify-dist-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /**
   * Fills the scratch folder with every target's fake file and a matching SHA256SUMS.
   */
  function fill(): void {
    for (const row of TARGETS) writeFileSync(join(scratch, row.file), GOOD.get(row.name)!);
    const entries = TARGETS.map((row) => ({ file: row.file, sha256: sha256File(join(scratch, row.file)) }));
    writeFileSync(join(scratch, "SHA256SUMS"), formatSha256Sums(entries));
  }

  test("verifyDist() finds nothing wrong with a complete folder", () => {
    fill();
    expect(verifyDist(scratch)).toEqual([]);
  });

  test("verifyDist() reports a file that no longer matches SHA256SUMS", () => {
    fill();
    const bytes = fakeMachO(0x0100000c, true);
    bytes[100] = 1;
    writeFileSync(join(scratch, "bouncer-darwin-arm64"), bytes);
    expect(verifyDist(scratch)).toEqual(['"bouncer-darwin-arm64" does not match SHA256SUMS']);
  });

  test("verifyDist() reports a missing file, a wrong header and a missing SHA256SUMS", () => {
    fill();
    rmSync(join(scratch, "bouncer-linux-arm64"));
    writeFileSync(join(scratch, "bouncer-windows-x64.exe"), fakeElf(0x3e, GLIBC_X64));
    const problems = verifyDist(scratch);
    expect(problems).toContain('"bouncer-linux-arm64" is missing');
    expect(
      problems.some((line) => line.startsWith('"bouncer-windows-x64.exe" has the wrong header')),
    ).toBeTrue();
    rmSync(join(scratch, "SHA256SUMS"));
    expect(verifyDist(scratch).some((line) => line.endsWith('SHA256SUMS" is missing'))).toBeTrue();
  });
});

/**
 * The output of a full `npm run build` (every target). Runs only where that build was made first and
 * BOUNCER_CHECK_DIST=1 says so: the release workflow and the CI `dist` job (a full build takes about
 * 20 s and 700 MB, too much for every `npm test`).
 */
describe.if(process.env.BOUNCER_CHECK_DIST === "1")("dist/ of a full build", () => {
  test("every target's file in dist/ exists, has its platform's header and matches SHA256SUMS", () => {
    expect(verifyDist(resolve(import.meta.dir, "../../dist"))).toEqual([]);
  });
});
