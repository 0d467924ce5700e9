import { describe, expect, test } from "bun:test";
import { hostTarget, selectTargets, TARGETS } from "../../scripts/build/targets.ts";

describe("TARGETS", () => {
  test("TARGETS names the seven release executables of SPEC §6 with their Bun compile targets", () => {
    expect(TARGETS.map((row) => [row.file, row.bunTarget, row.format])).toEqual([
      ["bouncer-linux-x64", "bun-linux-x64", "elf"],
      ["bouncer-linux-arm64", "bun-linux-arm64", "elf"],
      ["bouncer-linux-x64-musl", "bun-linux-x64-musl", "elf"],
      ["bouncer-linux-arm64-musl", "bun-linux-arm64-musl", "elf"],
      ["bouncer-darwin-x64", "bun-darwin-x64", "macho"],
      ["bouncer-darwin-arm64", "bun-darwin-arm64", "macho"],
      ["bouncer-windows-x64.exe", "bun-windows-x64", "pe"],
    ]);
  });
});

describe("selectTargets()", () => {
  test("selectTargets() returns every target for an empty list", () => {
    expect(selectTargets([])).toEqual([...TARGETS]);
  });

  test("selectTargets() keeps the table order whatever the order asked", () => {
    expect(selectTargets(["windows-x64", "linux-x64"]).map((row) => row.name)).toEqual([
      "linux-x64",
      "windows-x64",
    ]);
  });

  test.each(["linux-x86", "constructor", "__proto__", "toString", ""])(
    "selectTargets() refuses the unknown target %p",
    (name) => {
      expect(() => selectTargets([name])).toThrow(RangeError);
    },
  );
});

describe("hostTarget()", () => {
  test.each([
    { platform: "linux", arch: "x64", musl: false, expected: "linux-x64" },
    { platform: "linux", arch: "x64", musl: true, expected: "linux-x64-musl" },
    { platform: "linux", arch: "arm64", musl: false, expected: "linux-arm64" },
    { platform: "linux", arch: "arm64", musl: true, expected: "linux-arm64-musl" },
    { platform: "darwin", arch: "arm64", musl: false, expected: "darwin-arm64" },
    { platform: "darwin", arch: "x64", musl: false, expected: "darwin-x64" },
    { platform: "win32", arch: "x64", musl: false, expected: "windows-x64" },
    { platform: "win32", arch: "arm64", musl: false, expected: null },
    { platform: "freebsd", arch: "x64", musl: false, expected: null },
    { platform: "linux", arch: "ia32", musl: false, expected: null },
  ])("hostTarget() maps $platform/$arch (musl $musl) to $expected", (row) => {
    expect(hostTarget(row)?.name ?? null).toBe(row.expected);
  });
});
