import { describe, expect, test } from "bun:test";
import type { Reason } from "../../src/engine/index.ts";
import { askedPhrase } from "../../src/proxy/ask-reasons.ts";

const reason = (message: string): Reason => ({ code: "sink_unproven", message, source: "default" });

describe("askedPhrase()", () => {
  test("askedPhrase() quotes the one question an ask held", () => {
    expect(askedPhrase([reason("Destination a")])).toBe("asked: Destination a");
  });

  test("askedPhrase() says how many questions an ask held, then the first", () => {
    const reasons = Array.from({ length: 2001 }, (_, i) => reason(`Destination ${i}`));
    expect(askedPhrase([reason("Destination first"), ...reasons])).toBe(
      "asked 2002 questions; the first: Destination first",
    );
  });
});
