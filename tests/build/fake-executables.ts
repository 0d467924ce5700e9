/**
 * Minimal executable headers (ELF with a PT_INTERP, Mach-O 64 with one load command, PE32+) for the
 * header and dist checks, one correct header per release target. Test support.
 *
 * Source: SPEC §6, issue 5.
 * @module
 */

/**
 * A minimal 64-bit little-endian ELF: header plus one PT_INTERP program header.
 * @param machine - e_machine (0x3e x86-64, 0xb7 aarch64).
 * @param interpreter - The loader path, or null for none.
 * @returns The bytes.
 */
export function fakeElf(machine: number, interpreter: string | null): Uint8Array {
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
export function fakeMachO(cpu: number, signed: boolean): Uint8Array {
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
export function fakePe(machine: number): Uint8Array {
  const bytes = new Uint8Array(128);
  const view = new DataView(bytes.buffer);
  bytes.set([0x4d, 0x5a]);
  view.setUint32(0x3c, 64, true);
  view.setUint32(64, 0x00004550, true);
  view.setUint16(68, machine, true);
  view.setUint16(88, 0x20b, true);
  return bytes;
}

/** glibc's x86-64 loader. */
export const GLIBC_X64 = "/lib64/ld-linux-x86-64.so.2";
/** glibc's aarch64 loader. */
export const GLIBC_ARM64 = "/lib/ld-linux-aarch64.so.1";
/** musl's x86-64 loader. */
export const MUSL_X64 = "/lib/ld-musl-x86_64.so.1";
/** musl's aarch64 loader. */
export const MUSL_ARM64 = "/lib/ld-musl-aarch64.so.1";

/** A correct header for each target. */
export const GOOD = new Map<string, Uint8Array>([
  ["linux-x64", fakeElf(0x3e, GLIBC_X64)],
  ["linux-arm64", fakeElf(0xb7, GLIBC_ARM64)],
  ["linux-x64-musl", fakeElf(0x3e, MUSL_X64)],
  ["linux-arm64-musl", fakeElf(0xb7, MUSL_ARM64)],
  ["darwin-x64", fakeMachO(0x01000007, true)],
  ["darwin-arm64", fakeMachO(0x0100000c, true)],
  ["windows-x64", fakePe(0x8664)],
]);
