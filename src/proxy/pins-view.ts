/**
 * How `bouncer pins` shows a pending or accepted definition on a terminal: its change from the pin
 * it replaces (as an ask shows it, with a terminal's limits, naming `bouncer pins list --full` when
 * something is left out), or everything (`--full`: every changed line and stretch whole, then the
 * definition itself). Untrusted text is always rendered safely. Edge (pure).
 *
 * Source: SPEC §2.2 ("saying what changed"), §3.4 (rendering untrusted strings), §5.7.
 * @module
 */

import { describePinDiff, diffToolDefinitions, listCommand } from "../engine/index.ts";
import type { PinRecord } from "./pin-file.ts";

/** What a terminal shows of a change (more than an ask's form: 20 lines, 200 characters). */
const TERMINAL_LIMITS = { maxLines: 200, maxChars: 2000 } as const;
/** What `--full` shows: everything. */
const NO_LIMITS = { maxLines: Number.POSITIVE_INFINITY, maxChars: Number.POSITIVE_INFINITY } as const;

/**
 * What accepting a definition changes (or changed): the difference from the pin it replaces, or
 * for a new tool from no definition at all (its description lines, properties and annotations, all
 * as added).
 *
 * Source: SPEC §2.2, §3.4.
 * @param record - The pending (or accepted) definition.
 * @param options - The pin it replaces, if any; the server (for the `--full` command); `full`: no
 *   limits.
 * @returns Multi-line text, untrusted text rendered safely.
 */
export function changeView(
  record: PinRecord,
  options: { readonly replaced?: PinRecord; readonly server: string; readonly full?: boolean },
): string {
  const before = options.replaced?.definition ?? { name: record.name };
  const limits =
    options.full === true
      ? NO_LIMITS
      : { ...TERMINAL_LIMITS, seeAll: listCommand(options.server, { full: true }) };
  const text = describePinDiff(diffToolDefinitions(before, record.definition), limits);
  return options.replaced === undefined ? text.replace(/^Changed: /, "New: ") : text;
}

/**
 * A definition in full, as indented JSON with every character a terminal could act on or hide —
 * anything but printable ASCII — written `\u{…}` (SPEC §3.4); nothing is cut.
 *
 * Source: SPEC §2.2, §3.4.
 * @param definition - The stored definition (untrusted).
 * @returns Multi-line text.
 */
export function fullDefinition(definition: unknown): string {
  return JSON.stringify(definition, null, 2).replace(
    /[^\x20-\x7e\n]/gu,
    (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`,
  );
}

/**
 * Indents each line by two spaces.
 * @param text - Lines.
 * @returns The indented text.
 */
export function indent(text: string): string {
  return text.replace(/^/gm, "  ");
}
