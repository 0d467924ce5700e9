/**
 * Bouncer's own byte-level stdio framer: bytes are buffered until `\n`, and only a complete line is
 * decoded as UTF-8 (so a character split across chunks survives). Several lines per chunk are
 * delivered in order; a trailing `\r` and a leading BOM are removed; blank lines are skipped. A line
 * longer than the limit (default 64 MiB) is discarded up to its newline without being buffered and
 * reported with its first and last bytes, and framing carries on. Edge (no I/O of its own: fed by
 * the stream reader).
 *
 * Newlines are found with `Uint8Array.prototype.indexOf`, so large chunks cost no per-byte JS loop.
 *
 * Source: SPEC §3.3 ("Framing"), field cases F01, F02, F03.
 * @module
 */

import { GcNudge } from "../platform/gc-nudge.ts";

/** 64 MiB: the largest line that passes (SPEC §3.3). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Bytes kept from each end of an oversized line (to find the id it answered). */
const EDGE_BYTES = 4096;

const NEWLINE = 0x0a;
const EMPTY = new Uint8Array(0);
const CR = 0x0d;

/** An over-long line that was dropped. */
export interface OversizedLine {
  /** Its length in bytes (without the newline). */
  readonly byteLength: number;
  /** Its first bytes, decoded. */
  readonly head: string;
  /** Its last bytes, decoded. */
  readonly tail: string;
}

/** What the framer tells of each delivered line's size (see {@link LineFramerOptions.nudge}). */
export interface LineNudge {
  /** The line is decoded and its bytes dropped; its handler runs next. */
  arrived?(bytes: number): void;
  /** The line's handler returned. */
  passed(bytes: number): void;
}

/** Options of {@link LineFramer}. */
export interface LineFramerOptions {
  /** The longest line that passes, in bytes (default {@link DEFAULT_MAX_LINE_BYTES}). */
  readonly maxLineBytes?: number;
  /** Called for an over-long line once its newline (or the end of input) arrives. */
  readonly onOversize?: (line: OversizedLine) => void;
  /**
   * Told the byte length of each delivered line once it is decoded, before its handler runs
   * (`arrived`, optional), and after its handler returned (`passed`). Default: a {@link GcNudge}
   * that collects before a line of 1 MiB or more and after every 1 MiB of large lines; `null` for
   * none. SPEC §7.
   */
  readonly nudge?: LineNudge | null;
}

/**
 * Splits a byte stream into decoded lines.
 *
 * Source: SPEC §3.3, F01.
 * @example
 * const framer = new LineFramer((line) => handle(line));
 * stream.on("data", (chunk) => framer.push(chunk));
 * stream.on("end", () => framer.end());
 */
export class LineFramer {
  readonly #onLine: (line: string) => void;
  readonly #maxLineBytes: number;
  readonly #onOversize: (line: OversizedLine) => void;
  readonly #decoder = new TextDecoder("utf-8");
  readonly #nudge: LineNudge | undefined;
  #parts: Uint8Array[] = [];
  #length = 0;
  /** While discarding an over-long line: its length so far, head and rolling tail. */
  #discard: { length: number; head: Uint8Array; tail: Uint8Array } | undefined;

  /**
   * @param onLine - Receives each complete, non-blank line as text (no `\n`, `\r` or BOM).
   * @param options - Size limit and the oversize report.
   */
  constructor(onLine: (line: string) => void, options: LineFramerOptions = {}) {
    this.#onLine = onLine;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#onOversize = options.onOversize ?? ((): void => {});
    this.#nudge = options.nudge === null ? undefined : (options.nudge ?? new GcNudge());
  }

  /**
   * Feeds one chunk; delivers every line it completes, in order.
   * @param chunk - Bytes as read from the pipe.
   */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.byteLength) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.byteLength : nl;
      this.#append(chunk.subarray(start, end));
      if (nl === -1) return;
      this.#finishLine();
      start = nl + 1;
    }
  }

  /** Ends the input: a last line without a newline is delivered (or reported) too. */
  end(): void {
    if (this.#length > 0 || this.#discard !== undefined) this.#finishLine();
  }

  /**
   * Adds bytes to the current line, switching to discard mode past the limit.
   * @param segment - Bytes without a newline.
   */
  #append(segment: Uint8Array): void {
    if (segment.byteLength === 0) return;
    if (this.#discard !== undefined) {
      this.#discard.length += segment.byteLength;
      this.#discard.tail = keepTail(this.#discard.tail, segment);
      return;
    }
    if (this.#length + segment.byteLength > this.#maxLineBytes) {
      const soFar = concat(this.#parts, this.#length);
      const headSource =
        soFar.byteLength >= EDGE_BYTES
          ? soFar
          : concat(
              [soFar, segment.subarray(0, EDGE_BYTES)],
              soFar.byteLength + Math.min(EDGE_BYTES, segment.byteLength),
            );
      const head = headSource.slice(0, EDGE_BYTES);
      this.#discard = {
        length: this.#length + segment.byteLength,
        head,
        tail: keepTail(soFar.subarray(Math.max(0, soFar.byteLength - EDGE_BYTES)), segment),
      };
      this.#parts = [];
      this.#length = 0;
      return;
    }
    // Stream chunks are never reused after 'data', so a view is kept rather than a copy.
    this.#parts.push(segment);
    this.#length += segment.byteLength;
  }

  /** Delivers (or reports) the current line and resets. */
  #finishLine(): void {
    const discarded = this.#discard;
    if (discarded !== undefined) {
      this.#discard = undefined;
      this.#onOversize({
        byteLength: discarded.length,
        head: this.#decoder.decode(discarded.head),
        tail: this.#decoder.decode(discarded.tail),
      });
      return;
    }
    let bytes = this.#parts.length === 1 ? (this.#parts[0] as Uint8Array) : concat(this.#parts, this.#length);
    this.#parts = [];
    this.#length = 0;
    if (bytes.byteLength > 0 && bytes[bytes.byteLength - 1] === CR)
      bytes = bytes.subarray(0, bytes.byteLength - 1);
    if (bytes.byteLength === 0) return;
    // TextDecoder drops a leading BOM (ignoreBOM is false) and replaces invalid sequences with U+FFFD.
    const byteLength = bytes.byteLength;
    const text = this.#decoder.decode(bytes);
    bytes = EMPTY;
    if (isBlank(text)) return;
    this.#nudge?.arrived?.(byteLength);
    this.#onLine(text);
    this.#nudge?.passed(byteLength);
  }
}

/**
 * Whether a line holds only JSON whitespace.
 * @param text - The decoded line.
 * @returns True for an empty or whitespace-only line.
 */
function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first !== 0x20 && first !== 0x09 && first !== 0x0d && first !== 0x0a && text.length > 0) return false;
  return text.trim() === "";
}

/**
 * Concatenates byte arrays.
 * @param parts - The pieces.
 * @param length - Their total length.
 * @returns One array.
 */
function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/**
 * The last {@link EDGE_BYTES} of `previous` followed by `segment`.
 * @param previous - The tail kept so far.
 * @param segment - New bytes.
 * @returns The new tail (a copy).
 */
function keepTail(previous: Uint8Array, segment: Uint8Array): Uint8Array {
  if (segment.byteLength >= EDGE_BYTES) return segment.slice(segment.byteLength - EDGE_BYTES);
  const keep = Math.min(previous.byteLength, EDGE_BYTES - segment.byteLength);
  return concat([previous.subarray(previous.byteLength - keep), segment], keep + segment.byteLength);
}
