import { describe, expect, test } from "bun:test";
import { redactText } from "../../src/audit/redact.ts";
import { argumentSecrets, secretHider } from "../../src/audit/redact-values.ts";
import { canonicalize, identify } from "../../src/engine/index.ts";
import { renderDestination } from "../../src/engine/sink-messages.ts";

/** The secret values a record of a call with these arguments hides (what `args` show left out). */
function secretsOf(args: unknown): string[] {
  return argumentSecrets(args).secrets;
}

/** A text as the audit record of a call with these arguments writes it: secrets hidden, then tokens. */
function recordText(text: string, args: unknown): string {
  const { secrets, shown } = argumentSecrets(args);
  return redactText(secretHider(secrets, shown)(text));
}

/** The reason the sink gate would write for a destination in `path`. */
function reasonFor(raw: string, path: string): string {
  const identity = identify(raw.trim(), canonicalize(raw, { destination: true }));
  const shown = renderDestination({ server: "mail", tool: "send_email", path, raw, identity });
  return `Destination ${shown} in ${path} is not trusted and was not seen in this session's output`;
}

describe("argumentSecrets()", () => {
  test("argumentSecrets() takes a number under a secret-like name as a secret, and not one under a measure's name", () => {
    expect(secretsOf({ password: 123456, max_tokens: 1000, pin: 4321 })).toEqual(["123456", "4321"]);
  });

  test("argumentSecrets() takes a labelled pair's secret-like value as a secret, and not its label", () => {
    expect(
      secretsOf({
        headers: [
          { key: "X-Api-Key", value: "Zq9xLmP2vK" },
          { name: "Accept", value: "json-lines" },
        ],
        pairs: [["Authorization", "token abc123xyz"]],
      }),
    ).toEqual(["Zq9xLmP2vK", "token abc123xyz"]);
  });

  test("argumentSecrets() takes a prefixed labelled pair's secret-like value as a secret, and hides it where the reason quotes it", () => {
    const args = { params: [{ ParameterKey: "DbPassword", ParameterValue: "Hunt3rCfnPw" }] };
    expect(secretsOf(args)).toEqual(["Hunt3rCfnPw"]);
    expect(recordText("output said hunt3rcfnpw", args)).not.toContain("hunt3rcfnpw");
  });

  test("argumentSecrets() takes a password glued to its flag in an argv list as a secret, and hides it where the reason quotes it", () => {
    const args = { argv: ["mysql", "-uroot", "-pMyArgvPw9", "db"] };
    expect(secretsOf(args)).toEqual(["MyArgvPw9"]);
    expect(recordText("the server said myargvpw9 is wrong", args)).not.toContain("myargvpw9");
  });

  test("argumentSecrets() takes the element after a secret-named flag in an argv list as a secret", () => {
    expect(
      secretsOf({
        argv: [
          "psql",
          "-h",
          "db",
          "--password",
          "S3cretArgvPw",
          "--max-tokens",
          "1000",
          "--api-key",
          "S3cretArgvKey",
        ],
      }),
    ).toEqual(["S3cretArgvPw", "S3cretArgvKey"]);
    const args = { to: "bob@x.example", argv: ["psql", "--password", "S3cretArgvPw"] };
    expect(recordText("saw s3cretargvpw and S3cretArgvPw", args)).not.toContain("rgvpw");
  });

  test("argumentSecrets() lists the values under secret-named keys at any depth, numbers as text", () => {
    const found = secretsOf({
      to: "bob@x.example",
      api_key: "k-12345",
      auth: { pin: 48151623 },
      list: ["a"],
    });
    expect(found.sort()).toEqual(["48151623", "k-12345"]);
  });
});

describe("argumentSecrets() and what args show anyway", () => {
  test.each([
    ["the recipient again", "attacker@evil.example"],
    ["its domain", "evil.example"],
    ["its local part", "attacker"],
  ])("argumentSecrets() leaves out a secret-named value that another argument holds (%s)", (_name, value) => {
    const args = { to: "attacker@evil.example", token: value };
    const reason = reasonFor("attacker@evil.example", "to");
    expect(recordText(reason, args)).toBe(reason);
  });

  test("argumentSecrets() still hides a short value another argument holds only inside a word", () => {
    expect(secretsOf({ note: "update", secret: "date" })).toEqual(["date"]);
    expect(secretsOf({ note: "date", secret: "date" })).toEqual([]);
  });

  test("argumentSecrets() still hides a value another argument holds only past what args show (1 KiB)", () => {
    const secret = "Zq9Secret0Value1Long2XYZ";
    const to = `${"x".repeat(1100)}${secret}@evil.example`;
    expect(secretsOf({ to, password: secret })).toEqual([secret]);
  });
});

describe("secretHider()", () => {
  test.each([
    [
      "the end of a value cut at 200 characters",
      `https://h.example/${"p".repeat(220)}?k=TOPSECRET0123456789`,
      "TOPSECRET0123456789",
    ],
    [
      "the address behind a display name",
      "Mallory <privaterecipient@evil.example>",
      "privaterecipient@evil.example",
    ],
    ["one of several recipients", "alice@evil.example, bob.secret@evil.example", "bob.secret@evil.example"],
  ])("secretHider() hides %s where a reason quotes it", (_name, value, piece) => {
    const reason = reasonFor(value, "api_key");
    expect(reason).toContain(piece);
    const redacted = recordText(reason, { api_key: value });
    expect(redacted).not.toContain(piece);
    expect(redacted).toContain("[redacted]");
  });

  test("secretHider() replaces a long secret glued to other text too", () => {
    const reason = 'Argument "text" = "mysql -uroot -ps3cretpass prod" does not match safe';
    expect(recordText(reason, { password: "s3cretpass" })).toBe(
      'Argument "text" = "mysql -uroot -p[redacted] prod" does not match safe',
    );
  });

  test("secretHider() replaces the start of a secret that a longer value's cut ends in", () => {
    const secret = "sk_live_ABCDEFGHIJKLMNOPQRSTUVWX";
    const reason = `Destination "https://pay.example/${"x".repeat(170)}&k=sk_live_ABCDEFGHIJKLMN…" in url`;
    const redacted = recordText(reason, { api_key: secret });
    expect(redacted).not.toContain("sk_live_ABCDEFGH");
    expect(redacted).toContain("&k=[redacted]…");
  });

  test("secretHider() replaces a secret's middle shown in the ending window of a longer value", () => {
    const secret = "Zq9Secret0Value1Long2XYZ";
    const raw = `${"x".repeat(1100)}${secret}${"y".repeat(30)}@evil.example`;
    const reason = reasonFor(raw, "to");
    expect(reason).toContain("Long2XYZ");
    expect(recordText(reason, { to: raw, password: secret })).not.toContain("Long2XYZ");
  });

  test("secretHider() replaces a secret shown lower-cased, as a URL's host is", () => {
    const secret = "SecretHost123ABC";
    const reason = reasonFor(`https://${"u".repeat(300)}@${secret}.evil.example/`, "url");
    expect(reason).toContain("secrethost123abc");
    expect(recordText(reason, { api_key: secret })).not.toMatch(/secrethost123abc/i);
  });

  test("secretHider() replaces an internationalised host shown in punycode", () => {
    const secret = "geheim-bücher.example";
    const reason = reasonFor(`https://${secret}/x`, "url");
    expect(reason).toContain("xn--");
    expect(recordText(reason, { api_key: secret })).not.toContain("xn--");
  });

  test("secretHider() keeps the host of a URL under a secret-like name in view and hides its path", () => {
    const secret = "https://geheim-bücher.example/T0AAA/B0BBB/XyZsecretPath";
    const reason = reasonFor(secret, "webhook_secret");
    const shown = recordText(reason, { webhook_secret: secret });
    expect(shown).toContain("xn--geheim-bcher-klb.example");
    expect(shown).not.toContain("XyZsecretPath");
  });

  test("secretHider() replaces a short secret only where it does not continue a word", () => {
    expect(recordText("update_record sorted by date", { sort_key: "date" })).toBe(
      "update_record sorted by [redacted]",
    );
  });
});

describe("argumentSecrets() at any depth", () => {
  /** `value` under `key`, inside `levels` objects `{a: …}`. */
  function nested(levels: number, key: string, value: string): Record<string, unknown> {
    let out: Record<string, unknown> = { [key]: value };
    for (let level = 0; level < levels; level += 1) out = { a: out };
    return out;
  }

  test("argumentSecrets() finds a secret-named value nested past redactJson's depth and 100,000 levels deep, shown or not only as args show it", () => {
    expect(secretsOf({ to: nested(70, "password", "SuperSecretValue123") })).toEqual(["SuperSecretValue123"]);
    expect(secretsOf({ to: nested(100_000, "password", "SuperSecretValue123") })).toEqual([
      "SuperSecretValue123",
    ]);
    // Past redactJson's depth, `args` show a marker: the same value there is not shown.
    const args = {
      note: nested(70, "text", "SuperSecretValue123"),
      to: nested(70, "password", "SuperSecretValue123"),
    };
    expect(secretsOf(args)).toEqual(["SuperSecretValue123"]);
  });

  test("argumentSecrets() lists the keys of an object under a secret-named key (flattening quotes keys)", () => {
    expect(secretsOf({ credentials: { "alice@corp.example": "pw12" } }).sort()).toEqual([
      "alice@corp.example",
      "pw12",
    ]);
  });
});

describe("argumentSecrets() of a program's arguments beside its name", () => {
  test("argumentSecrets() finds the password of an args list that a sibling command makes a command line", () => {
    expect(secretsOf({ command: "curl", args: ["-u", "bob:S3cretPw9"] })).toEqual(["S3cretPw9"]);
    expect(secretsOf({ command: "docker", args: ["run", "-u", "1000:1000"] })).toEqual([]);
  });
});
