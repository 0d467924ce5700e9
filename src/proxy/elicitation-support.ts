/**
 * Whether Bouncer can ask the client's human by `elicitation/create` (SPEC §3.4, channel 1): the
 * client declared `capabilities.elicitation` with form mode in its `initialize`, and the session's
 * protocol version is one where servers may send requests (2025-06-18 to 2025-11-25). Edge (pure).
 *
 * Source: SPEC §3.2 ("Read elicitation support from the client's initialize"), §3.4; field cases F18,
 * F23 ("never send elicitation/create to a client that did not declare it").
 * @module
 */

import type { JsonObject, JsonValue } from "../engine/index.ts";
import { isJsonObject } from "./jsonrpc.ts";

/** The first protocol version with elicitation. */
export const FIRST_ELICITATION_VERSION = "2025-06-18";
/** The last protocol version where a server may send `elicitation/create` as a request. */
export const LAST_ELICITATION_VERSION = "2025-11-25";

/** What the asker needs to know about the client. */
export type ElicitationSupport =
  | { readonly form: true; readonly protocolVersion: string }
  /** `why` completes "Bouncer cannot ask a person because …". */
  | { readonly form: false; readonly why: string };

/** Why a session without `initialize` (a 2026-07-28 client, or one that skipped it) cannot be asked. */
const NO_INITIALIZE =
  "the client has not sent initialize (a client of protocol version 2026-07-28 sends none, and its multi round-trip asks are not built yet)";

/** The handshake facts the support is read from (a subset of the relay's `SessionInfo`). */
export interface HandshakeFacts {
  /** The client's `initialize` params. */
  readonly clientInitialize?: JsonObject;
  /** The upstream's `initialize` result, relayed to the client (its version is the session's). */
  readonly upstreamInitialize?: JsonObject;
}

function own(object: JsonObject | undefined, key: string): JsonValue | undefined {
  return object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * Reads form-elicitation support from the handshake. An empty `capabilities.elicitation` object means
 * form mode (backwards compatibility); one that names only `url` has no form mode. The session's
 * version is the one the upstream answered (Bouncer relays the handshake), else the client's request.
 *
 * Source: SPEC §3.2, §3.4; MCP 2025-11-25 client/elicitation ("capabilities.elicitation: {} is
 * equivalent to form mode only").
 * @param facts - The client's `initialize` params and the upstream's result, when known.
 * @returns Form support with the protocol version, or why there is none.
 * @throws Never.
 */
export function elicitationSupport(facts: HandshakeFacts): ElicitationSupport {
  const params = facts.clientInitialize;
  // Under 2026-07-28 there is no initialize (SPEC §3.2 step 4): its asks are the multi round-trip ones.
  if (params === undefined) return { form: false, why: NO_INITIALIZE };
  const capabilities = own(params, "capabilities");
  const elicitation = isJsonObject(capabilities) ? own(capabilities, "elicitation") : undefined;
  if (!isJsonObject(elicitation)) {
    return { form: false, why: "the client did not declare elicitation support in its initialize" };
  }
  const hasForm = Object.hasOwn(elicitation, "form");
  const hasUrl = Object.hasOwn(elicitation, "url");
  if (!hasForm && hasUrl) {
    return { form: false, why: "the client declared URL-mode elicitation only, not form mode" };
  }
  const answered = own(facts.upstreamInitialize, "protocolVersion");
  const requested = own(params, "protocolVersion");
  const version = typeof answered === "string" ? answered : requested;
  if (typeof version !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(version)) {
    return { form: false, why: "the session has no recognisable protocol version" };
  }
  if (version < FIRST_ELICITATION_VERSION) {
    return { form: false, why: `protocol version "${version}" has no elicitation` };
  }
  if (version > LAST_ELICITATION_VERSION) {
    return {
      form: false,
      why: `protocol version "${version}" has no server-to-client requests and its multi round-trip asks are not built yet`,
    };
  }
  return { form: true, protocolVersion: version };
}
