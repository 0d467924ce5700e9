// biome-ignore-all lint/suspicious/noTemplateCurlyInString: client placeholders such as ${VAR} are the data under test
import { describe, expect, test } from "bun:test";
import {
  hasSecretArgs,
  isSecretArg,
  literalSecretWarnings,
  secretArgValues,
} from "../../src/init/secret-args.ts";
import {
  hasTokenShape,
  isPlaceholder,
  isSecretName,
  maskText,
  maskTokens,
  maskValues,
} from "../../src/init/secrets.ts";
import type { ConfigEntry } from "../../src/init/types.ts";

describe("hasTokenShape() and maskTokens()", () => {
  test.each([
    ["ghp_FAKE000000000000000000000000000000", "ghp_********"],
    ["github_pat_11AAAAAAA0aaaaaaaaaaaa_bbbb", "github_pat_********"],
    ["sk-ant-api03-AAAAAAAAAAAAAAAAAAAA", "sk-********"],
    ["xoxb-1234567890-abcdefghij", "xoxb-********"],
    ["AKIAABCDEFGHIJKLMNOP", "AKIA********"],
    ["Authorization: Bearer abcdefgh12345678", "Authorization: Bearer ********"],
    ["eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2QT4", "eyJ********"],
  ])("maskTokens() hides %j", (text, masked) => {
    expect(hasTokenShape(text) || text.includes("Bearer")).toBe(true);
    expect(maskTokens(text)).toBe(masked);
  });

  test.each(["task-force-abcdefghijklmnopqrs", "@modelcontextprotocol/server-github", "/Users/<USER>/tools"])(
    "hasTokenShape() does not take %j for a token",
    (text) => {
      expect(hasTokenShape(text)).toBe(false);
    },
  );
});

describe("isSecretName() and isPlaceholder()", () => {
  test.each([
    ["GITHUB_PERSONAL_ACCESS_TOKEN", true],
    ["apiKey", true],
    ["KALI_API_KEY", true],
    ["DB_PASSWORD", true],
    ["ACCESSTOKEN", true],
    ["SMTP_PASS", true],
    ["bearer", true],
    ["SERVICE_JWT", true],
    ["PYTHONPATH", false],
    ["PRIVATE_REPOS", false],
    ["MONKEY_MODE", false],
    ["OBSIDIAN_BASE_URL", false],
  ])("isSecretName(%j) is %p", (name, expected) => {
    expect(isSecretName(name)).toBe(expected);
  });

  test.each([
    ["${GITHUB_TOKEN}", true],
    ["${input:github_token}", true],
    ["$TOKEN", true],
    ["<YOUR_API_KEY_HERE>", true],
    ["[REDACTED_API_KEY]", true],
    ["", true],
    ["ghp_FAKE000000000000000000000000000000", false],
    ["hunter2", false],
  ])("isPlaceholder(%j) is %p", (value, expected) => {
    expect(isPlaceholder(value)).toBe(expected);
  });
});

describe("literalSecretWarnings()", () => {
  const entry = (env: [string, string][], args: string[] = []): ConfigEntry => ({
    name: "s",
    scope: ["mcpServers"],
    label: "s",
    kind: "stdio",
    command: "x",
    args,
    env,
    span: { start: 0, end: 0 },
  });

  test("literalSecretWarnings() names the key but never the value", () => {
    const warnings = literalSecretWarnings(
      entry([
        ["API_TOKEN", "hunter2hunter2"],
        ["HOME_DIR", "/h"],
      ]),
    );
    expect(warnings).toEqual([
      'Server "s": env "API_TOKEN" holds a literal secret (value not shown): prefer a placeholder the client expands',
    ]);
    expect(warnings.join("")).not.toContain("hunter2");
  });

  test("literalSecretWarnings() says nothing about placeholders", () => {
    expect(literalSecretWarnings(entry([["GITHUB_TOKEN", "${GITHUB_TOKEN}"]]))).toEqual([]);
  });

  test("literalSecretWarnings() says nothing about a placeholder or a path after a secret-named flag", () => {
    for (const args of [
      ["--api-key", "${API_KEY}"],
      ["--token=${TOKEN}"],
      ["--key-file", "/home/me/.config/key.pem"],
    ]) {
      expect({ args, warnings: literalSecretWarnings(entry([], args)) }).toEqual({ args, warnings: [] });
    }
    // Masking and the stash stay as strict: such a value is still withheld.
    expect(hasSecretArgs(["--api-key", "${API_KEY}"])).toBe(true);
  });

  test("literalSecretWarnings() warns about a token in the arguments", () => {
    expect(literalSecretWarnings(entry([], ["--key", "sk-AAAAAAAAAAAAAAAAAAAAAA"]))).toEqual([
      'Server "s": an argument holds a literal secret (value not shown)',
    ]);
  });

  test("literalSecretWarnings() warns about a secret-named flag and its value written as one argument, not a placeholder there", () => {
    expect(literalSecretWarnings(entry([], ["srv", "--token objsecret33"]))).toEqual([
      'Server "s": an argument holds a literal secret (value not shown)',
    ]);
    expect(literalSecretWarnings(entry([], ["srv", "--token ${TOKEN}"]))).toEqual([]);
  });

  test("literalSecretWarnings() warns about the value after a secret-named flag (the entry gets no stash for it)", () => {
    expect(literalSecretWarnings(entry([], ["--api-key", "plainvalue123"]))).toEqual([
      'Server "s": an argument holds a literal secret (value not shown)',
    ]);
  });

  test("literalSecretWarnings() warns about a secret in the command string itself", () => {
    const base = entry([], ["x"]);
    expect(literalSecretWarnings({ ...base, command: "env API_KEY=abc123def npx" })).toEqual([
      'Server "s": an argument holds a literal secret (value not shown)',
    ]);
  });

  test("literalSecretWarnings() warns about a docker -e assignment of a secret", () => {
    expect(literalSecretWarnings(entry([], ["run", "-e", "DB_PASSWORD=hunter2", "img"]))).toEqual([
      'Server "s": an argument holds a literal secret (value not shown)',
    ]);
  });
});

describe("isSecretArg()", () => {
  test.each([
    ["a docker -e assignment", "BRAVE_API_KEY=abcd1234"],
    ["an assignment inside a shell command", "API_KEY=abc123 exec node server.js"],
    ["a database URL's password", "postgresql://admin:Sup3rS3cret@db:5432/app"],
    ["an https URL's password", "https://user:tok3n@git.example/repo"],
    ["a secret-named query parameter", "https://api.example/v1?api_key=abc123"],
    ["a header-shaped argument", "X-API-Key: 0123456789abcdef"],
    ["a Bearer credential", "Authorization: Bearer abcdefghijkl"],
    ["a Stripe key", "sk_live_abcdefghijklmnop1234"],
    ["a Hugging Face token", "hf_abcdefghijklmnopqrstuvwxyz12345"],
    ["a SendGrid key", "SG.abcdefghijklmnopqr.abcdefghijklmnopqrstu"],
    ["a Google OAuth token", "ya29.abcdefghijklmnopqrstuvwxyz"],
    ["a Linear key", "lin_api_abcdefghijklmnopqrstuvwx"],
    ["a Perplexity key", "pplx-abcdefghijklmnopqrstuvwx"],
    ["a base64 key that starts with a slash", "API_KEY=/9j4AAQSkZJRgABAQAAAQABAAD+x"],
    ["a long numeric token", "TOKEN=8213749182374918237"],
    ["a secret-named key of a JSON-valued argument", '{"apiKey":"plainvalue95"}'],
    ["a key nested in a JSON-valued argument", '{"server": {"auth": {"user": "me", "pass": "x"}}}'],
    ["a list under a secret-named key", '{"token": ["plainvalue1"]}'],
    ["a secret-named key in a JSON list", '[{"password": "plainvalue2"}]'],
    ["a long number under a secret-named key", '{"pin": 1, "secret": 12345678901}'],
    ["JSON after a flag's =", '--config={"token":"plainvalue3"}'],
    ["JSON after an assignment's =", 'SETTINGS={"client_secret": "plainvalue4"}'],
    ["JSON inside a JSON string", JSON.stringify({ env: JSON.stringify({ token: "plainvalue5" }) })],
    ["a token shape inside a JSON-valued argument", '{"x": "ghp_FAKE000000000000000000000000000000"}'],
    ["an assignment after a comma", "mode=fast,token=plainvalue6"],
    ["a single-quoted assignment in sh -c", "GITHUB_TOKEN='S3cretSingleQ' exec npx -y srv"],
    ["a double-quoted export in sh -c", 'export API_KEY="S3cretDoubleQ"; exec npx srv'],
    ["a double-quoted value with an escaped quote", 'API_KEY="S3c\\"ret Q" exec srv'],
    ["a quote left open", "TOKEN='plainvalue7"],
    ["a secret flag's value in sh -c", "exec npx srv --api-key S3cretFlagVal"],
    ["a secret flag's = value in sh -c", "exec npx srv --api-key=S3cretFlagVal && echo ok"],
    ["a quoted secret flag value in sh -c", "npx srv --token 'S3cretQuoted' --port 8080"],
  ])("isSecretArg() finds %s", (_name, value) => {
    expect(isSecretArg(value)).toBe(true);
  });

  test.each([
    ["a placeholder assignment", "BRAVE_API_KEY=${BRAVE_API_KEY}"],
    ["a plain assignment", "DEBUG=1"],
    ["a URL without a password", "postgresql://admin@db/app"],
    ["a plain query", "https://example.com/path?page=2"],
    ["a plain header", "Content-Type: application/json"],
    ["an image name", "mcp/brave-search"],
    ["a secret-named flag itself", "--api-key"],
    ["a Bearer placeholder header", "Authorization: Bearer ${AUTH_TOKEN}"],
    ["a key file's path", "KEY_FILE=/home/me/key.pem"],
    ["an agent socket's path", "SSH_AUTH_SOCK=/tmp/agent.sock"],
    ["a boolean", "PRIVATE_REPOS=false"],
    ["a {env:VAR} placeholder", "TOKEN={env:TOKEN}"],
    ["a placeholder in a JSON-valued argument", '{"apiKey":"${API_KEY}"}'],
    ["a key file's path in a JSON-valued argument", '{"keyFile": "/home/me/key.pem", "privateRepos": false}'],
    ["a JSON-valued argument without secret names", '{"name": "x", "port": 8080, "tags": ["a"]}'],
    ["text that only starts like JSON", '{"apiKey": not json'],
    ["a quoted placeholder assignment", "GITHUB_TOKEN='${GITHUB_TOKEN}' exec npx srv"],
    ["a double-quoted placeholder export", 'export API_KEY="$API_KEY"; exec npx srv'],
    ["an empty quoted assignment", "TOKEN='' exec srv"],
    ["a quoted plain assignment", 'DEBUG="1" exec srv'],
    ["a secret flag's placeholder in sh -c", 'exec npx srv --api-key "$API_KEY"'],
    ["a secret flag followed by another flag in sh -c", "exec npx srv --api-key --verbose"],
    ["a secret-named measure flag's number in sh -c", "exec npx srv --max-tokens 1000"],
  ])("isSecretArg() passes %s", (_name, value) => {
    expect(isSecretArg(value)).toBe(false);
  });

  test("secretArgValues() gives a quoted assignment's value without its quotes (as a server echoes it)", () => {
    const values = secretArgValues(["-c", `GITHUB_TOKEN='S3cretSingleQ' API_KEY="a\\"b" exec npx srv`]);
    expect(values).toContain("S3cretSingleQ");
    expect(values).toContain('a"b');
  });

  test("secretArgValues() gives a secret flag's value inside sh -c, without its quotes", () => {
    const values = secretArgValues(["-c", "exec npx srv --token 'S3cretQuoted' --port 8080"]);
    expect(values).toContain("S3cretQuoted");
    expect(hasSecretArgs(["sh", "-c", "exec npx srv --api-key S3cretFlagVal"])).toBe(true);
  });

  test("secretArgValues() gives the password alone of -pS3cret, -u user:password and a labelled pair (what doctor hides in a server's stderr)", () => {
    const values = secretArgValues([
      "mysql",
      "-pS3cretGlued",
      "--fetch",
      "curl -u bob:S3cretCurl https://x",
      '[{"name":"X-Api-Key","value":"S3cretPair"}]',
    ]);
    expect(values).toContain("S3cretGlued");
    expect(values).toContain("S3cretCurl");
    expect(values).toContain("S3cretPair");
    expect(values).not.toContain("X-Api-Key");
    expect(hasSecretArgs(["ssh", "-p", "2222", "host"])).toBe(false);
  });

  test("hasSecretArgs() and secretArgValues() take a short flag's password only after its program (-u 1000:1000 is docker's user)", () => {
    expect(hasSecretArgs(["docker", "run", "-i", "--rm", "-u", "1000:1000", "mcp/filesystem"])).toBe(false);
    expect(secretArgValues(["run", "-i", "--rm", "-u", "1000:1000", "mcp/filesystem"])).toEqual([]);
    expect(secretArgValues(["find", ".", "-name", "mysql", "-print"])).toEqual([]);
    expect(hasSecretArgs(["curl", "-u", "bob:S3cretCurlPw", "https://x.example"])).toBe(true);
    // The entry's command given apart: its arguments are the program's.
    expect(secretArgValues(["-u", "bob:S3cretCurlPw"], { command: "curl" })).toContain("S3cretCurlPw");
    expect(secretArgValues(["-uroot", "-pS3cretGlued"], { command: "/usr/bin/mysql" })).toContain(
      "S3cretGlued",
    );
    expect(secretArgValues(["-u", "1000:1000"], { command: "docker" })).toEqual([]);
  });

  test("isSecretArg() takes no labelled pair whose label names where a secret is fetched", () => {
    expect(isSecretArg('[{"name":"token_endpoint","value":"https://auth.example/oauth/token-x1"}]')).toBe(
      false,
    );
    expect(isSecretArg('[{"name":"DB_PASSWORD","value":"S3cretPairPw"}]')).toBe(true);
  });

  test("hasSecretArgs() counts a Bearer credential (no stash for it)", () => {
    expect(hasSecretArgs(["npx", "mcp-remote", "--header", "Authorization: Bearer abcdefghijkl"])).toBe(true);
    expect(hasSecretArgs(["npx", "-y", "pkg", "/data"])).toBe(false);
  });
});

describe("masking", () => {
  test("maskText() replaces ranges keeping quotes and masks tokens elsewhere", () => {
    const text = '{"env": {"A": "secret-value"}, "x": "ghp_FAKE000000000000000000000000000000"}';
    const start = text.indexOf('"secret-value"');
    expect(maskText(text, [{ start, end: start + 14 }])).toBe(
      '{"env": {"A": "********"}, "x": "ghp_********"}',
    );
  });

  test("maskValues() hides every occurrence of known values, longest first", () => {
    expect(maskValues("token=abcd1234 and abcd1234x and abc", ["abcd1234", "abcd1234x", "abc"])).toBe(
      "token=******** and ******** and abc",
    );
  });

  test.each([
    [["--api-key", "k"], true],
    [["--token=abc"], true],
    [["-y", "pkg", "/tmp"], false],
    [["ghp_FAKE000000000000000000000000000000"], true],
    [["-y", "srv", "-k", "plainvalue98"], true],
    [["-k=plainvalue98"], true],
    [["-p", "8080", "-t", "x"], false],
    [["srv", '{"apiKey":"plainvalue95"}'], true],
    [["srv", "--token objsecret33"], true],
    [["srv", "--bearer", "objsecret34"], true],
    [["srv", "--port 8080", "--name my server"], false],
  ])("hasSecretArgs(%j) is %p", (args, expected) => {
    expect(hasSecretArgs(args)).toBe(expected);
  });
});
