/**
 * Salvaging a JSON-RPC message from an upstream line that does not parse (SPEC §3.3: noise is
 * skipped, never fatal): what follows a text prefix or a cut-off message. Pure.
 *
 * Source: SPEC §3.3; F03.
 * @module
 */

/** How many `{"jsonrpc"` starts of one line `salvage` tries at most (a hostile line has many). */
const SALVAGE_TRIES = 4;

/**
 * The JSON-RPC message at the end of a line that does not parse: after a text prefix (`Server
 * started{"jsonrpc":…}`), or after a message cut off half-way and written again (`{"jsonrpc":"2.0",
 * "id":3,"res{"jsonrpc":"2.0","id":3,"result":…}`), else undefined. Tries the first
 * {@link SALVAGE_TRIES} places where `{"jsonrpc"` starts after the line's first character.
 *
 * Source: SPEC §3.3 (framing: noise is skipped, never fatal); F03; review of `bouncer run` (an
 * answer glued to a half-written line left its call waiting).
 * @param line - An upstream line that is not JSON.
 * @returns Where the message starts and the message, or `at: -1` and no message.
 */
export function salvage(line: string): { at: number; salvaged: unknown } {
  let at = line.indexOf('{"jsonrpc"', 1);
  for (let tries = 0; at > 0 && tries < SALVAGE_TRIES; tries++) {
    const salvaged = tryParse(line.slice(at));
    if (salvaged !== undefined) return { at, salvaged };
    at = line.indexOf('{"jsonrpc"', at + 1);
  }
  return { at: -1, salvaged: undefined };
}

/**
 * Parses JSON, or returns undefined.
 * @param text - Candidate JSON.
 * @returns The value, or undefined.
 */
function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
