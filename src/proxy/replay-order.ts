/**
 * The order `bouncer replay` decides a session's events in (SPEC §5.9). `bouncer run --record` writes
 * a call when it completes, so concurrent calls can stand in the file in another order than the one
 * they were decided in; each carries the live decision's `seq` (the instance's counter, the audit
 * log's `seq`). Replay decides the calls of one instance in `seq` order, so budgets and seqs come out
 * as they did live. Edge (pure: events in, events out).
 *
 * Source: SPEC §2.3 (budgets count attempts in order), §3.6, §5.9.
 * @module
 */

import type { CallEvent, SessionEvent } from "./replay-session.ts";

/**
 * The `bouncer run` an event belongs to, as a map key: its server and `run` id (events without one,
 * from files written before run ids, share one run per server at a time).
 * @param event - Any event.
 * @returns A collision-free key.
 */
export function runKey(event: SessionEvent): string {
  return JSON.stringify([event.server, event.run ?? null]);
}

/** The calls of one recorded instance that carry a `seq`, in `seq` order, and how many were taken. */
interface Instance {
  readonly calls: CallEvent[];
  taken: number;
}

/**
 * Orders a session's events for replay: file order, except that a call is decided once every call of
 * the same instance with a smaller `seq` has been (one written later is moved up to just before it).
 * An instance is a server's events of one `run` id, from its `server` event on; in a file without run
 * ids, a server's events from one of its `server` events to the next (a new `bouncer run` starts its
 * counter again). Calls without `seq` (hand-written files) stay where they are.
 *
 * Calls only ever move earlier, and only ahead of events written after a call that was decided later
 * than them live: each moved call is still decided after every result that reached the live proxy
 * before its decision (replay may see more untrusted output than the live decision did, never less).
 *
 * Source: SPEC §5.9, §2.3.
 * @param events - The parsed session, in file order.
 * @returns The same events, calls of each instance in `seq` order.
 * @throws Never.
 * @example decisionOrder(parseSession(text)) // a call with seq 2 written before seq 1 comes after it
 */
export function decisionOrder(events: readonly SessionEvent[]): SessionEvent[] {
  const instances = new Map<CallEvent, Instance>();
  const current = new Map<string, Instance>();
  for (const event of events) {
    const key = runKey(event);
    if (event.event === "server") current.delete(key);
    if (event.event !== "call" || event.seq === undefined) continue;
    let instance = current.get(key);
    if (instance === undefined) {
      instance = { calls: [], taken: 0 };
      current.set(key, instance);
    }
    instance.calls.push(event);
    instances.set(event, instance);
  }
  for (const instance of new Set(instances.values())) {
    // Stable: calls with the same seq keep their file order.
    instance.calls.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  }
  const ordered: SessionEvent[] = [];
  const done = new Set<CallEvent>();
  for (const event of events) {
    const instance = event.event === "call" ? instances.get(event) : undefined;
    if (instance === undefined) {
      ordered.push(event);
      continue;
    }
    if (done.has(event as CallEvent)) continue;
    // Every call of the instance up to this one in seq order, this one last.
    while (instance.taken < instance.calls.length) {
      const next = instance.calls[instance.taken++] as CallEvent;
      done.add(next);
      ordered.push(next);
      if (next === event) break;
    }
  }
  return ordered;
}
