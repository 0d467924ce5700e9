/**
 * Summary statistics for the performance bench: percentiles by the nearest-rank method over a sorted
 * copy, medians, and the rounding used in the printed tables and the JSON.
 *
 * Source: SPEC §7; issue 6 part 2.
 * @module
 */

/** Percentiles of a sample, in the sample's unit. */
export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/**
 * The nearest-rank percentile of a sorted sample.
 * @param sorted - Ascending values (at least one).
 * @param q - The quantile, 0 to 1.
 * @returns The value at rank ⌈q·n⌉.
 * @throws {RangeError} On an empty sample.
 */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError("Cannot take a percentile of an empty sample");
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/**
 * Summarises a sample.
 * @param values - The measurements (not modified).
 * @returns Count, p50, p99, mean, min and max.
 * @throws {RangeError} On an empty sample.
 */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: sum / sorted.length,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/**
 * The median of a sample.
 * @param values - The measurements.
 * @returns The middle value (mean of the two middle ones for an even count).
 * @throws {RangeError} On an empty sample.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("Cannot take the median of an empty sample");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * Rounds for display and JSON.
 * @param value - A number.
 * @param digits - Decimal places (default 3).
 * @returns The rounded number.
 */
export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
