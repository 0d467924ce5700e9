import { describe, expect, test } from "bun:test";
import { headerMismatch, readExecutableHeader, readHead } from "../../scripts/build/executable-header.ts";
import { type BuildTarget, TARGETS } from "../../scripts/build/targets.ts";
import { fakeElf, fakeMachO, fakePe, GLIBC_ARM64, GLIBC_X64, GOOD, MUSL_X64 } from "./fake-executables.ts";

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

  test("readExecutableHeader() reads the ELF loader of the Bun running this test", () => {
    if (process.platform !== "linux") return;
    const header = readExecutableHeader(readHead(process.execPath));
    expect(header?.format).toBe("elf");
    expect(header?.interpreter ?? "").toMatch(/ld-(linux|musl)/);
  });
});
