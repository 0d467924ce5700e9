/**
 * The `bouncer pins accept` command line Bouncer tells a person to run for one pending definition:
 * bound to that definition by `--hash` (an accept never takes a definition other than the one the
 * person was shown), with names written as shell words that a shell takes literally. Pure.
 *
 * Source: SPEC §2.2 ("Without a way to ask, every pinning ask denies, naming `bouncer pins accept
 * SERVER TOOL`"), §5.7.
 * @module
 */

import { renderUntrusted } from "./render.ts";

/** Hex digits of a definition's hash in the accept commands Bouncer prints (64 bits). */
export const ACCEPT_HASH_DIGITS = 16;

/** Characters a POSIX shell takes literally outside quotes. */
const BARE = /^[A-Za-z0-9_./:@%+=,-]+$/;
/** Printable ASCII: safe inside single quotes (a `'` is written `'\''`). */
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * A string as one shell word a POSIX shell reads back exactly: as it is when it holds only
 * characters the shell takes literally, in single quotes when it is other printable ASCII, and
 * undefined when it holds anything else (control, invisible or non-ASCII characters cannot be shown
 * in a command a person copies safely).
 *
 * Source: SPEC §3.4 (untrusted text is never shown raw).
 * @param value - Any string (a tool name is the upstream's: hostile).
 * @returns The shell word, or undefined.
 * @example shellWord("it's") // "'it'\\''s'"
 */
export function shellWord(value: string): string | undefined {
  if (BARE.test(value)) return value;
  if (!PRINTABLE.test(value)) return undefined;
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * The command that accepts one pending definition: `bouncer pins accept SERVER TOOL --hash PREFIX`
 * with the first {@link ACCEPT_HASH_DIGITS} hex digits of its hash, and `--id ID` when the server
 * name is pinned under several identities. A tool name that is no safe shell word is left out
 * (`--hash` alone names the definition); a server name that is none is rendered as an untrusted
 * string (the person chose it, and must type it). When a name starts with `-`, the flags come first
 * and `--` before the names, so that the name is not read as a flag.
 *
 * Source: SPEC §2.2, §5.7.
 * @param server - The server name (`--upstream-name`).
 * @param options - The tool name, the definition's hash (hex) and, when the name has several
 *   identities, the file id of this one.
 * @returns The command line.
 * @example acceptCommand("mail", { tool: "send", hash: "ab".repeat(32) }) // "bouncer pins accept mail send --hash abababababababab"
 */
export function acceptCommand(
  server: string,
  options: { readonly tool: string; readonly hash: string; readonly id?: string },
): string {
  const name = shellWord(server) ?? renderUntrusted(server);
  const tool = shellWord(options.tool);
  const hash = options.hash.slice(0, ACCEPT_HASH_DIGITS);
  const id = options.id === undefined ? "" : ` --id ${options.id}`;
  const words = tool === undefined ? [name] : [name, tool];
  // A name starting with "-" would be read as a flag: the flags first, then "--" and the names.
  if (words.some((word) => word.startsWith("-"))) {
    return `bouncer pins accept --hash ${hash}${id} -- ${words.join(" ")}`;
  }
  return `bouncer pins accept ${words.join(" ")} --hash ${hash}${id}`;
}

/**
 * The command that lists a server's pins and pending definitions: `bouncer pins list SERVER`, or
 * with `full`, `bouncer pins list --full SERVER` (every changed line whole, and each pending
 * definition in full); `--` before a name that starts with `-`.
 *
 * Source: SPEC §5.7, §2.2 ("saying what changed").
 * @param server - The server name.
 * @param options - `full`: the command that shows everything.
 * @returns The command line.
 */
export function listCommand(server: string, options: { readonly full?: boolean } = {}): string {
  const full = options.full === true ? "--full " : "";
  const name = shellWord(server) ?? renderUntrusted(server);
  return `bouncer pins list ${full}${name.startsWith("-") ? "-- " : ""}${name}`;
}
