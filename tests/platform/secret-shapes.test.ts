import { describe, expect, test } from "bun:test";
import * as audit from "../../src/audit/redact.ts";
import * as init from "../../src/init/secrets.ts";
import {
  hasTokenShape,
  isSecretName,
  SECRET_NAME_PART,
  TOKEN_SHAPES,
} from "../../src/platform/secret-shapes.ts";

/** Builds a fake token from parts (so no scanner mistakes this file for a leak). */
function fake(...parts: string[]): string {
  return parts.join("");
}

describe("isSecretName()", () => {
  test.each([
    "accesstoken",
    "authtoken",
    "apitoken",
    "clientsecret",
    "privatekey",
    "refreshtoken",
    "secretkey",
    "dbpassword",
    "ACCESSTOKEN",
    "setcookie",
    "pwd",
    "pass",
    "DB_PASS",
    "userPass",
    "PGPASSWORD",
    "MYSQL_PWD",
    "GITHUB_PAT",
    "api:key",
    "api_keys",
    "X-Auth-Token",
    "recovery_code",
    "backupCodes",
    "seed_phrase",
    "WALLET_SEED_WORDS",
    "verification_code",
    "card_security_code",
    "bearer",
    "SERVICE_JWT",
  ])("isSecretName(%p) is true", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  test.each([
    "keyword",
    "monkey",
    "turkey",
    "hockey",
    "tokenizer",
    "bypass",
    "compass",
    "pass-environment",
    "passThrough",
    "path",
    "private",
    "PRIVATE_REPOS",
    "__proto__",
    "code",
    "seed",
    "recovery_email",
    "code_phrase",
    "security_group",
    "jwt_issuer",
    "security_code_scanning",
    "backup_code_dir",
    "seed_words_count",
  ])("isSecretName(%p) is false", (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  test("SECRET_NAME_PART passes every secret-like name, so no quick test skips one", () => {
    const names = [
      "service_jwt",
      "bearer",
      "recovery_code",
      "backup_codes",
      "verification_code",
      "seed_phrase",
      "seed_words",
      "api_key",
      "DB_PASS",
      "x-auth",
      "passcode",
      "signature",
      "mnemonic",
    ];
    for (const name of names) {
      expect(isSecretName(name)).toBe(true);
      expect(SECRET_NAME_PART.test(name)).toBe(true);
    }
    expect(SECRET_NAME_PART.test("\\u0070assword")).toBe(true);
    expect(SECRET_NAME_PART.test("nothing here but numbers 42")).toBe(false);
  });

  test("isSecretName() is the one rule of the audit log and of init", () => {
    expect(audit.isSecretName).toBe(isSecretName);
    expect(init.isSecretName).toBe(isSecretName);
    expect(init.hasTokenShape).toBe(hasTokenShape);
  });
});

describe("TOKEN_SHAPES", () => {
  test.each([
    ["SendGrid", fake("SG.", "abcdefghijklmnopqr", ".", "abcdefghijklmnopqrstu")],
    ["Google OAuth", fake("ya29", ".", "abcdefghijklmnopqrstuvwxyz")],
    ["Linear", fake("lin_api_", "abcdefghijklmnopqrstuvwx")],
    ["Perplexity", fake("pplx-", "abcdefghijklmnopqrstuvwx")],
    ["AWS (ASIA)", fake("ASIA", "IOSFODNN7EXAMPLE")],
    ["HTTP Basic", fake("Basic ", "dXNlcjpwYXNz")],
    ["GitLab runner", fake("glrt-", "abcdefghij1234567890")],
    ["GitLab deploy", fake("gldt-", "abcdefghij1234567890")],
    ["GitLab pipeline trigger", fake("glptt-", "0123456789abcdef01234567")],
    ["webhook signing secret", fake("whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")],
    ["Google OAuth client secret", fake("GOCSPX-", "1a2B3c4D5e6F7g8H9i0J1k2L3m4N")],
    [
      "PyPI",
      fake("pypi-", "AgEIcHlwaS5vcmcCJGFiY2RlZjEyLTM0NTYtNzg5MC1hYmNkLWVmMDEyMzQ1Njc4OQACKlszLCJ4In1d"),
    ],
    ["Vault service", fake("hvs.", "CAESIJ1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P")],
    ["DigitalOcean", fake("dop_v1_", "0123456789abcdef".repeat(4))],
  ])("the audit log redacts and init masks a %s token", (_kind, token) => {
    expect(hasTokenShape(`x ${token} y`)).toBe(true);
    expect(audit.redactText(`x ${token} y`)).toBe(`x ${audit.REDACTED} y`);
    expect(init.maskTokens(`x ${token} y`)).not.toContain(token);
  });

  test.each([
    ["a PyPI package name", "pypi-agent-toolkit-for-the-model-context-protocol-servers"],
    ["a Vault path", "hvs.example"],
    ["a short webhook name", "whsec_rotation"],
    ["a DigitalOcean word", "dop_v1_notes"],
  ])("no token shape is found in %s", (_kind, text) => {
    expect(hasTokenShape(`x ${text} y`)).toBe(false);
  });

  test("a newer token's start is redacted where a reason cut it, and its prefix kept where init masks it", () => {
    expect(audit.redactCutTokens(`"x ${fake("glrt-", "abcdefgh")}…"`)).toBe(`"x ${audit.REDACTED}…"`);
    expect(init.maskTokens(fake("hvs.", "CAESIJ1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P"))).toBe("hvs.********");
  });

  test("the audit log redacts every token shape, and a URL password beside them", () => {
    expect(audit.TOKEN_PATTERNS.slice(0, TOKEN_SHAPES.length)).toEqual([...TOKEN_SHAPES]);
    expect(audit.redactText("https://bob:hunter2secret@db.example/x")).toBe(
      `https://bob:${audit.REDACTED}@db.example/x`,
    );
  });
});
