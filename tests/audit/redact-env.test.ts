import { describe, expect, test } from "bun:test";
import { environmentHider, environmentSecrets } from "../../src/audit/redact-env.ts";

describe("environmentSecrets()", () => {
  test("environmentSecrets() lists the values of secret-named variables only, not flags or short ones", () => {
    const env = {
      PATH: "/usr/bin:/bin",
      DB_PASSWORD: "Tr0ub4dor&3",
      GITHUB_TOKEN: "value-of-the-token",
      NPM_CONFIG_ALWAYS_AUTH: "false",
      API_KEY: "abc",
      HOME: "/home/someone",
      UNSET_SECRET: undefined,
    };
    expect(environmentSecrets(env)).toEqual(["Tr0ub4dor&3", "value-of-the-token"]);
  });
});

describe("environmentHider()", () => {
  test("environmentHider() hides each secret value as written and escaped, leaving other values", () => {
    const hide = environmentHider({ DB_PASSWORD: "Tr0ub4dor&3", DB_HOST: "db.internal.example" });
    expect(hide?.('password Tr0ub4dor&3 on db.internal.example; {"p":"Tr0ub4dor&3"}')).toBe(
      'password [redacted] on db.internal.example; {"p":"[redacted]"}',
    );
  });

  test("environmentHider() is undefined for an environment with no secret-named value", () => {
    expect(environmentHider({ PATH: "/usr/bin", HOME: "/home/someone" })).toBeUndefined();
  });
});
