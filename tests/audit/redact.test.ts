import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fc from "fast-check";
import {
  cutLongString,
  isSecretName,
  MAX_STRING_BYTES,
  REDACTED,
  redactCutTokens,
  redactJson,
  redactText,
  redactTokens,
  TOKEN_PATTERNS,
} from "../../src/audit/redact.ts";
import { redactSecretFields } from "../../src/audit/redact-fields.ts";

/** Builds a fake token from parts (so no scanner mistakes this file for a leak). */
function fake(...parts: string[]): string {
  return parts.join("");
}

const ALNUM36 = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

describe("isSecretName()", () => {
  test.each<[string, boolean]>([
    ["token", true],
    ["access_token", true],
    ["accessToken", true],
    ["password", true],
    ["db-password", true],
    ["client_secret", true],
    ["api_key", true],
    ["apiKey", true],
    ["APIKey", true],
    ["X-Api-Key", true],
    ["apikey", true],
    ["Authorization", true],
    ["cookie", true],
    ["Set-Cookie", true],
    ["private.key", true],
    ["credentials", true],
    ["keyword", false],
    ["monkey", false],
    ["tokenizer", false],
    ["path", false],
    ["to", false],
    ["subject", false],
    ["__proto__", false],
  ])("isSecretName(%p) is %p", (name, expected) => {
    expect(isSecretName(name)).toBe(expected);
  });
});

describe("redactText()", () => {
  test.each<[string, string, string]>([
    ["GitHub classic", `x ${fake("ghp", "_", ALNUM36)} y`, `x ${REDACTED} y`],
    ["GitHub OAuth", fake("gho", "_", ALNUM36), REDACTED],
    ["GitHub fine-grained", fake("github", "_pat_", "11ABCDEFG0", "_", ALNUM36, ALNUM36), REDACTED],
    ["OpenAI project key", fake("sk-", "proj-", ALNUM36), REDACTED],
    ["Anthropic key", fake("sk-", "ant-api03-", ALNUM36), REDACTED],
    ["Slack bot token", fake("xox", "b-", "1234567890-", "abcdefABCDEF"), REDACTED],
    ["Slack app token", fake("xapp", "-1-A0123456789-", "abcdef"), REDACTED],
    ["AWS access key id", `id=${fake("AKIA", "IOSFODNN7EXAMPLE")};`, `id=${REDACTED};`],
    [
      "JWT",
      fake(
        "eyJhbGciOiJIUzI1NiJ9",
        ".",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        ".",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      ),
      REDACTED,
    ],
    ["Bearer header", `Authorization: ${fake("Bearer ", "abc.DEF-123_xyz")}`, `Authorization: ${REDACTED}`],
    ["Basic header", `Authorization: ${fake("Basic ", "dXNlcjpwYXNz")}`, `Authorization: ${REDACTED}`],
    ["Google API key", fake("AIza", "SyA-1234567890abcdefghijklmnopqrstu"), REDACTED],
    ["Stripe live key", fake("sk", "_live_", "4eC39HqLyjWDarjtT1zdp7dc"), REDACTED],
    ["GitLab token", fake("glpat", "-", "xxxxxxxxxxxxxxxxxxxx"), REDACTED],
    ["npm token", fake("npm", "_", ALNUM36), REDACTED],
    ["Hugging Face token", fake("hf", "_", ALNUM36), REDACTED],
    [
      "PEM private key",
      `k=${fake("-----BEGIN ", "RSA PRIVATE KEY-----\nMIIEow\n-----END ", "RSA PRIVATE KEY-----")}!`,
      `k=${REDACTED}!`,
    ],
    ["URL password", "https://bob:hunter2secret@db.example/x", `https://bob:${REDACTED}@db.example/x`],
    [
      "secret-named query parameter",
      "https://api.example/v1?access_token=plainvalue42&page=2#top",
      `https://api.example/v1?access_token=${REDACTED}&page=2#top`,
    ],
    ["percent-escaped secret query name", "GET /x?api%5Fkey=s3cretvalue", `GET /x?api%5Fkey=${REDACTED}`],
  ])("redactText() redacts a %s", (_kind, input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  test.each<[string, string]>([
    ["prose mentioning sk-learn", "we use sk-learn-and-friends-for-everything here"],
    ["a short AKIA", "AKIA123"],
    ["prose about a bearer", "the Bearer of bad news"],
    ["prose about basics", "Basic information about Basic Education"],
    ["an email address", "bob@partner.example"],
    ["a URL without a password", "https://user@host.example/path"],
    ["a task id", "task-1234567890abcdefghij"],
    ["a query without secret names", "https://shop.example/list?page=2&sort=price&q=token-less"],
    ["an equation", "x=1 and key_count=3"],
  ])("redactText() keeps %s", (_kind, input) => {
    expect(redactText(input)).toBe(input);
  });

  test("redactText() redacts every token in a string, not only the first", () => {
    const a = fake("ghp", "_", ALNUM36);
    expect(redactText(`${a} and ${a}`)).toBe(`${REDACTED} and ${REDACTED}`);
  });
});

describe("redactText() in lower case (canonical excerpts)", () => {
  test.each<[string, string]>([
    ["AWS access key id", fake("akia", "iosfodnn7example")],
    ["Google API key", fake("aiza", "sya-1234567890abcdefghijklmnopqrstu")],
    ["JWT", fake("eyjhbgcioijiuzi1nij9", ".", "eyjzdwiioiixmjm0nty3odkwin0", ".", "dozjg")],
    ["PEM private key", fake("-----begin ", "private key-----\nmiieow")],
  ])("redactText() redacts a lower-cased %s", (_kind, token) => {
    expect(redactText(`x ${token}`)).toBe(`x ${REDACTED}`);
  });

  test.each<[string, string, string]>([
    ["a header", `authorization: ${fake("basic ", "dxnlcjpwyxnz")}`, `authorization: ${REDACTED}`],
    [
      "a JSON header",
      `{"authorization": "${fake("basic ", "dxnlcjpwyxnz")}"}`,
      `{"authorization": "${REDACTED}"}`,
    ],
    [
      "a proxy header",
      `proxy-authorization:${fake("basic ", "dxnlcjpwyxnz==")}`,
      `proxy-authorization:${REDACTED}`,
    ],
    ["a capital scheme", `x ${fake("BASIC ", "dXNlcjpwYXNz")}`, `x ${REDACTED}`],
  ])(
    "redactText() redacts HTTP Basic credentials in %s whatever the scheme's case",
    (_kind, input, expected) => {
      expect(redactText(input)).toBe(expected);
    },
  );

  test("redactText() keeps lower-case prose about basics", () => {
    expect(redactText("basic information about basic education")).toBe(
      "basic information about basic education",
    );
  });

  test("redactText() keeps a lower-case word of twenty letters that starts like an AWS key id", () => {
    expect(redactText("asiapacificregionals")).toBe("asiapacificregionals");
  });
});

describe("redactCutTokens()", () => {
  test.each<[string, string, string]>([
    ["GitHub", `"note ${fake("ghp", "_", "abcdefghijklmnopqrst")}…"`, `"note ${REDACTED}…"`],
    ["AWS, lower-cased", `"${fake("akia", "iosfodnn7e")}…"`, `"${REDACTED}…"`],
    ["Bearer", `"${fake("Bearer ", "abc.def")}…" and more`, `"${REDACTED}…" and more`],
    ["URL password", `"https://bob:${fake("hunter", "2sec")}…"`, `"https://bob:${REDACTED}…"`],
  ])("redactCutTokens() redacts a %s token cut by a `…`", (_kind, input, expected) => {
    expect(redactCutTokens(input)).toBe(expected);
  });

  test.each<[string, string]>([
    ["a short start", '"sk-ab…"'],
    ["a token start not at a cut", `"${fake("ghp", "_", "abcdefghijklmnopqrst")}" then…`],
    ["a port at a cut", '"https://host.example:8080…"'],
    ["a text without a cut", fake("ghp", "_", "abcdefghijklmnopqrst")],
  ])("redactCutTokens() keeps %s", (_kind, input) => {
    expect(redactCutTokens(input)).toBe(input);
  });
});

describe("cutLongString()", () => {
  test("cutLongString() keeps a string of exactly 1 KiB", () => {
    const text = "a".repeat(MAX_STRING_BYTES);
    expect(cutLongString(text)).toBe(text);
  });

  test("cutLongString() cuts a string over 1 KiB to 1 KiB and appends its length and SHA-256", () => {
    const text = "a".repeat(MAX_STRING_BYTES + 1);
    const digest = createHash("sha256").update(text).digest("hex");
    expect(cutLongString(text)).toBe(`${"a".repeat(1024)}…[cut 1025 bytes sha256:${digest}]`);
  });

  test("cutLongString() never splits a multi-byte character", () => {
    const text = "€".repeat(1000);
    const cut = cutLongString(text);
    const prefix = cut.slice(0, cut.indexOf("…"));
    expect(prefix).toBe("€".repeat(341));
    expect(cut).not.toContain("\uFFFD");
    expect(cut).toContain("[cut 3000 bytes sha256:");
  });
});

describe("redactJson()", () => {
  test("redactJson() redacts secret-named values at any depth, whatever their type", () => {
    const out = redactJson({
      headers: { Authorization: "x", "X-Api-Key": 1234567, accept: "json" },
      auth: { user: "u", password: "p" },
      items: [{ token: ["a", "b"] }, { name: "n" }],
    });
    expect(out).toEqual({
      headers: { Authorization: REDACTED, "X-Api-Key": REDACTED, accept: "json" },
      auth: REDACTED,
      items: [{ token: REDACTED }, { name: "n" }],
    });
  });

  test("redactJson() keeps booleans, null and numbers of up to six digits under secret-like names (counts and switches)", () => {
    expect(
      redactJson({
        max_tokens: 1000,
        token_count: 12,
        use_auth: true,
        auth: null,
        password: 1234567,
        key: 0.5,
      }),
    ).toEqual({
      max_tokens: 1000,
      token_count: 12,
      use_auth: true,
      auth: null,
      password: REDACTED,
      key: REDACTED,
    });
  });

  test("redactText() hides the secrets of a quoted command line and keeps the word after it (a quoted text holding name=value is no JSON key)", () => {
    expect(
      redactText(
        'Cannot start upstream "npx -y pkg --api-key sk-abcdefghijklmnopqrstuvwx12345 --password=hunter2hunter2": not found in PATH',
      ),
    ).toBe(
      'Cannot start upstream "npx -y pkg --api-key [redacted] --password=[redacted]": not found in PATH',
    );
  });

  test("redactJson() hides a short number under a secret-like name that is no measure: a numeric password, PIN or one-time code is the secret", () => {
    expect(
      redactJson({
        password: 123456,
        pin: 1234,
        pin_number: 4321,
        otp: 493021,
        token: 123456,
        api_key: 42,
        headers: [{ name: "X-PIN", value: 1234 }],
      }),
    ).toEqual({
      password: REDACTED,
      pin: REDACTED,
      pin_number: REDACTED,
      otp: REDACTED,
      token: REDACTED,
      api_key: REDACTED,
      headers: [{ name: "X-PIN", value: REDACTED }],
    });
  });

  test("redactJson() keeps a short number under a secret-like measure's name (a count, a length, a time)", () => {
    expect(
      redactJson({ key_count: 3, password_min_length: 12, token_ttl: 3600, prompt_tokens: 900, num_keys: 2 }),
    ).toEqual({ key_count: 3, password_min_length: 12, token_ttl: 3600, prompt_tokens: 900, num_keys: 2 });
  });

  test("redactJson() hides one-time codes, passcodes, PINs, card codes and mnemonics by their names", () => {
    const secrets = {
      otp: "493021",
      totp_code: "123456",
      mfa_code: "654321",
      passcode: "884422",
      pin: "1234",
      cvv: "123",
      mnemonic: "abandon ability able about",
    };
    expect(redactJson(secrets)).toEqual(
      Object.fromEntries(Object.keys(secrets).map((key) => [key, REDACTED])),
    );
  });

  test("redactJson() keeps where a secret-named address or URL leads: its domain, its scheme and host", () => {
    expect(
      redactJson({
        auth_email: "attacker@evil.example",
        oauth_redirect_uri: "https://attacker.example/cb?x=1",
        token_endpoint: "https://evil.example",
        password: "hunter2-long",
        api_key: "https://u:pw0rd@evil.example/x",
      }),
    ).toEqual({
      auth_email: "[redacted]@evil.example",
      oauth_redirect_uri: "https://attacker.example/[redacted]",
      token_endpoint: "https://evil.example",
      password: REDACTED,
      api_key: "https://u:[redacted]@evil.example/[redacted]",
    });
  });

  test("redactJson() reads a {name, value} pair's label as the name: the label shown, the value hidden when it is secret-like", () => {
    expect(
      redactJson({
        headers: [
          { key: "X-Api-Key", value: "Zq9xLmP2vK" },
          { name: "Authorization", value: "token abc123xyz" },
          { name: "Accept", value: "json" },
        ],
        env: [
          { name: "DB_PASSWORD", value: "hunter2xyz" },
          { name: "REGION", value: "eu-west-1" },
        ],
        pairs: [
          ["Authorization", "token abc123xyz"],
          ["accept", "json"],
        ],
        kv: { key: "sort_order", val: "asc" },
      }),
    ).toEqual({
      headers: [
        { key: "X-Api-Key", value: REDACTED },
        { name: "Authorization", value: REDACTED },
        { name: "Accept", value: "json" },
      ],
      env: [
        { name: "DB_PASSWORD", value: REDACTED },
        { name: "REGION", value: "eu-west-1" },
      ],
      pairs: [
        ["Authorization", REDACTED],
        ["accept", "json"],
      ],
      kv: { key: "sort_order", val: "asc" },
    });
  });

  test("redactJson() reads a prefixed pair's label as the name: headerName/headerValue, ParameterKey/ParameterValue, OptionName/Value", () => {
    expect(
      redactJson({
        headers: [
          { headerName: "Authorization", headerValue: "token abc123xyz" },
          { headerName: "Accept", headerValue: "json" },
        ],
        Parameters: [
          { ParameterKey: "DbPassword", ParameterValue: "hunter2xyz" },
          { ParameterKey: "VpcId", ParameterValue: "vpc-0abc" },
        ],
        OptionSettings: [{ Namespace: "aws:rds:dbinstance", OptionName: "DBPassword", Value: "hunter2xyz" }],
        jar: [{ cookieName: "session_id", cookieValue: "s3ss10nv4lue" }],
      }),
    ).toEqual({
      headers: [
        { headerName: "Authorization", headerValue: REDACTED },
        { headerName: "Accept", headerValue: "json" },
      ],
      Parameters: [
        { ParameterKey: "DbPassword", ParameterValue: REDACTED },
        { ParameterKey: "VpcId", ParameterValue: "vpc-0abc" },
      ],
      OptionSettings: [{ Namespace: "aws:rds:dbinstance", OptionName: "DBPassword", Value: REDACTED }],
      jar: [{ cookieName: "session_id", cookieValue: REDACTED }],
    });
  });

  test("redactJson() still hides a key's own value beside a value member, and a value member named like a secret", () => {
    expect(
      redactJson({
        a: { apiKey: "S3cretApiKey", apiValue: "x" },
        b: { tokenName: "deploy", tokenValue: "S3cretTokVal" },
        c: { accessKey: "S3cretAccess", value: "v" },
      }),
    ).toEqual({
      a: { apiKey: REDACTED, apiValue: "x" },
      b: { tokenName: "deploy", tokenValue: REDACTED },
      c: { accessKey: REDACTED, value: "v" },
    });
  });

  test("redactJson() redacts a password glued to its flag or after a user in an argv list, as the same command in one string", () => {
    expect(
      redactJson({
        mysql: ["mysql", "-uroot", "-pMyArgvPw9", "db"],
        curl: ["curl", "-u", "bob:CurlArgvPw9", "https://api.example/x"],
        sqlcmd: ["sqlcmd", "-S", "db", "-U", "sa", "-P", "SqlArgvPw9"],
        ssh: ["ssh", "-p", "2222", "bob@host"],
        docker: ["docker", "run", "-p", "8080:80", "nginx"],
        mixed: ["mysql", 1, "-pNotAnArgv"],
      }),
    ).toEqual({
      mysql: ["mysql", "-uroot", `-p${REDACTED}`, "db"],
      curl: ["curl", "-u", `bob:${REDACTED}`, "https://api.example/x"],
      sqlcmd: ["sqlcmd", "-S", "db", "-U", "sa", "-P", REDACTED],
      ssh: ["ssh", "-p", "2222", "bob@host"],
      docker: ["docker", "run", "-p", "8080:80", "nginx"],
      mixed: ["mysql", 1, "-pNotAnArgv"],
    });
  });

  test("redactJson() and redactText() keep a labelled pair whose label names where or how a secret is kept, not the secret", () => {
    const pairs = [
      { name: "token_endpoint", value: "https://auth.example/oauth/token" },
      { name: "jwks_uri", value: "https://auth.example/.well-known/jwks.json" },
      { key: "credential.helper", value: "store" },
      { name: "key_type", value: "ed25519" },
    ];
    expect(redactJson(pairs)).toEqual(pairs);
    expect(redactText(JSON.stringify(pairs))).toBe(JSON.stringify(pairs));
    expect(redactJson([{ name: "DB_PASSWORD", value: "S3cretPairPw" }])).toEqual([
      { name: "DB_PASSWORD", value: REDACTED },
    ]);
  });

  test("redactJson() keeps an argv's short flags that are another program's, and lists that are no command line", () => {
    const lists = [
      ["docker", "run", "-u", "1000:1000", "img"],
      ["rsync", "-u", "src:/data", "dst"],
      ["find", ".", "-name", "mysql", "-print"],
      ["apps", "mysql", "mariadb", "-pinned"],
      ["tags", "mysql", "-p8080"],
      ["-v", "curl", "-u", "bob:not-an-argv"],
    ];
    expect(redactJson(lists)).toEqual(lists);
  });

  test("redactJson() redacts a password glued to its flag where its program is launched (docker exec, sudo, kubectl exec --, a path)", () => {
    expect(
      redactJson({
        exec: ["docker", "exec", "-it", "db", "mysql", "-uroot", "-pExecArgvPw9"],
        sudo: ["sudo", "-u", "root", "mysql", "-pSudoArgvPw9"],
        kube: ["kubectl", "exec", "pod", "--", "mysql", "-pKubeArgvPw9"],
        path: ["/usr/bin/mysql", "-pPathArgvPw9"],
        http: ["http", "-a", "bob:HttpArgvPw9", "api.example"],
      }),
    ).toEqual({
      exec: ["docker", "exec", "-it", "db", "mysql", "-uroot", `-p${REDACTED}`],
      sudo: ["sudo", "-u", "root", "mysql", `-p${REDACTED}`],
      kube: ["kubectl", "exec", "pod", "--", "mysql", `-p${REDACTED}`],
      path: ["/usr/bin/mysql", `-p${REDACTED}`],
      http: ["http", "-a", `bob:${REDACTED}`, "api.example"],
    });
  });

  test("redactJson() redacts the element after a secret-named flag in an argv list, as the same command in one string", () => {
    const placeholder = ["$", "{PW}"].join("");
    expect(
      redactJson({
        argv: ["psql", "-h", "db", "--password", "S3cretArgvPw", "--api-key", "S3cretArgvKey"],
        java: ["keytool", "-token", "S3cretShort", "-v"],
        joined: ["srv", "--token=S3cretJoined", "--db-password", 12345678],
        kept: ["llm", "--max-tokens", "1000", "--password", placeholder, "--token", "--verbose", "--api-key"],
        dest: ["curl", "--token-url", "https://auth.example/oauth/x"],
      }),
    ).toEqual({
      argv: ["psql", "-h", "db", "--password", REDACTED, "--api-key", REDACTED],
      java: ["keytool", "-token", REDACTED, "-v"],
      joined: ["srv", `--token=${REDACTED}`, "--db-password", REDACTED],
      kept: ["llm", "--max-tokens", "1000", "--password", placeholder, "--token", "--verbose", "--api-key"],
      dest: ["curl", "--token-url", `https://auth.example/${REDACTED}`],
    });
    expect(redactText("psql --password S3cretArgvPw --max-tokens 1000")).toBe(
      `psql --password ${REDACTED} --max-tokens 1000`,
    );
  });

  test("redactJson() redacts tokens and cuts long strings inside arguments", () => {
    const long = "z".repeat(5000);
    const out = redactJson({
      body: `use ${fake("ghp", "_", ALNUM36)}`,
      list: [long],
      n: 3,
      ok: true,
      none: null,
    });
    expect(out).toMatchObject({ body: `use ${REDACTED}`, n: 3, ok: true, none: null });
    const list = (out as { list: string[] }).list;
    expect(list[0]).toContain(`sha256:${createHash("sha256").update(long).digest("hex")}`);
  });

  test("redactJson() keeps a __proto__ key as an own key and pollutes nothing", () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c", "toString": "t"}');
    const out = redactJson(args) as Record<string, unknown>;
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"constructor":"c","toString":"t"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("redactJson() replaces nesting deeper than 64 levels with a marker", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(JSON.stringify(redactJson(deep))).toContain('"[too deep]"');
  });

  test("redactJson() redacts token-shaped keys without losing a colliding key", () => {
    const token = fake("ghp", "_", ALNUM36);
    const out = redactJson({ [token]: 1, [REDACTED]: 2 }) as Record<string, unknown>;
    expect(Object.values(out).sort()).toEqual([1, 2]);
    expect(JSON.stringify(out)).not.toContain(token);
  });
});

describe("redactTokens() quick search", () => {
  /**
   * Replacing with each pattern in turn, as redactTokens does when its quick search finds a token,
   * then hiding secret-named fields (done whatever the quick search finds).
   */
  const everyPattern = (text: string): string =>
    redactSecretFields(
      TOKEN_PATTERNS.reduce(
        (out, pattern) => out.replace(new RegExp(pattern.source, pattern.flags), REDACTED),
        text,
      ),
    );
  const pieces = [
    "ghp_",
    "gho_",
    "github_pat_",
    "sk-",
    "sk-ant-",
    "xoxb-",
    "xapp-",
    "AKIA",
    "ASIA",
    "eyJ",
    "eyJhbGciOi.",
    ".",
    "Bearer ",
    "bearer\t",
    "Basic ",
    "AIza",
    "sk_live_",
    "rk_test_",
    "glpat-",
    "npm_",
    "hf_",
    "-----BEGIN PRIVATE KEY-----",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "https://",
    "HTTP://",
    "user:",
    "@",
    "a1B2c3D4e5F6g7H8i9J0",
    "0123456789",
    "ABCDEFGHIJKLMNOP",
    "=",
    " ",
    "\n",
    "_",
    "-",
    "x",
    "é",
  ];
  const text = fc
    .array(fc.constantFrom(...pieces), { maxLength: 40 })
    .chain((parts) => fc.tuple(fc.constant(parts.join("")), fc.nat(300)))
    .map(([joined, pad]) => (joined.length > 0 ? joined.repeat(Math.ceil((pad + 1) / joined.length)) : ""));

  test("redactTokens() gives what replacing with every token pattern gives, for short and long strings", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          text,
          fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((p) => p.join("")),
        ),
        (value) => {
          expect(redactTokens(value)).toBe(everyPattern(value));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("redactTokens() still redacts a token in a string just under and just over the quick-search limit", () => {
    const token = fake("ghp", "_", ALNUM36);
    for (const length of [255, 256, 257]) {
      const value = `${"x ".repeat(length).slice(0, length - token.length - 1)} ${token}`;
      expect(value).toHaveLength(length);
      expect(redactTokens(value)).toBe(everyPattern(value));
      expect(redactTokens(value)).not.toContain(token);
    }
  });
});

describe("name caches", () => {
  test("isSecretName() answers the same for a name seen before and after more than a thousand other names", () => {
    const names = ["api_key", "keyword", "X-Auth-Token", "__proto__", "constructor", "toString"];
    const first = names.map(isSecretName);
    for (let i = 0; i < 3000; i++) isSecretName(`name${i}`);
    expect(names.map(isSecretName)).toEqual(first);
    expect(first).toEqual([true, false, true, false, false, false]);
  });

  test("redactJson() redacts a token-shaped key and a secret-named key the same way on every call", () => {
    const key = fake("ghp", "_", ALNUM36);
    const value = { [key]: "v", password: "hunter2", plain: "ok" };
    const first = redactJson(value);
    for (let i = 0; i < 3000; i++) redactJson({ [`k${i}`]: i });
    expect(redactJson(value)).toEqual(first);
    expect(first).toEqual({ [REDACTED]: "v", password: REDACTED, plain: "ok" });
  });
});

describe("redactJson() of a program's arguments beside its name", () => {
  test("redactJson() hides a password in an args list its sibling command makes a command line, and nothing else", () => {
    expect(redactJson({ command: "curl", args: ["-u", "bob:S3cretPw9", "https://x.example"] })).toEqual({
      command: "curl",
      args: ["-u", `bob:${REDACTED}`, "https://x.example"],
    });
    expect(redactJson({ cmd: "mysql", argv: ["-uroot", "-pS3cretPw9"] })).toEqual({
      cmd: "mysql",
      argv: ["-uroot", `-p${REDACTED}`],
    });
    expect(redactJson({ command: "docker", args: ["run", "-u", "1000:1000", "img"] })).toEqual({
      command: "docker",
      args: ["run", "-u", "1000:1000", "img"],
    });
    // Not the arguments of that program: another member's list.
    expect(redactJson({ command: "curl", tags: ["-u", "bob:visible"] })).toEqual({
      command: "curl",
      tags: ["-u", "bob:visible"],
    });
  });
});

describe("redactJson() of an args list whose first element is no flag", () => {
  test("redactJson() judges the whole list as its command's arguments, the first element a URL or a database", () => {
    expect(redactJson({ command: "curl", args: ["https://x.example", "-u", "bob:S3cretPw9"] })).toEqual({
      command: "curl",
      args: ["https://x.example", "-u", `bob:${REDACTED}`],
    });
    expect(redactJson({ command: "mysql", args: ["db", "-pS3cretPw9"] })).toEqual({
      command: "mysql",
      args: ["db", `-p${REDACTED}`],
    });
  });
});
