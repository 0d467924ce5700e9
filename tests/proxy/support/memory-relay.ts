/**
 * A {@link Relay} with both pipes in memory, for fast unit tests of the relay's rules (STYLE #24:
 * the per-call handler is callable without stdio).
 */

import { Relay, type RelayOptions } from "../../../src/proxy/relay.ts";
import { passThroughHooks, type RelayContext, type RelayHooks } from "../../../src/proxy/relay-hooks.ts";

export interface MemoryRelay {
  readonly relay: Relay;
  /** Messages written to the client, as text. */
  readonly toClient: string[];
  /** Messages written to the upstream, as text. */
  readonly toUpstream: string[];
  readonly logs: string[];
  readonly ended: number[];
  fromClient(message: unknown): void;
  fromUpstream(message: unknown): void;
  /** The last message written to the upstream, parsed. */
  lastUpstream(): Record<string, unknown>;
  /** The last message written to the client, parsed. */
  lastClient(): Record<string, unknown>;
}

/**
 * Builds a relay whose hooks are the pass-through ones overridden by `hooks`.
 * @param hooks - Overrides, given the relay context.
 * @param options - Relay options.
 * @returns The relay and what it wrote.
 */
export function memoryRelay(
  hooks: (context: RelayContext) => Partial<RelayHooks> = () => ({}),
  options: Partial<RelayOptions> = {},
): MemoryRelay {
  const toClient: string[] = [];
  const toUpstream: string[] = [];
  const logs: string[] = [];
  const ended: number[] = [];
  const relay = new Relay({
    sendToClient: (text) => toClient.push(text),
    sendToUpstream: (text) => toUpstream.push(text),
    createHooks: (context) => ({ ...passThroughHooks(), ...hooks(context) }),
    log: (message) => logs.push(message),
    onEndRequested: (code) => ended.push(code),
    ...options,
  });
  const text = (message: unknown): string =>
    typeof message === "string" ? message : JSON.stringify(message);
  return {
    relay,
    toClient,
    toUpstream,
    logs,
    ended,
    fromClient: (message) => relay.receiveFromClient(text(message)),
    fromUpstream: (message) => relay.receiveFromUpstream(text(message)),
    lastUpstream: () => JSON.parse(toUpstream.at(-1) ?? "null") as Record<string, unknown>,
    lastClient: () => JSON.parse(toClient.at(-1) ?? "null") as Record<string, unknown>,
  };
}

/** Lets queued promise callbacks and timers of zero delay run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
