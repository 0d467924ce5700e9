/**
 * Salvaging a JSON-RPC message from an upstream line that does not parse (SPEC §3.3: noise is
 * skipped, never fatal): what follows a text prefix or a cut-off message. Pure.
 *
 * Source: SPEC §3.3; F03.
 * @module
 */

/** How many `{"jsonrpc"` starts of one line `salvage` tries at most (a hostile line has many). */
const SALVAGE_TRIES = 4;

/** Where a JSON-RPC message starts (every message Bouncer relays is an object with `jsonrpc` first). */
const START = '{"jsonrpc"';

/**
 * The JSON-RPC message at the end of a line that does not parse, else undefined:
 * - after a text prefix (`Server started{"jsonrpc":…}`): the first `{"jsonrpc"` start, when the
 *   line does not begin with it;
 * - after a message cut off half-way and written again (`{"jsonrpc":"2.0","id":3,"res{"jsonrpc":
 *   "2.0","id":3,"result":…}`): a later start whose text begins with the whole cut-off copy before
 *   it, so that a message nested in another's cut-off text (`"log":[{"jsonrpc":…,"id":2,…}]`) is
 *   never taken for an answer of its own. At most {@link SALVAGE_TRIES} starts are tried.
 *
 * Source: SPEC §3.3 (framing: noise is skipped, never fatal); F03; review of `bouncer run` (an
 * answer glued to a half-written line left its call waiting; a nested message answered a call).
 * @param line - An upstream line that is not JSON.
 * @returns Where the message starts and the message, or `at: -1` and no message.
 */
export function salvage(line: string): { at: number; salvaged: unknown } {
  const first = line.indexOf(START);
  if (first === -1) return { at: -1, salvaged: undefined };
  if (first > 0) {
    const salvaged = tryParse(line.slice(first));
    if (salvaged !== undefined) return { at: first, salvaged };
  }
  let previous = first;
  let at = line.indexOf(START, first + 1);
  for (let tries = 0; at > 0 && tries < SALVAGE_TRIES; tries++) {
    const rest = line.slice(at);
    if (rest.startsWith(line.slice(previous, at))) {
      const salvaged = tryParse(rest);
      if (salvaged !== undefined) return { at, salvaged };
    }
    previous = at;
    at = line.indexOf(START, at + 1);
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
