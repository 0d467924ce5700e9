/**
 * Pinning (SPEC §2.2): canonical definitions, the comparison of a server's current tool list with its
 * pins, and the pinning contract of a call. Pure: hashing (SHA-256) and persistence are the edge's;
 * the hash function is injected.
 * @module
 */

import { acceptCommand, listCommand } from "./accept-command.ts";
import { canonicalJson } from "./canonical-json.ts";
import { hasSuspiciousInvisible } from "./invisible.ts";
import { diffToolDefinitions } from "./pin-diff.ts";
import { describePinDiff, summarizePinDiff } from "./pin-diff-render.ts";
import { renderUntrusted } from "./render.ts";
import { NO_OBJECTION } from "./state.ts";
import type { CallInput, ContractResult, PinStatus, Question, Reason, ToolDefinition } from "./types.ts";

/** The version of the pin hash scheme: SHA-256 over {@link canonicalToolJson}'s text (SPEC §2.2). */
export const PIN_HASH_SCHEME = 1;

/** Options of {@link comparePins}. */
export interface ComparePinsOptions {
  /** Hashes a canonical definition (the edge passes SHA-256, hex). */
  readonly hash: (canonical: string) => string;
  /** True on the first walk of a server that has no pin file yet ("first sight"). */
  readonly firstSight: boolean;
  /** `--pins` mode (default `tofu`); under `strict` first sight pins nothing. */
  readonly mode?: "tofu" | "strict" | "off";
}

/** What {@link comparePins} says about one tool the upstream lists. */
export interface ToolPinResult {
  /** The current definition (the first one listed under the name). */
  readonly current: ToolDefinition;
  readonly canonical: string;
  readonly hash: string;
  readonly status: PinStatus;
}

/** The result of {@link comparePins}. */
export interface PinComparison {
  /** Per tool name the upstream lists now. A name absent here is `unknown` to a call. */
  readonly tools: ReadonlyMap<string, ToolPinResult>;
  /** What the client's `tools/list` shows, in upstream order: pinned definitions for changed tools, new tools hidden. */
  readonly visible: readonly ToolDefinition[];
  /** First-sight definitions to pin now (the edge persists them, except under `off`). */
  readonly pinNow: readonly ToolDefinition[];
  /** Pinned names the upstream no longer lists. */
  readonly removed: readonly string[];
}

/**
 * The canonical text of a tool definition: sorted-key JSON over name, title, description,
 * inputSchema, outputSchema and annotations (absent fields left out). Its SHA-256 is the pin hash.
 *
 * Source: SPEC §2.2 "What is pinned"; STYLE #7.
 * @param def - A tool definition (hostile keys are fine: only own properties are read).
 * @returns The canonical JSON text (at any nesting depth: `canonicalJson` is iterative).
 * @example canonicalToolJson({ name: "t", description: "d" }) // '{"description":"d","name":"t"}'
 */
export function canonicalToolJson(def: ToolDefinition): string {
  return canonicalJson({
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: def.inputSchema,
    outputSchema: def.outputSchema,
    annotations: def.annotations,
  });
}

/**
 * Whether a definition holds, in any key or string of its pinned fields (names, descriptions,
 * schema keys), a tag, zero-width, bidi control or other invisible character, a variation selector
 * that is not an emoji's presentation, or a control character that can hide text in a terminal
 * (escape, backspace, a lone carriage return): see `invisible.ts`.
 *
 * Source: SPEC §2.2 "Suspicious first sight".
 * @param def - A tool definition.
 * @returns True when such a character occurs.
 * @throws Never (any depth: the walk keeps its own stack).
 */
export function hasSuspiciousCharacters(def: ToolDefinition): boolean {
  const pinnedFields = [
    def.name,
    def.title,
    def.description,
    def.inputSchema,
    def.outputSchema,
    def.annotations,
  ];
  // An explicit stack (no recursion depth limit) over own keys and values, each object once.
  const stack: unknown[] = [...pinnedFields];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (hasSuspiciousInvisible(value)) return true;
    } else if (typeof value === "object" && value !== null && !seen.has(value)) {
      seen.add(value);
      if (Array.isArray(value)) for (const item of value) stack.push(item);
      else
        for (const key of Object.keys(value)) {
          if (hasSuspiciousInvisible(key)) return true;
          stack.push(Object.getOwnPropertyDescriptor(value, key)?.value);
        }
    }
  }
  return false;
}

/**
 * Compares a server's current tool list with its pins. Equal canonical text → `pinned`; different →
 * `changed` (the client keeps the pinned definition); not pinned → `new` (hidden), except on first
 * sight under `tofu`/`off`, where a definition without suspicious characters is pinned now. A name
 * listed twice with different definitions is never pinned silently and compares its first differing
 * definition.
 *
 * Source: SPEC §2.2 (modes, changed tool, new tool, suspicious first sight).
 * @param pinned - The pinned definitions by tool name.
 * @param current - The upstream's current `tools/list` (all pages).
 * @param options - The injected hash, first sight and mode.
 * @returns Per-tool statuses, the list the client sees, what to pin now and the removed names.
 * @throws Whatever the injected hash throws.
 * @example comparePins(new Map(), tools, { hash: sha256, firstSight: true }).pinNow.length === tools.length
 */
export function comparePins(
  pinned: ReadonlyMap<string, ToolDefinition>,
  current: readonly ToolDefinition[],
  options: ComparePinsOptions,
): PinComparison {
  const autoPin = options.firstSight && options.mode !== "strict";
  const groups = new Map<string, ToolDefinition[]>();
  for (const def of current) groups.set(def.name, [...(groups.get(def.name) ?? []), def]);
  const tools = new Map<string, ToolPinResult>();
  const visible: ToolDefinition[] = [];
  const pinNow: ToolDefinition[] = [];
  for (const [name, defs] of groups) {
    const texts = defs.map(canonicalToolJson);
    const pin = pinned.get(name);
    const pinText = pin === undefined ? undefined : canonicalToolJson(pin);
    const odd = texts.findIndex((text) => text !== (pinText ?? texts[0]));
    const index = odd === -1 ? 0 : odd;
    const def = defs[index]!;
    const canonical = texts[index]!;
    const hash = options.hash(canonical);
    // Only a tool without a pin can be pinned on first sight or be new (the flag is for those).
    const suspicious = pin === undefined && defs.some(hasSuspiciousCharacters);
    let status: PinStatus;
    if (pin !== undefined && odd === -1) status = { kind: "pinned" };
    else if (pin !== undefined) status = { kind: "changed", diff: diffToolDefinitions(pin, def), hash };
    else if (autoPin && odd === -1 && !suspicious) status = { kind: "pinned" };
    else status = { kind: "new", hash, suspicious, definition: def };
    if (status.kind === "pinned" && pin === undefined) pinNow.push(def);
    tools.set(name, { current: def, canonical, hash, status });
    if (status.kind === "pinned") visible.push(defs[0]!);
    else if (status.kind === "changed" && pin !== undefined) visible.push(pin);
  }
  const removed = [...pinned.keys()].filter((name) => !groups.has(name));
  return { tools, visible, pinNow, removed };
}

/**
 * What works under `--pins off`, where no pin file exists for `bouncer pins accept` to write.
 *
 * Source: SPEC §2.2 (`off`: "names pinned in memory at start-up, nothing persisted").
 */
export const PINS_OFF_HINT =
  "under --pins off nothing is kept for bouncer pins accept: approve it in a client that asks (elicitation), or restart the session, which pins what the upstream lists then";

/**
 * What works when the server's pins were forgotten (`bouncer pins forget`) while the session runs:
 * it stores nothing more, so there is nothing for `bouncer pins accept` to accept.
 *
 * Source: SPEC §2.2 (first sight is the first walk of a session), §5.7.
 */
export const PINS_FORGOTTEN_HINT =
  "the pins of this server were forgotten (bouncer pins forget) while this session runs, so nothing is kept for bouncer pins accept: approve it in a client that asks (elicitation), or restart the session, which pins what the upstream lists then";

/** How to review and accept the definition the question shows (bound to it by its hash). */
function acceptHint(input: CallInput, hash: string): string {
  if (input.pinMode === "off") return PINS_OFF_HINT;
  if (input.pinsForgotten === true) return PINS_FORGOTTEN_HINT;
  return `review it with: ${listCommand(input.server)}; accept it at a terminal with: ${acceptCommand(input.server, { tool: input.tool, hash })}`;
}

/** Where a question's change view sends the reader for what it leaves out (no pin file under `off`). */
function seeAll(input: CallInput): { readonly seeAll?: string } {
  if (input.pinMode === "off" || input.pinsForgotten === true) return {};
  return { seeAll: listCommand(input.server, { full: true }) };
}

/**
 * Evaluates the pinning contract of a call from the status the edge computed: `pinned` passes;
 * `changed` asks, describing the diff; `new` asks (suspicious definitions say so); `unknown` denies.
 * Pinning questions are keyed by the current definition's hash (an approval of one definition never
 * approves another).
 *
 * Source: SPEC §2.2.
 * @param input - The call; reads `server`, `tool` and `pin`.
 * @returns A deny, an ask with its question, or no objection.
 * @throws Never.
 * @example evaluatePinning({ ...input, pin: { kind: "unknown" } }).denies[0]?.code // "pin_unknown"
 */
export function evaluatePinning(input: CallInput): ContractResult {
  const { pin, server, tool } = input;
  const name = renderUntrusted(tool);
  const where = `on server ${renderUntrusted(server)}`;
  if (pin.kind === "pinned") return NO_OBJECTION;
  if (pin.kind === "unknown") {
    const message = `Tool ${name} is not in the tool list of server ${renderUntrusted(server)}`;
    return { denies: [{ code: "pin_unknown", message, source: "default" }], asks: [] };
  }
  const key = { server, tool, param: "", identity: pin.hash, subject: "tool" } as const;
  if (pin.kind === "changed") {
    const reason: Reason = {
      code: "pin_changed",
      // What the model reads: the change counted, none of the unapproved definition's own words.
      message: `Tool ${name} changed since it was pinned (${summarizePinDiff(pin.diff, { unseen: true })}); ${acceptHint(input, pin.hash)}`,
      source: "default",
    };
    const question: Question = {
      kind: "changed_tool",
      message: `Accept the changed definition of tool ${name} ${where}?\n${renderedOnce(pin, () => describePinDiff(pin.diff, seeAll(input)))}`,
      key,
    };
    return { denies: [], asks: [{ reason, question }] };
  }
  const invisible = pin.suspicious ? " and its definition contains invisible or bidi control characters" : "";
  const reason: Reason = {
    code: pin.suspicious ? "pin_suspicious" : "pin_new",
    message: `Tool ${name} is not pinned${invisible}; ${acceptHint(input, pin.hash)}`,
    source: "default",
  };
  // The whole definition is new: shown as a change from nothing (SPEC §2.2: a description never
  // reaches the model unapproved, so the human approving it must see it).
  const definition = pin.definition;
  const shown =
    definition === undefined
      ? ""
      : `\n${renderedOnce(pin, () => describePinDiff(diffToolDefinitions({ name: tool }, definition), seeAll(input)).replace(/^Changed: /, "New: "))}`;
  const question: Question = {
    kind: "new_tool",
    message: `Accept the new tool ${name} ${where}${pin.suspicious ? `, whose definition contains invisible or bidi control characters` : ""}?${shown}`,
    key,
  };
  return { denies: [], asks: [{ reason, question }] };
}

/** A pin status's rendered definition or diff (up to 10,000 leaves per field), by status object. */
const RENDERED = new WeakMap<object, string>();

/**
 * Renders a question's definition or diff once per walk's pin status: a call is decided up to three
 * times (first, before an approval is applied, after), and every call of the tool until its pin is
 * accepted meets the same status.
 * @param pin - The tool's pin status (one object per walk).
 * @param render - Builds the text.
 * @returns The text.
 */
function renderedOnce(pin: object, render: () => string): string {
  const cached = RENDERED.get(pin);
  if (cached !== undefined) return cached;
  const text = render();
  RENDERED.set(pin, text);
  return text;
}
