/**
 * The sink gate (SPEC §2.5 "deny unless trusted"): for an exfiltrating tool, every destination is
 * trusted, or it is denied (tainted, or declined before) or asked about (seen, unproven). Pure.
 * @module
 */

import { rememberedAnswer } from "./answers.ts";
import {
  type DestinationPiece,
  type DestinationValue,
  destinationPieces,
  selectDestinations,
} from "./destinations.ts";
import { type Identity, identify, type UrlIdentity } from "./identity.ts";
import { type ArgumentKeys, createArgumentKeys } from "./param-paths.ts";
import { type MessageSubject, renderDestination, sinkMessages } from "./sink-messages.ts";
import { type EngineState, NO_OBJECTION, uniqueAsks } from "./state.ts";
import { lookupToken, searchRecent } from "./taint-lookup.ts";
import { matchTrusted } from "./trust.ts";
import type { ApprovalKey, CallInput, ContractResult, Evidence, Question, Reason } from "./types.ts";

/** Evidence shown per destination, at most. */
const MAX_EVIDENCE = 3;

/** Where a destination's identity occurred in untrusted output. */
interface Occurrences {
  /** Occurrences that taint: free text (identity long enough), and field values under `strict`. */
  readonly tainting: Evidence[];
  /** Occurrences that only show provenance: field values, definitions, too-short free text. */
  readonly seen: Evidence[];
}

/** The call being decided and the session it is decided in. */
interface Gate {
  readonly input: CallInput;
  readonly state: EngineState;
}

/** One destination being classified: where it came from, its piece, and its identity. */
interface Target {
  readonly dest: DestinationValue;
  readonly piece: DestinationPiece;
  readonly identity: Identity;
}

/** Finds the identity in the token index (and other processes' index), or else in the window. */
function occurrences(gate: Gate, identity: Identity): Occurrences {
  const { rules, externalTaint } = gate.input;
  const strict = rules.taintFields.value === "strict";
  const found: Occurrences = { tainting: [], seen: [] };
  // SPEC §2.5: the identity is what must be `taint_min_length` long — a URL's is its origin
  // (`https://x.gd`), however short the host it is looked up by.
  const length = (key: string): number => (identity.kind === "url" ? identity.id.length : key.length);
  const add = (evidence: Evidence | undefined, key: string): void => {
    if (evidence === undefined) return;
    const free = evidence.kind === "free_text" && length(key) >= rules.taintMinLength;
    const taints = free || (strict && evidence.kind === "field");
    (taints ? found.tainting : found.seen).push(evidence);
  };
  for (const key of identity.keys) {
    const local = lookupToken(gate.state.taint, key);
    add(local?.free, key);
    add(local?.field, key);
    add(local?.definition, key);
    if (identity.token && externalTaint !== undefined) {
      for (const evidence of externalTaint(key)) add(evidence, key);
    }
  }
  if (!identity.token && found.tainting.length === 0) {
    const hits = searchRecent(gate.state.taint, identity.id);
    add(hits.free, identity.id);
    add(hits.field, identity.id);
    add(hits.definition, identity.id);
  }
  return found;
}

/**
 * The approval key of a destination (SPEC §2.5 "Approvals"): for a URL, the exact canonical URL with
 * its query (the origin is offered as "whole site"); for a value that was already canonical, its
 * identity; for any other value — a URL that is never trusted (backslash, userinfo, or only its
 * canonical form parses) included — the raw value as written (trimmed and lower-cased; a URL's path,
 * query and fragment keep their case, {@link urlAsWritten}), so that approving it never covers a
 * different spelling that canonicalises to the same identity, nor `https://u@h.example/a` when `/A`
 * was approved, while a decline still covers `HTTPS://u@H.example/A`.
 */
function approvalKey(input: CallInput, target: Target): ApprovalKey {
  const { identity, piece } = target;
  const isUrl = identity.kind === "url";
  const id = approvableUrl(identity)
    ? identity.href
    : isUrl
      ? urlAsWritten(piece.raw)
      : piece.eligible
        ? identity.id
        : piece.raw.toLowerCase();
  return { server: input.server, tool: input.tool, param: target.dest.param, identity: id };
}

/**
 * The key a decline of a destination is also remembered under (SPEC §2.5: "A decline is remembered
 * the same way", keyed by identity): its identity — for a URL, its canonical URL with its query —
 * when the approval key is its spelling instead; undefined when the two are one.
 * @param key - The destination's approval key ({@link approvalKey}).
 * @param identity - Its identity.
 * @returns The identity's key, or undefined.
 */
function identityKey(key: ApprovalKey, identity: Identity): ApprovalKey | undefined {
  const id = identity.kind === "url" ? identity.href : identity.id;
  return id === key.identity ? undefined : { ...key, identity: id };
}

/** A scheme and `//` authority as written, up to the path, query or fragment. */
const SCHEME_AND_AUTHORITY = /^[^:/?#]+:\/\/[^/?#]*/;

/**
 * A URL's text as written with its scheme and authority lower-cased (case-insensitive there), its
 * path, query and fragment as written (servers tell `/A` from `/a`).
 * @param raw - The trimmed raw value.
 * @returns The key text; a value without `scheme://` is returned as written.
 * @example urlAsWritten("HTTPS://u@H.example/A?q=B") // => "https://u@h.example/A?q=B"
 */
function urlAsWritten(raw: string): string {
  const head = SCHEME_AND_AUTHORITY.exec(raw)?.[0];
  return head === undefined ? raw : `${head.toLowerCase()}${raw.slice(head.length)}`;
}

/**
 * Whether a URL destination may be approved as a URL (exactly, or its whole site): only a URL that
 * could be trusted — parsed from its raw value, with no backslash or userinfo on which URL parsers
 * disagree (`https://hooks.example\\@evil.example/`). Any other value is approved as written only.
 */
function approvableUrl(identity: Identity): identity is UrlIdentity {
  return identity.kind === "url" && !identity.fromCanonical && identity.trustable;
}

/** What the gate concluded about one destination. */
type Finding =
  | { readonly kind: "trusted" }
  | { readonly kind: "deny"; readonly reason: Reason }
  | { readonly kind: "ask"; readonly reason: Reason; readonly question: Question };

/** What an ask says: its reason code, the reason's and the question's sentences, the evidence. */
interface AskText {
  readonly code: string;
  readonly message: string;
  readonly question: string;
  readonly evidence: readonly Evidence[];
}

/** Classifies one destination (SPEC §2.5 "Classification"), remembered answers included. */
function classify(gate: Gate, target: Target): Finding {
  const { input } = gate;
  const { dest, piece, identity } = target;
  // Looked up once, and only when needed (a trusted destination is not looked up).
  let found: Occurrences | undefined;
  const lookup = (): Occurrences => {
    found ??= occurrences(gate, identity);
    return found;
  };
  // An address inside a URL objects only when tainted; the URL itself is decided on its own.
  if (piece.taintOnly === true && lookup().tainting.length === 0) return { kind: "trusted" };
  if (piece.eligible && matchTrusted(identity, input.rules.trustedDestinations) !== undefined) {
    return { kind: "trusted" };
  }
  const key = approvalKey(input, target);
  const declineKey = identityKey(key, identity);
  const origin = approvableUrl(identity) ? identity.origin : undefined;
  const about = { server: input.server, tool: input.tool, path: dest.path, raw: piece.raw, identity };
  const subject: MessageSubject = { ...about, shown: renderDestination(about) };
  const base = { path: dest.path, source: dest.source };
  const withDecline = declineKey === undefined ? {} : { declineKey };
  const remembered = {
    kind: "destination",
    key,
    ...(origin === undefined ? {} : { origin }),
    ...withDecline,
  } as const;
  const answer = rememberedAnswer(gate.state, remembered, input.oneTimeApprovals);
  if (answer === "declined") {
    return {
      kind: "deny",
      reason: { ...base, code: "sink_declined", message: sinkMessages.declined(subject) },
    };
  }
  if (answer === "approved") return { kind: "trusted" };
  const ask = (text: AskText): Finding => {
    const shown = text.evidence.length > 0 ? { evidence: text.evidence.slice(0, MAX_EVIDENCE) } : {};
    const withOrigin = origin === undefined ? {} : { origin };
    return {
      kind: "ask",
      reason: { ...base, code: text.code, message: text.message, ...shown },
      question: { kind: "destination", message: text.question, key, ...withOrigin, ...withDecline, ...shown },
    };
  };
  const { tainting, seen } = lookup();
  const [first] = tainting;
  if (first !== undefined) {
    const message =
      first.kind === "field"
        ? sinkMessages.taintedField(subject, first)
        : sinkMessages.tainted(subject, first);
    if (input.rules.onTainted.value === "deny") {
      return {
        kind: "deny",
        reason: { ...base, code: "sink_tainted", message, evidence: tainting.slice(0, MAX_EVIDENCE) },
      };
    }
    const question = sinkMessages.taintedQuestion(subject, first, origin);
    return ask({ code: "sink_tainted", message, question, evidence: tainting });
  }
  const [shown] = seen;
  if (shown !== undefined) {
    const question = sinkMessages.seenQuestion(subject, shown);
    return ask({ code: "sink_seen", message: sinkMessages.seen(subject, shown), question, evidence: seen });
  }
  const question = sinkMessages.unprovenQuestion(subject);
  return ask({ code: "sink_unproven", message: sinkMessages.unproven(subject), question, evidence: [] });
}

/**
 * Evaluates the sink gate for one call. Only tools whose effective `exfiltrating` is true are gated.
 * Destinations are selected from the pinned schema, flattened and split; each is classified in
 * order: trusted (an already-canonical value matching `trusted_destinations`, or a remembered or
 * one-time approval) → nothing; remembered decline → deny `sink_declined`; tainted (its identity, at
 * least `taint_min_length` long, in free text of untrusted output; field values too under
 * `taint_fields: strict`) → deny `sink_tainted` with evidence, or an ask under `on_tainted: ask`;
 * seen (field value or definition only) → ask `sink_seen` with provenance; unproven → ask
 * `sink_unproven`. An address written inside a URL objects only when tainted. One question per
 * destination; a call without destination values has no objection.
 *
 * Source: SPEC §2.5 "Sink gate — deny unless trusted", §2.6.
 * @param input - The call, its rules, pinned schema, one-time approvals and cross-process taint lookup.
 * @param state - The session state (approvals, taint store); only read (the work counter counts).
 * @param keys - The call's folded argument keys, shared with the constraints (default: its own).
 * @returns Every deny and every ask of the gate; the caller combines them (deny beats ask).
 * @example evaluateSinkGate(input, state).denies[0]?.code // "sink_tainted"
 */
export function evaluateSinkGate(
  input: CallInput,
  state: EngineState,
  keys: ArgumentKeys = createArgumentKeys(),
): ContractResult {
  const { rules } = input;
  if (rules.exfiltrating?.value !== true) return NO_OBJECTION;
  const values = selectDestinations(input.arguments, {
    tool: input.tool,
    schema: input.schema,
    sinkParams: rules.sinkParams,
    heuristics: rules.heuristics,
    paramPaths: rules.compiled?.paramPaths,
    keys,
  });
  const denies: Reason[] = [];
  const asks: { reason: Reason; question: Question }[] = [];
  const done = new Set<string>();
  for (const dest of values) {
    for (const piece of destinationPieces(dest.value, { sink: true })) {
      // JSON, never a join: a parameter and a value may both hold any character. A taint-only
      // piece does not stand for a full one of the same value (which may ask).
      const once = JSON.stringify([dest.param, piece.raw, piece.taintOnly === true]);
      if (done.has(once)) continue;
      done.add(once);
      const finding = classify(
        { input, state },
        { dest, piece, identity: identify(piece.decoded === true ? undefined : piece.raw, piece.canonical) },
      );
      if (finding.kind === "deny") denies.push(finding.reason);
      else if (finding.kind === "ask") asks.push({ reason: finding.reason, question: finding.question });
    }
  }
  return { denies, asks: uniqueAsks(asks) };
}
