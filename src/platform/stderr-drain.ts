/**
 * Drains an upstream's stderr continuously from the moment it is spawned, so a chatty server never
 * blocks in `write(2)` on a full pipe: every line goes to Bouncer's stderr prefixed
 * `[upstream:<name>] ` (over-long lines are wrapped), and the last 8 KiB are kept for error reports.
 * Given a `redact` function (the upstream's secret environment values), both pass through it first.
 * Given Bouncer's stderr flow, it pauses while Bouncer's own stderr is backed up. Edge.
 *
 * Source: SPEC §3.3 ("drained continuously … prefixed … last 8 KiB are kept"), field case F05.
 * @module
 */

import type { Readable } from "node:stream";
import { escapeControls } from "../engine/render.ts";
import { keyBodyCut, privateKeyLines } from "./private-key-lines.ts";
import type { StderrFlow } from "./stderr-output.ts";

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
  /**
   * Hides secrets in the text written and in the tail. With it, text is written by whole lines (an
   * unterminated line waits for its newline, the end, or {@link MAX_HELD_CHARS}: then it is cut
   * after its last space), so no secret is written in two halves; the tail is redacted from twice
   * its length, so none is cut in half there.
   */
  readonly redact?: (text: string) => string;
  /**
   * Bouncer's stderr back-pressure: while it is full the stream is not read (the upstream blocks in
   * its own write, as it would without Bouncer), and it is read again once stderr drains.
   */
  readonly flow?: StderrFlow;
}

/** Characters of an unterminated line held back for redaction at most (then written redacted). */
export const MAX_HELD_CHARS = 64 * 1024;

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
  // The name is the user's, but a control character in it could start a forged line of its own.
  const prefix = `[upstream:${escapeControls(options.name)}] `;
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

  const { redact } = options;
  // Raw bytes kept: with redaction twice the tail, so that a secret the tail's start cuts is whole.
  const keptBytes = redact === undefined ? tailBytes : tailBytes * 2;
  /** Text not yet written: with redaction, the unterminated end of the current line. */
  let held = "";
  /** PEM private keys written line by line (redaction only): their body lines are hidden. */
  const keys = privateKeyLines();

  /**
   * Writes decoded text; with redaction, only whole lines (and a held line past its limit).
   * @param text - Newly decoded text.
   * @param flush - Whether to write everything (the end of the stream).
   */
  function emit(text: string, flush: boolean): void {
    if (redact === undefined) {
      const out = format(text);
      if (out !== "") options.write(out);
      return;
    }
    held += text;
    // Only the new text can hold a newline: the held text has none.
    const newline = text.lastIndexOf("\n");
    let cut = newline === -1 ? 0 : held.length - text.length + newline + 1;
    if (flush) cut = held.length;
    else if (cut === 0 && held.length > MAX_HELD_CHARS) cut = forcedCut(held);
    if (cut === 0) return;
    const out = format(redact(keys.hide(held.slice(0, cut))));
    held = held.slice(cut);
    if (out !== "") options.write(out);
  }

  const { flow } = options;
  const stopWatch = flow?.onDrain(() => stream.resume());
  stream.on("data", (chunk: Uint8Array) => {
    total += chunk.byteLength;
    if (chunk.byteLength >= keptBytes) {
      tail = chunk.slice(chunk.byteLength - keptBytes);
    } else {
      const merged = new Uint8Array(Math.min(keptBytes, tail.byteLength + chunk.byteLength));
      const keep = merged.byteLength - chunk.byteLength;
      merged.set(tail.subarray(tail.byteLength - keep), 0);
      merged.set(chunk, keep);
      tail = merged;
    }
    emit(decoder.decode(chunk, { stream: true }), false);
    if (flow?.full() === true) stream.pause();
  });
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    stopWatch?.();
    emit(decoder.decode(), true);
    if (!atLineStart) options.write("\n");
    atLineStart = true;
  };
  stream.on("end", end);
  // A broken stderr pipe only ends the drain (what was held is written); the upstream's exit is
  // reported elsewhere.
  stream.on("error", end);
  return {
    tail: () => {
      const text = new TextDecoder("utf-8").decode(tail).replace(/^\uFFFD+/, "");
      return redact === undefined ? text : lastBytes(redact(keyBodyCut(text, keys.open())), tailBytes);
    },
    bytes: () => total,
  };
}

/**
 * Where a held line too long to wait for its newline is cut: after its last white space in its
 * second half (a secret rarely holds one, so it stays whole for the redaction of one part), or,
 * with none there, at its end.
 * @param held - The held text (no newline, longer than {@link MAX_HELD_CHARS}).
 * @returns The number of characters written now.
 */
function forcedCut(held: string): number {
  for (let index = held.length - 1; index >= held.length / 2; index -= 1) {
    const code = held.charCodeAt(index);
    if (code === 0x20 || code === 0x09 || code === 0x0d) return index + 1;
  }
  return held.length;
}

/**
 * The end of a text of at most `max` UTF-8 bytes, starting on a character boundary.
 * @param text - Any text.
 * @param max - Bytes kept at most.
 * @returns The text, or its end.
 */
function lastBytes(text: string, max: number): string {
  if (text.length * 3 <= max) return text;
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= max) return text;
  return new TextDecoder("utf-8").decode(bytes.subarray(bytes.byteLength - max)).replace(/^\uFFFD+/, "");
}
