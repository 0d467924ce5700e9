/**
 * The gate's view of one server's pins: the engine's comparison of the last walk with the pins, the
 * definition each tool's rules and schema come from (the pinned one for a changed tool), and the pin
 * events a walk reports. Hashing (SHA-256) is done here, at the edge. Edge.
 *
 * Source: SPEC §2.2 (what is pinned, changed and new tools), §2.5 (destinations from the pinned
 * schema), §3.5 (`pin` records).
 * @module
 */

import { createHash } from "node:crypto";
import {
  canonicalToolJson,
  comparePins,
  errorText,
  type PinComparison,
  type Question,
  type ToolDefinition,
} from "../engine/index.ts";
import { BouncerError, isBouncerError } from "../platform/errors.ts";
import type { ServerState } from "./gate-server.ts";
import type { PendingTool, PinEvent } from "./gate-types.ts";
import type { PinStore } from "./memory-pin-store.ts";

/** The pins of a server never pinned (one object, so views stay cached). */
export const NO_PINS: ReadonlyMap<string, ToolDefinition> = new Map();

/** The definition a tool is decided under, and its rules-cache key `[tool, hash]`. */
export interface EffectiveDefinition {
  readonly definition: ToolDefinition;
  readonly key: string;
}

/** One comparison of a walk with the pins it was made against. */
export interface PinView {
  readonly pins: ReadonlyMap<string, ToolDefinition>;
  readonly comparison: PinComparison;
  readonly effective: ReadonlyMap<string, EffectiveDefinition>;
}

/**
 * SHA-256 of a canonical definition, hex (SPEC §2.2).
 *
 * Source: SPEC §2.2 (SHA-256 of the canonical definition).
 * @param text - Canonical JSON.
 * @returns 64 hex digits.
 */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Compares a walk with the pins (never first sight: the walk pins first-sight tools before this).
 *
 * Source: SPEC §2.2, §2.5 (destinations from the pinned schema).
 * @param pins - The server's pins.
 * @param options - The listed tools and the `--pins` mode.
 * @returns The comparison and each listed tool's effective definition.
 */
export function viewPins(
  pins: ReadonlyMap<string, ToolDefinition>,
  options: { readonly listed: readonly ToolDefinition[]; readonly mode: "tofu" | "strict" | "off" },
): PinView {
  const comparison = comparePins(pins, options.listed, {
    hash: sha256,
    firstSight: false,
    mode: options.mode,
  });
  const effective = new Map<string, EffectiveDefinition>();
  for (const [tool, result] of comparison.tools) {
    const pinned = pins.get(tool);
    const definition = result.status.kind === "changed" && pinned !== undefined ? pinned : result.current;
    const hash = definition === result.current ? result.hash : sha256(canonicalToolJson(definition));
    effective.set(tool, { definition, key: JSON.stringify([tool, hash]) });
  }
  return { pins, comparison, effective };
}

/**
 * The changed and new tools of a view, each with the definition compared (a name listed twice is
 * compared by its first differing definition: the one its question shows).
 *
 * Source: SPEC §2.2 ("The pending definition is stored beside the pins").
 * @param view - A walk's view.
 * @returns The definitions waiting for approval, in the upstream's order.
 */
export function pendingOf(view: PinView): PendingTool[] {
  const pending: PendingTool[] = [];
  for (const result of view.comparison.tools.values()) {
    const { kind } = result.status;
    if (kind === "changed" || kind === "new") pending.push({ definition: result.current, kind });
  }
  return pending;
}

/**
 * The pin events of a walk: `pinned` for tools pinned on this first sight, `changed` and `hidden`
 * (new) once per definition, `accepted` when the definition last reported `changed` or `hidden` is
 * found pinned (an accept made elsewhere: `bouncer pins accept`, another instance); a tool back at
 * its pin clears its last event.
 *
 * Source: SPEC §3.5 (`pin` records: pinned, changed, accepted, hidden).
 * @param server - The server name.
 * @param view - The walk's view.
 * @param options - The tools pinned by this walk and the last event per tool (updated).
 * @returns The events, in the upstream's order.
 */
export function walkEvents(
  server: string,
  view: PinView,
  options: { readonly pinnedNow: ReadonlySet<string>; readonly lastEvents: Map<string, string> },
): PinEvent[] {
  const events: PinEvent[] = [];
  // Tools no longer listed are forgotten (a flood of fresh names must not grow this map).
  for (const tool of options.lastEvents.keys()) {
    if (!view.comparison.tools.has(tool)) options.lastEvents.delete(tool);
  }
  for (const [tool, result] of view.comparison.tools) {
    const status = result.status;
    if (status.kind === "unknown") continue;
    if (status.kind === "pinned" && !options.pinnedNow.has(tool)) {
      // The very definition reported changed or hidden is pinned now, by no approval of this
      // instance's (that one marks `accepted:`): accepted from a terminal or by another instance.
      const last = options.lastEvents.get(tool);
      if (last === `changed:${result.hash}` || last === `hidden:${result.hash}`) {
        events.push({ kind: "accepted", server, tool, hash: result.hash, elsewhere: true });
      }
      options.lastEvents.delete(tool);
      continue;
    }
    const kind = status.kind === "new" ? "hidden" : status.kind;
    const mark = `${kind}:${result.hash}`;
    if (options.lastEvents.get(tool) === mark) continue;
    options.lastEvents.set(tool, mark);
    const suspicious = status.kind === "new" ? { suspicious: status.suspicious } : {};
    events.push({ kind, server, tool, hash: result.hash, ...suspicious });
  }
  return events;
}

/** A changed or new tool an answer re-pinned. */
export interface Repinned {
  readonly entry: ServerState;
  readonly tool: string;
  readonly hash: string;
}

/**
 * Re-pins the changed and new tools that an accepted, remembered answer approves: each whose
 * question names the definition the last walk still lists. The caller keeps the answer only once
 * these are written, so that an approval whose pin failed is not kept (the next call asks again).
 *
 * Source: SPEC §2.2 ("Approval re-pins it").
 * @param pins - The pin store.
 * @param options - The gate's servers and the ask's questions.
 * @returns The tools re-pinned, in question order.
 * @throws {BouncerError} When a pin cannot be written: the store's code, a message naming the tool
 *   and saying its approval is not kept.
 */
export async function repinApproved(
  pins: PinStore,
  options: { readonly servers: ReadonlyMap<string, ServerState>; readonly questions: readonly Question[] },
): Promise<Repinned[]> {
  const repinned: Repinned[] = [];
  for (const question of options.questions) {
    if (question.kind !== "changed_tool" && question.kind !== "new_tool") continue;
    const entry = options.servers.get(question.key.server);
    const result = entry?.view?.comparison.tools.get(question.key.tool);
    if (entry === undefined || result === undefined || result.hash !== question.key.identity) continue;
    try {
      await pins.pin(entry.context, [result.current]);
    } catch (error) {
      const detail = errorText(error);
      throw new BouncerError(
        isBouncerError(error) ? error.code : "PINS_UNWRITABLE",
        `Cannot keep the approval of tool ${JSON.stringify(question.key.tool)}, so its next call asks again: ${detail}`,
        { cause: error },
      );
    }
    repinned.push({ entry, tool: question.key.tool, hash: result.hash });
  }
  return repinned;
}
