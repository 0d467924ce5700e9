/**
 * Reads what an executable's first bytes say: ELF (machine and program interpreter, which tells glibc
 * from musl), Mach-O 64 (CPU and whether a code signature is present) or PE32+ (machine). Used to check
 * release executables and to tell which C library the running Bun uses. Edge (build tooling).
 *
 * Source: SPEC §6, issue 5 ("every target's file exists with the right header").
 * @module
 */

import { closeSync, openSync, readSync } from "node:fs";
import type { BuildTarget, TargetArch } from "./targets.ts";

/** What an executable's first bytes say. */
export interface ExecutableHeader {
  readonly format: "elf" | "macho" | "pe";
  readonly arch: TargetArch | "other";
  /** ELF only: the program interpreter (`/lib/ld-musl-x86_64.so.1`, ...), or null when static. */
  readonly interpreter: string | null;
  /** Mach-O only: whether it has a code signature (arm64 macOS refuses to run a binary without one). */
  readonly signed: boolean;
}

const ELF_MACHINE = new Map<number, TargetArch>([
  [0x3e, "x64"],
  [0xb7, "arm64"],
]);
const MACHO_CPU = new Map<number, TargetArch>([
  [0x01000007, "x64"],
  [0x0100000c, "arm64"],
]);
const PE_MACHINE = new Map<number, TargetArch>([
  [0x8664, "x64"],
  [0xaa64, "arm64"],
]);

/**
 * Reads the program interpreter of a 64-bit little-endian ELF file (its `PT_INTERP` segment).
 * @param bytes - The file.
 * @returns The interpreter path, or null when there is none or the tables are out of range.
 */
function elfInterpreter(bytes: Uint8Array): string | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 64 || bytes[4] !== 2 || bytes[5] !== 1) return null;
  const phoff = Number(view.getBigUint64(0x20, true));
  const phentsize = view.getUint16(0x36, true);
  const phnum = view.getUint16(0x38, true);
  for (let index = 0; index < phnum; index += 1) {
    const at = phoff + index * phentsize;
    if (at + 56 > bytes.length) return null;
    if (view.getUint32(at, true) !== 3) continue;
    const offset = Number(view.getBigUint64(at + 8, true));
    const size = Number(view.getBigUint64(at + 32, true));
    if (offset + size > bytes.length) return null;
    return new TextDecoder().decode(bytes.subarray(offset, offset + size)).replace(/\0+$/, "");
  }
  return null;
}

/**
 * Whether a 64-bit Mach-O file's load commands include `LC_CODE_SIGNATURE`.
 * @param view - The file's first bytes (the load commands follow the 32-byte header).
 * @returns True when a code signature is referenced.
 */
function hasCodeSignature(view: DataView): boolean {
  const count = view.getUint32(16, true);
  let at = 32;
  for (let index = 0; index < count && at + 8 <= view.byteLength; index += 1) {
    if (view.getUint32(at, true) === 0x1d) return true;
    const size = view.getUint32(at + 4, true);
    if (size < 8) return false;
    at += size;
  }
  return false;
}

/**
 * Identifies an executable from its header.
 * @param bytes - The file's bytes (at least the headers).
 * @returns Format, CPU and (ELF) interpreter, or null when the bytes are no known 64-bit executable.
 */
export function readExecutableHeader(bytes: Uint8Array): ExecutableHeader | null {
  if (bytes.length < 64) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46) {
    if (bytes[4] !== 2) return null;
    const arch = ELF_MACHINE.get(view.getUint16(0x12, true)) ?? "other";
    return { format: "elf", arch, interpreter: elfInterpreter(bytes), signed: false };
  }
  if (view.getUint32(0, true) === 0xfeedfacf) {
    const arch = MACHO_CPU.get(view.getUint32(4, true)) ?? "other";
    return { format: "macho", arch, interpreter: null, signed: hasCodeSignature(view) };
  }
  if (bytes[0] === 0x4d && bytes[1] === 0x5a) {
    const peAt = view.getUint32(0x3c, true);
    if (peAt + 26 > bytes.length || view.getUint32(peAt, true) !== 0x00004550) return null;
    if (view.getUint16(peAt + 24, true) !== 0x20b) return null;
    const arch = PE_MACHINE.get(view.getUint16(peAt + 4, true)) ?? "other";
    return { format: "pe", arch, interpreter: null, signed: false };
  }
  return null;
}

/**
 * Whether a header fits a target: format, CPU and (Linux) the loader of the target's C library.
 * @param header - What the file says.
 * @param target - What it should be.
 * @returns Null when it fits, else what is wrong.
 */
export function headerMismatch(header: ExecutableHeader | null, target: BuildTarget): string | null {
  if (header === null) return "not a 64-bit ELF, Mach-O or PE executable";
  if (header.format !== target.format) return `a ${header.format} file, expected ${target.format}`;
  if (header.arch !== target.arch) return `built for ${header.arch}, expected ${target.arch}`;
  if (header.format === "macho" && !header.signed) return "no code signature (macOS refuses to run it)";
  if (target.libc === "musl" && !(header.interpreter ?? "").includes("ld-musl-")) {
    return `loader "${header.interpreter ?? "none"}" is not musl's`;
  }
  if (target.libc === "glibc" && !/ld-linux/.test(header.interpreter ?? "")) {
    return `loader "${header.interpreter ?? "none"}" is not glibc's`;
  }
  return null;
}

/** How much of a file the header checks read: headers, load commands and the ELF interpreter. */
const HEAD_BYTES = 64 * 1024;

/**
 * Reads the first {@link HEAD_BYTES} of a file.
 * @param path - The file.
 * @returns Its first bytes (fewer for a short file).
 * @throws {Error} When the file cannot be read.
 */
export function readHead(path: string): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const buffer = new Uint8Array(HEAD_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, HEAD_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}
