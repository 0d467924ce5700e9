/**
 * Test entry: `bouncer run` exactly as `src/proxy/command.ts` runs it — same flag parser, same
 * `runProxy` (real stdio, real spawn, framer, relay, life cycle) — but with test hooks instead of
 * the gate, so transport tests can forward tool calls before the gate is wired. Never shipped.
 *
 * `BOUNCER_TEST_HOOKS=pass` (default): pass-through. `ask-first`: before forwarding a call, Bouncer
 * sends its own `elicitation/create` to the client (marker `[bouncer]`) and blocks the call unless it
 * is accepted — to show that Bouncer's own requests and the upstream's never mix.
 */

import type { JsonObject } from "../../../src/engine/index.ts";
import { StderrOutput } from "../../../src/platform/stderr-output.ts";
import { passThroughHooks, type RelayContext, type RelayHooks } from "../../../src/proxy/relay-hooks.ts";
import { parseRunArgs } from "../../../src/proxy/run-args.ts";
import { runProxy } from "../../../src/proxy/run-proxy.ts";

function askFirstHooks(context: RelayContext): RelayHooks {
  return {
    ...passThroughHooks(),
    onToolCall: async (call) => {
      const answer = (await context.requestClient(
        "elicitation/create",
        {
          message: `[bouncer] allow ${call.name}?`,
          requestedSchema: { type: "object", properties: { remember: { type: "boolean" } } },
        },
        { signal: call.signal },
      )) as JsonObject;
      if (answer.action === "accept") return { kind: "forward", arguments: call.arguments };
      return {
        kind: "result",
        result: { content: [{ type: "text", text: "[bouncer blocked] declined" }], isError: true },
      };
    },
  };
}

const mode = process.env.BOUNCER_TEST_HOOKS ?? "pass";
const stderr = new StderrOutput(process.stderr);
const code = await runProxy(
  parseRunArgs(process.argv.slice(2)),
  { stdin: process.stdin, stdout: process.stdout, writeStderr: stderr.write, stderrFlow: stderr },
  { createHooks: (context) => (mode === "ask-first" ? askFirstHooks(context) : passThroughHooks()) },
);
process.exit(code);
