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

  test("environmentSecrets() leaves out locations (_SOCK, _PATH, _DIR, _FILE, _HOME) and values under 8 characters", () => {
    const env = {
      SSH_AUTH_SOCK: "/run/user/1000/keyring/ssh",
      GNUPG_KEY_DIR: "/home/someone/.gnupg",
      AUTH_TOKEN_FILE: "/etc/app/token",
      AUTH_METHOD: "github",
      API_KEY_PATH: "/etc/app/key.pem",
      SECRETS_HOME: "/var/secrets",
      DB_PASSWORD: "Tr0ub4dor",
    };
    expect(environmentSecrets(env)).toEqual(["Tr0ub4dor"]);
    const line = "socket at /run/user/1000/bus; login via github ok";
    expect(
      environmentHider({ SSH_AUTH_SOCK: env.SSH_AUTH_SOCK, AUTH_METHOD: "github" })?.(line),
    ).toBeUndefined();
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

describe("environmentSecrets() and names written as one word", () => {
  test("environmentSecrets() takes PGPASSWORD, MYSQL_PWD and ACCESSTOKEN, but not PWD or OLDPWD", () => {
    const env = {
      PGPASSWORD: "Sup3rS3cretPg",
      MYSQL_PWD: "My5qlS3cretX",
      ACCESSTOKEN: "acc3ssT0kenValue",
      PWD: "/home/someone/project",
      OLDPWD: "/home/someone",
    };
    expect(environmentSecrets(env)).toEqual(["Sup3rS3cretPg", "My5qlS3cretX", "acc3ssT0kenValue"]);
    expect(
      environmentHider(env)?.("FATAL: PGPASSWORD=Sup3rS3cretPg MYSQL_PWD=My5qlS3cretX in /home/someone"),
    ).toBe("FATAL: PGPASSWORD=[redacted] MYSQL_PWD=[redacted] in /home/someone");
  });
});

test("environmentHider() hides a secret's base64 forms, standard and URL-safe", () => {
  const secret = "Tr0ub4dor&3?>x";
  const standard = btoa(secret).replace(/=+$/, "");
  const urlSafe = standard.replaceAll("+", "-").replaceAll("/", "_");
  const hide = environmentHider({ DB_PASSWORD: secret });
  expect(hide?.(`b64 ${btoa(secret)} url ${urlSafe}`)).toBe("b64 [redacted]= url [redacted]");
});
