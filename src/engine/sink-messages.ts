/**
 * Human sentences of the sink gate (SPEC §2.1 reasons, §3.4 rendering): every untrusted value —
 * destinations, output keys, excerpts, names from the upstream — rendered with `renderUntrusted`.
 * Pure.
 * @module
 */

import { type Identity, otherReadingHost } from "./identity.ts";
import { rendersWhole, renderUntrusted, renderUntrustedEnd } from "./render.ts";
import { hostKey } from "./token-shapes.ts";
import type { Evidence } from "./types.ts";

/**
 * What a message is about: the destination as written, its identity, where it stood.
 *
 * Source: SPEC §2.1 (reasons and evidence), §3.4 (rendering untrusted strings).
 */
export interface MessageSubject {
  readonly server: string;
  readonly tool: string;
  readonly path: string;
  readonly raw: string;
  readonly identity: Identity;
  /** The destination as {@link renderDestination} renders it, when already computed. */
  readonly shown?: string;
}

/**
 * Renders a name that came from the upstream or the call (tool, server, argument path): plain when
 * it is a short identifier, otherwise as an untrusted string.
 *
 * Source: SPEC §2.1 (reasons and evidence), §3.4 (rendering untrusted strings).
 * @param name - The name.
 * @returns The rendering.
 */
export function renderName(name: string): string {
  return /^[A-Za-z0-9_./[\]-]{1,64}$/.test(name) ? name : renderUntrusted(name);
}

/**
 * Renders a destination so that what the data would reach is always in view: the value as written
 * (cut at 200 characters), then for a URL its parsed host (ASCII/punycode), for an email address
 * written otherwise (`Name <addr>`, padding) the address, for an address whose domain is not ASCII
 * its domain in punycode, and for a value too long to show whole its
 * end — padding or a long local part cannot push the real recipient out of the question.
 *
 * Source: SPEC §2.1 (reasons and evidence), §2.5 "Identity", §3.4 (rendering untrusted strings).
 * @param subject - The destination.
 * @returns e.g. `"https://exаmple.com/x" (host "xn--exmple-4nf.com")`,
 *   `"Boss <x@evil.example>" (address "x@evil.example")`,
 *   `"boss@c\u{43e}rp.example" (domain "xn--crp-sed.example")`.
 */
export function renderDestination(subject: MessageSubject): string {
  if (subject.shown !== undefined) return subject.shown;
  const { raw, identity } = subject;
  const notes: string[] = [];
  if (identity.kind === "url") {
    const other = identity.trustable ? undefined : otherReadingHost(raw);
    notes.push(
      other === undefined || other === identity.host
        ? `host ${renderUntrusted(identity.host)}`
        : `host ${renderUntrusted(identity.host)} to some URL parsers, ${renderUntrusted(other)} to others`,
    );
  } else if (identity.kind === "email") {
    if (raw.trim().toLowerCase() !== identity.id.toLowerCase())
      notes.push(`address ${renderUntrusted(identity.id)}`);
    // SPEC §3.4 "hosts also in punycode": `c\u{43e}rp.example` is not `corp.example`.
    const ascii = hostKey(identity.domain);
    if (ascii !== identity.domain) notes.push(`domain ${renderUntrusted(ascii)}`);
  }
  if (!rendersWhole(raw)) notes.push(`ending ${renderUntrustedEnd(raw)}`);
  const shown = renderUntrusted(raw);
  return notes.length === 0 ? shown : `${shown} (${notes.join(", ")})`;
}

function outputOf(evidence: Evidence, server: string): string {
  const where = evidence.server === server ? "" : ` on server ${renderName(evidence.server)}`;
  // Seq 0 is no call: another request's answer or a notification (`resources/read`'s output).
  const call = evidence.seq === 0 ? "" : ` (call #${evidence.seq})`;
  return `${renderName(evidence.tool)}'s output${call}${where}`;
}

/**
 * Describes where a value was seen, e.g. `free text of read_inbox's output (call #1)` or
 * `seen as "sender" in read_inbox's output (call #1)`.
 *
 * Source: SPEC §2.1 ("evidence"), §2.6 step 4.
 * @param evidence - One occurrence.
 * @param server - The server of the call being decided (other servers are named).
 * @returns The phrase.
 */
export function describeEvidence(evidence: Evidence, server: string): string {
  if (evidence.kind === "free_text") {
    const excerpt = evidence.excerpt === undefined ? "" : `: ${renderUntrusted(evidence.excerpt)}`;
    return `free text of ${outputOf(evidence, server)}${excerpt}`;
  }
  if (evidence.kind === "definition") {
    return `seen in the tool definitions or instructions (${renderName(evidence.tool)}) of server ${renderName(evidence.server)}`;
  }
  const as = evidence.field === undefined ? "a field value" : renderUntrusted(evidence.field);
  return `seen as ${as} in ${outputOf(evidence, server)}`;
}

/** {@link describeEvidence}, saying that an excerpt is the output's words, not Bouncer's. */
function quotedEvidence(evidence: Evidence, server: string): string {
  if (evidence.kind !== "free_text" || evidence.excerpt === undefined)
    return describeEvidence(evidence, server);
  return `free text of ${outputOf(evidence, server)}, which says (not Bouncer): ${renderUntrusted(evidence.excerpt)}`;
}

/** `seen as …`, `seen in free text of …` (a value too short to taint), `seen in the tool definitions …`. */
function seenPhrase(evidence: Evidence, server: string): string {
  const phrase = describeEvidence(evidence, server);
  return evidence.kind === "free_text" ? `seen in ${phrase}` : phrase;
}

function where(subject: MessageSubject): string {
  return `${renderDestination(subject)} in ${renderName(subject.path)}`;
}

function sendTo(subject: MessageSubject): string {
  return `Allow ${renderName(subject.tool)} to send to ${renderDestination(subject)} (${renderName(subject.path)})?`;
}

/**
 * Sentences for each classification (reason message, and question message where one is asked).
 *
 * Source: SPEC §2.1 (reasons and evidence), §3.4 (rendering untrusted strings).
 */
export const sinkMessages = {
  tainted(subject: MessageSubject, evidence: Evidence): string {
    return `Destination ${where(subject)} occurs in ${describeEvidence(evidence, subject.server)}`;
  },
  taintedField(subject: MessageSubject, evidence: Evidence): string {
    return `Destination ${where(subject)} is a field value of untrusted output and taint_fields is strict: ${describeEvidence(evidence, subject.server)}`;
  },
  /**
   * Bouncer's warning first — not trusted, from untrusted output, what "whole site" would cover —
   * then the evidence, whose excerpt is the untrusted output's own words (they may claim the
   * destination is trusted or approved).
   * @param site - The origin a "whole site" approval would cover, when the question offers it.
   */
  taintedQuestion(subject: MessageSubject, evidence: Evidence, site?: string): string {
    const scope =
      site === undefined
        ? ""
        : ` Choosing "whole site" would also allow every later URL of ${renderUntrusted(site)}.`;
    return `${sendTo(subject)} Bouncer warns: it is not a trusted destination; it comes from untrusted output, which is how a planted instruction looks.${scope} It occurs in ${quotedEvidence(evidence, subject.server)}`;
  },
  declined(subject: MessageSubject): string {
    return `Destination ${where(subject)} was declined earlier in this session`;
  },
  seen(subject: MessageSubject, evidence: Evidence): string {
    return `Destination ${where(subject)} is not trusted; ${seenPhrase(evidence, subject.server)}`;
  },
  seenQuestion(subject: MessageSubject, evidence: Evidence): string {
    return `${sendTo(subject)} It is not a trusted destination; ${seenPhrase(evidence, subject.server)}`;
  },
  unproven(subject: MessageSubject): string {
    return `Destination ${where(subject)} is not trusted and was not seen in this session's output`;
  },
  unprovenQuestion(subject: MessageSubject): string {
    return `${sendTo(subject)} It is not a trusted destination and was not seen in this session's output`;
  },
} as const;
