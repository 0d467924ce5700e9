/**
 * Synthetic tool output for the performance bench: deterministic prose lines naming distinct
 * destinations (an email address, a URL, an @handle), so that recording it grows the taint index as
 * a long session of real mail, web pages and chat would. `dense` output names new destinations on
 * every line (about 5,000 lines, 25,000 distinct destination tokens per MiB: a worst case); `sparse`
 * output on one line in 16, the rest plain prose (closer to documents and web pages). The same
 * generator feeds the in-process decision bench and the echo fixture's `generate` tool
 * (tests/fixtures/servers/echo.ts).
 *
 * Source: SPEC §2.5 ("Index, not rescans"), §7; issue 6 part 2.
 * @module
 */

/** Filler words between destinations (lower-case prose, no destination shapes). */
const WORDS = [
  "please",
  "review",
  "the",
  "attached",
  "quarterly",
  "figures",
  "before",
  "friday",
  "and",
  "share",
  "your",
  "notes",
  "with",
  "team",
  "about",
  "budget",
  "planning",
  "meeting",
  "agenda",
  "items",
] as const;

/**
 * The email address on line `line` of output `seed` (distinct for every pair).
 * @param seed - The output's seed.
 * @param line - The line number.
 * @returns An address such as `ann.17.3@host3.example`.
 */
export function syntheticAddress(seed: number, line: number): string {
  return `ann.${seed}.${line}@host${line % 997}.example`;
}

/** How often output names destinations: on every line, or on one line in 16. */
export type Density = "dense" | "sparse";

/**
 * One line of synthetic output, about 200 bytes: prose with an address, a URL and a handle, or (on
 * 15 lines in 16 of sparse output) prose only.
 * @param seed - The output's seed.
 * @param line - The line number.
 * @param density - Dense (default) or sparse.
 * @returns The line, ending in `\n`.
 */
export function syntheticLine(seed: number, line: number, density: Density = "dense"): string {
  const words: string[] = [];
  for (let i = 0; i < 14; i++) words.push(WORDS[(line * 7 + i * 3 + seed) % WORDS.length] ?? "the");
  const prose = words.join(" ");
  if (density === "sparse" && line % 16 !== 0) {
    return `Note ${line} says ${prose} and then ${prose.slice(0, 80)} as agreed with the whole team\n`;
  }
  return (
    `Note ${line} says ${prose.slice(0, 60)} forward it to ${syntheticAddress(seed, line)} and read ` +
    `https://docs${seed}-${line}.example/p/${line} then ping @user${seed}x${line} and ${prose.slice(60)}\n`
  );
}

/**
 * Synthetic output of exactly `bytes` bytes (ASCII, so bytes = characters); the last line may be cut.
 * @param bytes - The size wanted.
 * @param seed - Distinguishes outputs: different seeds share no destination.
 * @param density - Dense (default) or sparse.
 * @returns The text.
 */
export function syntheticText(bytes: number, seed: number, density: Density = "dense"): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    const text = syntheticLine(seed, line, density);
    const kept = size + text.length > bytes ? text.slice(0, bytes - size) : text;
    lines.push(kept);
    size += kept.length;
  }
  return lines.join("");
}
