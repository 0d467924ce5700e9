/**
 * A bounded garbage-collection nudge for large messages: once more than a given number of bytes of
 * large lines (64 KiB or more each) passed since the last nudge, the runtime is asked to collect
 * (`Bun.gc(true)` under Bun, `globalThis.gc()` where Node or Deno expose it, nothing elsewhere). A
 * line that alone is that large also makes it collect once the line is decoded, before its handler
 * runs: the pipe's chunks and their concatenation, as large as the line, are garbage by then, and
 * the handler's own copies (the parsed message, the recorded text, the answer written) reuse their
 * memory instead of adding to it. Small lines are not counted, so they never cause a collection and
 * cost one comparison each. Edge (runtime-specific).
 *
 * Why: JavaScriptCore collects the large strings and buffers of a relayed 1 MiB result late, so the
 * peak RSS after 64 MiB of output was about three times the live data (SPEC §7, "peak RSS"). The
 * collection before the handler took the peak after 64 MiB of 1 MiB results down by another 5–7 MB.
 *
 * Source: SPEC §7.
 * @module
 */

/** 1 MiB: the bytes of large lines between two nudges (default). */
const DEFAULT_GC_EVERY_BYTES = 1024 * 1024;

/** 64 KiB: lines shorter than this are not counted (small calls never collect). */
export const GC_MIN_LINE_BYTES = 64 * 1024;

/** The runtime's full collection, or undefined when it offers none. */
type Collect = () => void;

/**
 * The runtime's synchronous full collection.
 * @returns `Bun.gc(true)` under Bun, `globalThis.gc` when exposed (`--expose-gc`), else undefined.
 */
export function runtimeCollect(): Collect | undefined {
  const bun = (globalThis as { Bun?: { gc?: (force: boolean) => void } }).Bun;
  if (typeof bun?.gc === "function") {
    const gc = bun.gc.bind(bun);
    return () => gc(true);
  }
  const exposed = (globalThis as { gc?: unknown }).gc;
  return typeof exposed === "function" ? () => (exposed as () => void)() : undefined;
}

/**
 * Counts bytes of passed large lines and collects once `everyBytes` or more passed since the last time.
 *
 * Source: SPEC §7.
 * @example
 * const nudge = new GcNudge();
 * nudge.arrived(line.byteLength); // decoded, before the line is handled
 * nudge.passed(line.byteLength); // after the line was handled
 */
export class GcNudge {
  readonly #everyBytes: number;
  readonly #collect: Collect | undefined;
  #since = 0;

  /**
   * @param options - `everyBytes` (default {@link DEFAULT_GC_EVERY_BYTES}, bytes, > 0) and `collect`
   *   (default {@link runtimeCollect}). The framer's `nudge: null` turns the nudge off.
   */
  constructor(options: { readonly everyBytes?: number; readonly collect?: Collect } = {}) {
    this.#everyBytes = options.everyBytes ?? DEFAULT_GC_EVERY_BYTES;
    this.#collect = options.collect ?? runtimeCollect();
  }

  /**
   * Notes a line about to be handled (decoded, its bytes dropped): collects when the line alone
   * reaches the threshold, so that its framing buffers are freed before its handler allocates. The
   * count of {@link passed} is left as it is. A failing collector is ignored.
   * @param bytes - The line's length in bytes.
   */
  arrived(bytes: number): void {
    if (bytes < this.#everyBytes || bytes < GC_MIN_LINE_BYTES) return;
    this.#run();
  }

  /**
   * Notes a line that passed; collects when the threshold is reached. Lines under
   * {@link GC_MIN_LINE_BYTES} are not counted. A failing collector is ignored (the nudge is an
   * optimisation, never a reason to drop a message).
   * @param bytes - The line's length in bytes.
   */
  passed(bytes: number): void {
    if (bytes < GC_MIN_LINE_BYTES || this.#collect === undefined) return;
    this.#since += bytes;
    if (this.#since < this.#everyBytes) return;
    this.#since = 0;
    this.#run();
  }

  /** Runs the collector, ignoring a failure (the nudge is an optimisation, never a reason to drop a message). */
  #run(): void {
    try {
      this.#collect?.();
    } catch {
      // An optimisation only.
    }
  }
}
