/**
 * Drains an upstream's stderr continuously from the moment it is spawned, so a chatty server never
 * blocks in `write(2)` on a full pipe: every line goes to Bouncer's stderr prefixed
 * `[upstream:<name>] ` (over-long lines are wrapped), and the last 8 KiB are kept for error reports.
 * Edge.
 *
 * Source: SPEC §3.3 ("drained continuously … prefixed … last 8 KiB are kept"), field case F05.
 * @module
 */

import type { Readable } from "node:stream";

/** Options of {@link drainStderr}. */
export interface StderrDrainOptions {
  /** The `--upstream-name`, shown in the prefix. */
  readonly name: string;
  /** Where prefixed text goes (Bouncer's stderr). */
  readonly write: (text: string) => void;
  /** Bytes of tail kept (default 8 KiB). */
  readonly tailBytes?: number;
  /** Characters after which a line without a newline is wrapped (default 4,096). */
  readonly maxLineChars?: number;
}

/** A running drain. */
export interface StderrDrain {
  /** The last bytes of stderr, decoded (for `-32000` error data and the audit log). */
  readonly tail: () => string;
  /** Total bytes read so far. */
  readonly bytes: () => number;
}

/**
 * Starts draining a stream (the upstream's stderr).
 *
 * Source: SPEC §3.3, F05.
 * @param stream - The child's stderr.
 * @param options - Name for the prefix, the writer, tail and line limits.
 * @returns Accessors for the kept tail.
 */
export function drainStderr(stream: Readable, options: StderrDrainOptions): StderrDrain {
  const tailBytes = options.tailBytes ?? 8192;
  const maxLineChars = options.maxLineChars ?? 4096;
  const prefix = `[upstream:${options.name}] `;
  const decoder = new TextDecoder("utf-8");
  let tail: Uint8Array = new Uint8Array(0);
  let total = 0;
  let lineChars = 0;
  let atLineStart = true;

  /**
   * Prefixes and wraps one decoded chunk.
   * @param text - Decoded text.
   * @returns The text to write.
   */
  function format(text: string): string {
    let out = "";
    let pos = 0;
    while (pos < text.length) {
      if (atLineStart) {
        out += prefix;
        atLineStart = false;
        lineChars = 0;
      }
      const nl = text.indexOf("\n", pos);
      const end = nl === -1 ? text.length : nl;
      const room = maxLineChars - lineChars;
      if (end - pos > room) {
        out += `${text.slice(pos, pos + room)}\n`;
        pos += room;
        atLineStart = true;
        continue;
      }
      out += text.slice(pos, end);
      lineChars += end - pos;
      if (nl === -1) break;
      out += "\n";
      pos = nl + 1;
      atLineStart = true;
    }
    return out;
  }

  stream.on("data", (chunk: Uint8Array) => {
    total += chunk.byteLength;
    if (chunk.byteLength >= tailBytes) {
      tail = chunk.slice(chunk.byteLength - tailBytes);
    } else {
      const merged = new Uint8Array(Math.min(tailBytes, tail.byteLength + chunk.byteLength));
      const keep = merged.byteLength - chunk.byteLength;
      merged.set(tail.subarray(tail.byteLength - keep), 0);
      merged.set(chunk, keep);
      tail = merged;
    }
    const text = format(decoder.decode(chunk, { stream: true }));
    if (text !== "") options.write(text);
  });
  stream.on("end", () => {
    const rest = format(decoder.decode());
    if (rest !== "" || !atLineStart) options.write(atLineStart ? rest : `${rest}\n`);
    atLineStart = true;
  });
  stream.on("error", () => {
    // A broken stderr pipe only ends the drain; the upstream's exit is reported elsewhere.
  });
  return {
    tail: () => new TextDecoder("utf-8").decode(tail).replace(/^\uFFFD+/, ""),
    bytes: () => total,
  };
}
