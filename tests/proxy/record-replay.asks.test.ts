/**
 * A session recorded with `bouncer run --record` in front of the fixture mailbox, asks answered by the
 * SDK's real `Client`, replays to the live decisions: an answer's `remember` and URL scope are
 * recorded and applied as the live asker applied them (SPEC §3.6, §5.9 "approvals and declines are
 * remembered as in a live session").
 */

import { describe, expect, test } from "bun:test";
import { recordMailbox } from "./support/record-mailbox.ts";

const E2E_TIMEOUT = 120_000;
const POLICY = `
send_email:
  exfiltrating: true
  sink_params: [to]
  trusted_destinations: [boss@corp.example]
`;

describe("bouncer run --record then bouncer replay (asks)", () => {
  test(
    "bouncer replay remembers each recorded answer as the live session did: remember, scope, dismissals",
    async () => {
      const run = await recordMailbox(POLICY, [
        // Approved once without remembering, then declined: the second send is blocked.
        { to: "a@alpha.example", answer: { action: "accept", content: { remember: false } } },
        { to: "a@alpha.example", answer: { action: "decline" } },
        // Approved for the whole site: another path of the site is forwarded without asking.
        {
          to: "https://hooks.beta.example/a",
          answer: { action: "accept", content: { remember: true, scope: "whole site" } },
        },
        { to: "https://hooks.beta.example/b" },
        // Declined without remembering, then approved: the second send goes out.
        { to: "b@gamma.example", answer: { action: "decline", content: { remember: false } } },
        { to: "b@gamma.example", answer: { action: "accept" } },
        // Dismissed (nothing is remembered), then approved.
        { to: "c@delta.example", answer: { action: "cancel" } },
        { to: "c@delta.example", answer: { action: "accept" } },
      ]);
      expect(run.live).toEqual([
        "forwarded",
        "blocked",
        "forwarded",
        "forwarded",
        "blocked",
        "forwarded",
        "blocked",
        "forwarded",
      ]);
      const asks = run.session
        .split("\n")
        .filter((line) => line.includes('"ask"'))
        .map((line) => JSON.parse(line) as { ask: string; remember?: boolean; scope?: string });
      expect(asks.map(({ ask, remember, scope }) => [ask, remember, scope])).toEqual([
        ["approved", false, undefined],
        ["declined", true, undefined],
        ["approved", true, "site"],
        ["declined", false, undefined],
        ["approved", false, undefined],
        ["declined", false, undefined],
        ["approved", false, undefined],
      ]);
      expect(run.replayStderr).toBe("");
      expect(run.replayed.map(([seq, verdict]) => [seq, verdict])).toEqual(
        run.audited.map(([seq, verdict]) => [seq, verdict]),
      );
      expect(run.replayed.slice(1).map((row) => row[2])).toEqual([...run.live]);
    },
    E2E_TIMEOUT,
  );
});
