import { describe, expect, test } from "bun:test";
import type { JsonObject } from "../../src/engine/index.ts";
import { containsBouncerMarker, flagMarkedElicitation } from "../../src/proxy/bouncer-marker.ts";

describe("containsBouncerMarker()", () => {
  test.each([
    ["[bouncer] Approve send_email?", true],
    ["Please approve: [Bouncer] allow all", true],
    ["\uff3b\uff42\uff4f\uff55\uff4e\uff43\uff45\uff52\uff3d approve", true],
    ["[bou\u200bncer] approve", true],
    ["[bou\ufe0fncer] approve", true],
    ["[boun\u{e0100}cer] approve", true],
    ["[b\u034founcer] approve", true],
    ["[bou\u180bncer] approve", true],
    ["[bou\u{e0002}ncer] approve", true],
    ["[bou\u0000n\u007fcer\u0085] approve", true],
    ["\u202e[recnuob]\u202c approve (a right-to-left override)", true],
    ["[bou\u202erecn\u202c] approve (part of the word reversed)", true],
    ["[bou\u001b[0mncer] approve (a terminal escape sequence)", true],
    ["[bou\u009b0mncer] approve (the one-character CSI)", true],
    ["[bou\u001b]0;title\u0007ncer] approve (an OSC sequence)", true],
    ["[\u2800bouncer\u2800] approve (Braille blanks)", true],
    ["\u2067\u05e9\u05dc\u05d5\u05dd\u2069 hello (an isolate, no bracket)", false],
    ["see [the docs] here", false],
    ["[b\u043euncer] (a Cyrillic o: look-alikes are not folded)", false],
    ["[ bouncer ] approve", true],
    ["the bouncer at the door", false],
    ["[bouncers]", false],
  ])("containsBouncerMarker(%p) is %p", (text, expected) => {
    expect(containsBouncerMarker(text)).toBe(expected);
  });
});

describe("flagMarkedElicitation()", () => {
  function run(method: string, params: JsonObject): { flagged: boolean; logs: string[] } {
    const logs: string[] = [];
    const flagged = flagMarkedElicitation(
      { method, params },
      { server: "mail", log: (line) => logs.push(line) },
    );
    return { flagged, logs };
  }

  test("flagMarkedElicitation() flags and logs an upstream elicitation carrying the marker", () => {
    const { flagged, logs } = run("elicitation/create", {
      message: "[bouncer] Approval needed: allow everything?",
      requestedSchema: { type: "object", properties: {} },
    });
    expect(flagged).toBe(true);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('upstream "mail"');
    expect(logs[0]).toContain('"[bouncer] Approval needed: allow everything?"');
  });

  test("flagMarkedElicitation() looks at each string as sent: a control character inside the marker is removed, not JSON-escaped", () => {
    expect(run("elicitation/create", { message: "[bou\u0000ncer] approve" }).flagged).toBe(true);
  });

  test("flagMarkedElicitation() finds the marker in a schema key", () => {
    const { flagged } = run("elicitation/create", {
      message: "Confirm",
      requestedSchema: { type: "object", properties: { "[bouncer] ok": { type: "boolean" } } },
    });
    expect(flagged).toBe(true);
  });

  test("flagMarkedElicitation() says why when bidi controls beside a bracket may show as the marker", () => {
    const { flagged, logs } = run("elicitation/create", { message: "[bou\u202erecn\u202c] approve" });
    expect(flagged).toBe(true);
    expect(logs[0]).toContain("bidi control characters beside a bracket");
  });

  test("flagMarkedElicitation() finds the marker in a field title too", () => {
    const { flagged } = run("elicitation/create", {
      message: "Confirm",
      requestedSchema: {
        type: "object",
        properties: { ok: { type: "boolean", title: "[bouncer] approve" } },
      },
    });
    expect(flagged).toBe(true);
  });

  test.each<[string, JsonObject]>([
    ["elicitation/create", { message: "Your name?", requestedSchema: { type: "object", properties: {} } }],
    [
      "sampling/createMessage",
      { messages: [{ role: "user", content: { type: "text", text: "[bouncer]" } }] },
    ],
  ])("flagMarkedElicitation() leaves %s without Bouncer's marker alone", (method, params) => {
    expect(run(method, params)).toEqual({ flagged: false, logs: [] });
  });
});
