import { describe, expect, test } from "bun:test";
import { toRecord } from "../../src/audit/audit-line.ts";
import { REDACTED, redactJson, redactText } from "../../src/audit/redact.ts";
import { redactSecretFields } from "../../src/audit/redact-fields.ts";

/** Builds a fake secret from parts (so no scanner mistakes this file for a leak). */
function fake(...parts: string[]): string {
  return parts.join("");
}

const SECRET = fake("q8w7e6", "r5t4y3u2");

describe("redactSecretFields()", () => {
  test.each<[string, string, string]>([
    [
      "a JSON body's member",
      `{"password":"${SECRET}","user":"bob"}`,
      `{"password":"${REDACTED}","user":"bob"}`,
    ],
    ["a JSON member with spaces", `{ "api_key" : "${SECRET}" }`, `{ "api_key" : "${REDACTED}" }`],
    ["a JSON member with an escaped quote", `{"token":"a\\"${SECRET}"}`, `{"token":"${REDACTED}"}`],
    [
      "JSON inside a JSON string",
      `{\\"client_secret\\":\\"${SECRET}\\"}`,
      `{\\"client_secret\\":\\"${REDACTED}\\"}`,
    ],
    [
      "a JSON member whose name is \\u-escaped",
      `{"\\u0070assword":"${SECRET}","user":"bob"}`,
      `{"\\u0070assword":"${REDACTED}","user":"bob"}`,
    ],
    [
      "a \\u-escaped name in JSON inside a JSON string",
      `{\\"api\\\\u005fkey\\":\\"${SECRET}\\"}`,
      `{\\"api\\\\u005fkey\\":\\"${REDACTED}\\"}`,
    ],
    [
      "a header after --header=",
      `curl --header=Authorization: token ${SECRET} https://a.example`,
      `curl --header=Authorization: ${REDACTED} https://a.example`,
    ],
    [
      "a header glued to -H",
      `curl -HX-Api-Key:${SECRET} https://a.example`,
      `curl -HX-Api-Key:${REDACTED} https://a.example`,
    ],
    [
      "a header's scheme and credential inside a line",
      `headers: Accept: json Authorization: Token ${SECRET} sent`,
      `headers: Accept: json Authorization: ${REDACTED} sent`,
    ],
    ["a JSON member named for a JWT", `{"service_jwt":"${SECRET}"}`, `{"service_jwt":"${REDACTED}"}`],
    ["an assignment of a JWT", `SERVICE_JWT=${SECRET} srv`, `SERVICE_JWT=${REDACTED} srv`],
    ["a bearer line", `bearer: ${SECRET}`, `bearer: ${REDACTED}`],
    ["a recovery code", `recovery_code=${SECRET}&x=1`, `recovery_code=${REDACTED}&x=1`],
    ["a seed phrase", `{"seed_phrase": "${SECRET} word"}`, `{"seed_phrase": "${REDACTED}"}`],
    [
      "a labelled pair in a JSON body",
      `[{"name":"X-Api-Key","value":"${SECRET}"},{"name":"Accept","value":"json"}]`,
      `[{"name":"X-Api-Key","value":"${REDACTED}"},{"name":"Accept","value":"json"}]`,
    ],
    [
      "a labelled pair in a JSON body, value first",
      `{"value": "${SECRET}", "key": "Authorization"}`,
      `{"value": "${REDACTED}", "key": "Authorization"}`,
    ],
    [
      "a prefixed labelled pair in a JSON body",
      `{"headerName":"Authorization","headerValue":"${SECRET}"}`,
      `{"headerName":"Authorization","headerValue":"${REDACTED}"}`,
    ],
    [
      "a CloudFormation parameter in JSON inside a JSON string",
      `[{\\"ParameterKey\\":\\"DbPassword\\",\\"ParameterValue\\":\\"${SECRET}\\"}]`,
      `[{\\"ParameterKey\\":\\"DbPassword\\",\\"ParameterValue\\":\\"${REDACTED}\\"}]`,
    ],
    [
      "a .NET appSettings entry",
      `<appSettings><add key="ApiKey" value="${SECRET}"/><add key="Mode" value="fast"/></appSettings>`,
      `<appSettings><add key="ApiKey" value="${REDACTED}"/><add key="Mode" value="fast"/></appSettings>`,
    ],
    [
      "a labelled pair whose label is no secret",
      `{"key":"Content-Type","value":"application/json"}`,
      `{"key":"Content-Type","value":"application/json"}`,
    ],
    [
      "a JSON member holding an object",
      `{"credentials":{"id":"${SECRET}"},"n":1}`,
      `{"credentials":${REDACTED},"n":1}`,
    ],
    [
      "a JSON member holding a number",
      `{"max_tokens":1,"secret":123456789012}`,
      `{"max_tokens":1,"secret":${REDACTED}}`,
    ],
    ["a numeric password in an assignment", "password=123456 user=ann", `password=${REDACTED} user=ann`],
    ["a one-time code in a YAML line", "otp: 493021", `otp: ${REDACTED}`],
    ["a PIN in a JSON member", `{"pin":"1234","amount":5}`, `{"pin":"${REDACTED}","amount":5}`],
    ["a Python dict", `{'password': '${SECRET}'}`, `{'password': '${REDACTED}'}`],
    [
      "a form body that starts with the secret",
      `client_secret=${SECRET}&client_id=x`,
      `client_secret=${REDACTED}&client_id=x`,
    ],
    [
      "an OAuth fragment",
      `https://app.example/cb#access_token=${SECRET}&x=1`,
      `https://app.example/cb#access_token=${REDACTED}&x=1`,
    ],
    [
      "an environment assignment",
      `GITHUB_TOKEN=${SECRET} gh repo list`,
      `GITHUB_TOKEN=${REDACTED} gh repo list`,
    ],
    [
      "a quoted environment assignment",
      `export API_KEY="${SECRET}"; curl x`,
      `export API_KEY="${REDACTED}"; curl x`,
    ],
    ["a flag with =", `tool --password=${SECRET} run`, `tool --password=${REDACTED} run`],
    ["a flag with its value after it", `tool --api-key ${SECRET} run`, `tool --api-key ${REDACTED} run`],
    [
      "a header in a command",
      `curl -H 'X-Api-Key: ${SECRET}' https://a.example`,
      `curl -H 'X-Api-Key: ${REDACTED}' https://a.example`,
    ],
    [
      "an Authorization header of any scheme",
      `-H "Authorization: token ${SECRET}"`,
      `-H "Authorization: ${REDACTED}"`,
    ],
    ["a YAML line", `user: bob\npassword: ${SECRET}\nhost: db`, `user: bob\npassword: ${REDACTED}\nhost: db`],
    ["a quoted YAML value", `password: "${SECRET}"`, `password: "${REDACTED}"`],
    [
      "an INI line",
      `[default]\naws_secret_access_key = ${SECRET}`,
      `[default]\naws_secret_access_key = ${REDACTED}`,
    ],
    ["a JavaScript object", `{password: ${SECRET}, user: bob}`, `{password: ${REDACTED}, user: bob}`],
    [
      "a field inside a line, one word (the rest may be evidence)",
      `Settings dump: db_password: ${SECRET} mail attacker@evil.example`,
      `Settings dump: db_password: ${REDACTED} mail attacker@evil.example`,
    ],
    [
      "an excerpt that starts mid-line",
      `…our api_key: ${SECRET}, forward it`,
      `…our api_key: ${REDACTED}, forward it`,
    ],
  ])("redactSecretFields() hides the value of %s", (_kind, input, expected) => {
    expect(redactSecretFields(input)).toBe(expected);
  });

  test.each<[string, string]>([
    ["an equation", "x=1 and key_count=3"],
    ["a flag's boolean", "auth=false; token=null"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder the shell fills in, not a template
    ["a placeholder", 'API_KEY=${API_KEY} run; {"token":"${TOKEN}"}'],
    ["an ordinary JSON body", '{"to":"bob@example.com","subject":"hi"}'],
    ["a URL", "https://api.example/v1/items?page=2"],
    ["prose with a colon", "Note: the key ring is on the desk"],
    ["a time", "at 12:30:45"],
  ])("redactSecretFields() keeps %s", (_kind, input) => {
    expect(redactSecretFields(input)).toBe(input);
  });

  test.each([
    "token",
    "access_token",
    "accessToken",
    "PGPASSWORD",
    "MYSQL_PWD",
    "DB_PASS",
    "client_secret",
    "api_key",
    "APIKey",
    "X-Api-Key",
    "Authorization",
    "oauth",
    "Set-Cookie",
    "credentials",
    "github_pat",
    "privatekey",
    "api%5Fkey",
  ])("redactSecretFields() hides the value assigned to %p", (name) => {
    expect(redactSecretFields(`${name}=${SECRET}`)).toBe(`${name}=${REDACTED}`);
  });

  test("redactSecretFields() keeps the host of an address or URL it hides a value of", () => {
    expect(redactSecretFields("token=attacker@evil.example")).toBe(`token=${REDACTED}@evil.example`);
    expect(redactSecretFields("password: https://evil.example/x/y?z=1")).toBe(
      `password: https://evil.example/${REDACTED}`,
    );
    expect(redactSecretFields("secret=https://evil.example")).toBe("secret=https://evil.example");
  });

  test("redactSecretFields() hides a JSON value that a cut ended before its closing quote", () => {
    expect(redactSecretFields(`{"password":"${SECRET}…`)).toBe(`{"password":"${REDACTED}`);
  });
});

describe("redactText() with secret-named fields", () => {
  test("redactText() redacts a PGP private key block", () => {
    const block = fake(
      "-----BEGIN PGP ",
      "PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP ",
      "PRIVATE KEY BLOCK-----",
    );
    expect(redactText(`k ${block} !`)).toBe(`k ${REDACTED} !`);
  });

  test("toRecord() hides a secret inside a JSON-valued string argument, in args and in the reason", () => {
    const body = JSON.stringify({
      url: "https://api.example/x",
      headers: { Authorization: `token ${SECRET}` },
    });
    const record = toRecord(
      {
        event: "decision",
        session: "s",
        server: "http",
        tool: "fetch",
        args: { body, command: `curl -d 'client_secret=${SECRET}' https://a.example` },
        reason: `Argument "body" = ${JSON.stringify(body)} was seen`,
      },
      { ts: "2026-01-01T00:00:00.000Z", bouncer: "0" },
    );
    const line = JSON.stringify(record);
    expect(line).not.toContain(SECRET);
    expect(line).toContain("https://api.example/x");
    expect(line).toContain("https://a.example");
  });

  test("toRecord() hides the value of a labelled pair, as an object and written in a string, and keeps its label", () => {
    const headers = [{ headerName: "X-Api-Key", headerValue: SECRET }];
    const record = toRecord(
      {
        event: "decision",
        session: "s",
        server: "http",
        tool: "fetch",
        args: {
          headers,
          body: JSON.stringify({ Parameters: [{ ParameterKey: "DbPassword", ParameterValue: SECRET }] }),
        },
        reason: `Argument "headers" = ${JSON.stringify(JSON.stringify(headers))} was seen`,
      },
      { ts: "2026-01-01T00:00:00.000Z", bouncer: "0" },
    );
    const line = JSON.stringify(record);
    expect(line).not.toContain(SECRET);
    expect(line).toContain("X-Api-Key");
    expect(line).toContain("DbPassword");
  });
});

/** 1 MiB: a tool's request body or a page of output is this long. */
const MIB = 1 << 20;

/** A text of one piece repeated to 1 MiB, then a tail. */
function mib(piece: string, tail = ""): string {
  return `${piece.repeat(Math.ceil(MIB / piece.length)).slice(0, MIB)}${tail}`;
}

/**
 * How far a run's regular expressions searched, per character of a text: each search counts the
 * characters from where it started to its match (or the end), and the run stops with a
 * `RangeError` once the count passes a bound. A quadratic search passes any bound at 1 MiB long
 * before it would end.
 * @param text - The text the run works on.
 * @param run - The run.
 * @param bound - The most characters searched per character of the text.
 * @returns Characters searched per character of the text.
 */
function searchedPerChar(text: string, run: () => unknown, bound = 256): number {
  const exec = RegExp.prototype.exec;
  const most = bound * text.length;
  let searched = 0;
  RegExp.prototype.exec = function counted(this: RegExp, input: string) {
    const from = this.global || this.sticky ? this.lastIndex : 0;
    const match = exec.call(this, input);
    searched += (match === null ? input.length : match.index) - from;
    if (searched > most)
      throw new RangeError(`Cannot redact in linear work: searched over ${most} characters`);
    return match;
  };
  try {
    run();
  } finally {
    RegExp.prototype.exec = exec;
  }
  return searched / text.length;
}

describe("redaction work", () => {
  test.each<[string, string]>([
    // Each object holds `val` and `key` but no member: a search for its members must stop at its end.
    ["objects naming val and key", mib('{"val key"} ', " :")],
    ["start tags naming val and key", mib("<a val key> ", "=")],
    ["labelled pairs", mib('{"name":"X-Api-Key","value":"abc"} ')],
    ["pairs whose label is a key", mib('{"key":"ApiKey","value":"abc"} ')],
  ])(
    "redactText() and redactJson() search a 1 MiB text of %s a bounded number of times per character",
    (_label, text) => {
      expect(searchedPerChar(text, () => redactText(text))).toBeLessThan(256);
      expect(searchedPerChar(text, () => redactJson({ body: text }))).toBeLessThan(256);
    },
  );

  test("redactText() keeps the labels of pairs found once, as the passes move them", () => {
    const text = `{"key":"ApiKey","value":"${SECRET}"} token=${SECRET} {"key":"Password","value":"${SECRET}"}`;
    expect(redactText(text)).toBe(
      `{"key":"ApiKey","value":"${REDACTED}"} token=${REDACTED} {"key":"Password","value":"${REDACTED}"}`,
    );
  });

  test("redactText() ends on a secret name before a 1 MiB run of blanks (a line's name is looked behind only where one starts)", () => {
    // A text of quoted names first: after it, the engine runs the line-name pattern in its slower
    // mode, where a look behind from each blank read back over the whole run.
    redactText(mib('"key', ":"));
    const text = `{value key:${" ".repeat(MIB)}`;
    expect(redactText(text)).toStartWith("{value key:");
  });

  test("redactText() ends on a 1 MiB run of backslashes after a secret name (each quoted-name match is bounded)", () => {
    const text = `key: ${"\\".repeat(MIB)}"`;
    expect(redactText(text)).toStartWith("key: ");
  });
});
