/**
 * The body of a PEM private key written line by line: the token-shape rule sees one line (or one
 * write) at a time, so a key whose `-----BEGIN … PRIVATE KEY-----` line came earlier showed its
 * body. A tracker remembers that a key is open and hides the lines until its END line. Shared by
 * the upstream's stderr drain and its stdout noise. Edge (pure string work; the only state is one
 * tracker's flag).
 *
 * Source: SPEC §3.3 (stderr, noise), §3.5 (strings shaped like known tokens are redacted);
 * redaction review of session 18 (a key's body on stderr), finding of the noise review (on stdout).
 * @module
 */

/** The first line of a PEM private key. */
const PEM_BEGIN = /-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----/gi;
/** The last line of a PEM private key. */
const PEM_END = /-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----/i;

/** What a hidden line becomes. */
const HIDDEN = "[redacted]";

/**
 * Whether a text leaves a PEM private key open: its last `-----BEGIN … PRIVATE KEY-----` has no
 * `-----END … PRIVATE KEY-----` after it.
 *
 * Source: SPEC §3.5.
 * @param text - Text.
 * @returns True when the key's body goes on after the text.
 */
export function opensPrivateKey(text: string): boolean {
  if (!text.includes("-----")) return false;
  let last = -1;
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m !== null; m = PEM_BEGIN.exec(text)) last = m.index + m[0].length;
  return last !== -1 && !PEM_END.test(text.slice(last));
}

/**
 * A text with a key body cut off from its start hidden: up to an END line that no BEGIN line comes
 * before, or the whole text when a key is still open and its BEGIN line is not in it.
 *
 * Source: SPEC §3.5; redaction review of session 18 (the stderr tail).
 * @param text - Text that may start inside a key (a kept tail).
 * @param open - Whether a key is open at the text's end.
 * @returns The text to redact.
 */
export function keyBodyCut(text: string, open: boolean): string {
  PEM_BEGIN.lastIndex = 0;
  const begin = PEM_BEGIN.exec(text);
  const end = PEM_END.exec(text);
  if (end !== null && (begin === null || begin.index > end.index))
    return `${HIDDEN}${text.slice(end.index + end[0].length)}`;
  if (open && begin === null) return HIDDEN;
  return text;
}

/** A tracker of a PEM private key written across lines. */
export interface PrivateKeyLines {
  /**
   * Hides whole lines of a key that began in an earlier text, up to its END line, and notes
   * whether this text leaves a key open (its BEGIN line is left for the token shapes to hide).
   * @param text - The next whole lines (or line).
   * @returns The text with such lines as `[redacted]`.
   */
  readonly hide: (text: string) => string;
  /** Whether a key is open after the texts seen so far. */
  readonly open: () => boolean;
}

/**
 * Starts a tracker of PEM private keys written line by line ({@link PrivateKeyLines}).
 *
 * Source: SPEC §3.3, §3.5.
 * @returns The tracker, no key open.
 * @example const keys = privateKeyLines(); keys.hide("-----BEGIN PRIVATE KEY-----"); keys.hide("MIIE") // => "[redacted]"
 */
export function privateKeyLines(): PrivateKeyLines {
  let inKey = false;
  return {
    hide(text) {
      let out = text;
      if (inKey) {
        const end = PEM_END.exec(out);
        if (end === null) return out.replace(/[^\n]+/g, HIDDEN);
        out = `${HIDDEN}${out.slice(end.index + end[0].length)}`;
        inKey = false;
      }
      inKey = opensPrivateKey(out);
      return out;
    },
    open: () => inKey,
  };
}
