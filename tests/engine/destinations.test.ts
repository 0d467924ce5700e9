import { describe, expect, test } from "bun:test";
import {
  destinationPieces,
  destinationRule,
  flattenValue,
  type JsonObject,
  type RuleSource,
  type Sourced,
  selectDestinations,
} from "../../src/engine/index.ts";
import { jsonContainer } from "../../src/engine/json-text.ts";
import { schemaOf } from "./helpers.ts";

const user = (value: string): Sourced<string> => ({ value, source: "user:bouncer.yaml" as RuleSource });

function selected(
  args: JsonObject,
  options: { schema?: JsonObject; sinks?: string[]; heuristics?: boolean; tool?: string },
): string[] {
  return selectDestinations(args, {
    tool: options.tool ?? "send_email",
    schema: options.schema,
    sinkParams: (options.sinks ?? []).map(user),
    heuristics: options.heuristics ?? true,
  }).map((d) => `${d.param}=${d.path}:${d.value}`);
}

describe("selectDestinations()", () => {
  const schema = schemaOf("to", "subject", "body", "recipients");
  const args = {
    to: "a@x.example",
    subject: "hi",
    body: "text",
    recipients: ["b@y.example"],
    extra: "c@z.example",
  };

  test.each<[string, { schema?: JsonObject; sinks?: string[]; heuristics?: boolean }, string[]]>([
    [
      "takes declared sinks, sink-shaped and unknown arguments when a declared sink is in the schema",
      { schema, sinks: ["to"] },
      ["to=to:a@x.example", "recipients=recipients[0]:b@y.example", "extra=extra:c@z.example"],
    ],
    [
      "takes declared sinks and unknown arguments only when heuristics are off",
      { schema, sinks: ["to"], heuristics: false },
      ["to=to:a@x.example", "extra=extra:c@z.example"],
    ],
    [
      "takes every argument when no declared sink is in the schema",
      { schema, sinks: ["message.to"] },
      [
        "to=to:a@x.example",
        "subject=subject:hi",
        "body=body:text",
        "recipients=recipients[0]:b@y.example",
        "extra=extra:c@z.example",
      ],
    ],
    [
      "takes sink-shaped and unknown arguments when none is declared and the schema has a sink-shaped one",
      { schema },
      ["to=to:a@x.example", "recipients=recipients[0]:b@y.example", "extra=extra:c@z.example"],
    ],
    [
      "takes every argument when none is declared and the schema has no sink-shaped one",
      { schema: schemaOf("subject", "body") },
      [
        "to=to:a@x.example",
        "subject=subject:hi",
        "body=body:text",
        "recipients=recipients[0]:b@y.example",
        "extra=extra:c@z.example",
      ],
    ],
    [
      "takes every argument when none is declared and heuristics are off",
      { schema, heuristics: false },
      [
        "to=to:a@x.example",
        "subject=subject:hi",
        "body=body:text",
        "recipients=recipients[0]:b@y.example",
        "extra=extra:c@z.example",
      ],
    ],
    [
      "takes every argument when there is no schema",
      { sinks: ["to"] },
      [
        "to=to:a@x.example",
        "subject=subject:hi",
        "body=body:text",
        "recipients=recipients[0]:b@y.example",
        "extra=extra:c@z.example",
      ],
    ],
  ])("selectDestinations() %s", (_name, options, expected) => {
    expect(selected(args, options).sort()).toEqual(expected.sort());
  });

  test("selectDestinations() follows dotted and list sink paths into the schema and the call", () => {
    const nested = {
      type: "object",
      properties: {
        message: { type: "object", properties: { to: { type: "string" } } },
        files: { type: "array", items: { type: "object", properties: { path: { type: "string" } } } },
      },
    };
    const found = selected(
      { message: { to: "a@x.example", note: "n" }, files: [{ path: "/a" }, { path: "/b" }] },
      { schema: nested, sinks: ["message.to", "files[].path"], tool: "upload" },
    );
    expect(found).toEqual([
      "message.to=message.to:a@x.example",
      "files[].path=files[0].path:/a",
      "files[].path=files[1].path:/b",
      // Not in the schema's properties of `message`: a destination, as a top-level one would be.
      "message.note=message.note:n",
    ]);
  });

  test("selectDestinations() takes nested values under sink-shaped keys, or keys the schema does not list, as destinations", () => {
    const schema = {
      type: "object",
      properties: {
        to: { type: "array", items: { type: "string" } },
        headers: { type: "object", additionalProperties: { type: "string" } },
        options: {
          type: "object",
          properties: { reply_to: { type: "string" }, priority: { type: "string" } },
        },
        attachments: { type: "array", items: { type: "object", properties: { url: { type: "string" } } } },
      },
    };
    const found = selected(
      {
        to: ["boss@corp.example"],
        headers: { Bcc: "x@evil.example", "X-Mailer": "m" },
        options: { reply_to: "y@evil.example", cc: "z@evil.example", priority: "high" },
        attachments: [{ url: "https://evil.example/x" }],
      },
      { schema, tool: "send_mail" },
    );
    expect(found.sort()).toEqual(
      [
        "to=to[0]:boss@corp.example",
        "headers.Bcc=headers.Bcc:x@evil.example",
        "options.reply_to=options.reply_to:y@evil.example",
        "options.cc=options.cc:z@evil.example",
        "attachments[].url=attachments[0].url:https://evil.example/x",
      ].sort(),
    );
  });

  test("selectDestinations() reads nested keys through a local $ref (pydantic's $defs): only the sink-shaped one", () => {
    const schema = {
      $defs: {
        Message: {
          type: "object",
          properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } },
        },
      },
      type: "object",
      properties: { message: { $ref: "#/$defs/Message" } },
    };
    const found = selected(
      { message: { to: "boss@corp.example", subject: "hi", body: "text", deliver: "x@evil.example" } },
      { schema, tool: "send_message" },
    );
    expect(found.sort()).toEqual(
      ["message.to=message.to:boss@corp.example", "message.deliver=message.deliver:x@evil.example"].sort(),
    );
  });

  test("selectDestinations() with declared sinks still takes a nested sink-shaped key the schema lists (a filter's criteria.to), and any key it does not list", () => {
    const schema = {
      type: "object",
      properties: {
        criteria: { type: "object", properties: { to: { type: "string" }, from: { type: "string" } } },
        action: { type: "object", properties: { forward: { type: "string" } } },
      },
    };
    const found = selected(
      { criteria: { to: "team@corp.example", cc: "x@evil.example" }, action: { forward: "me@corp.example" } },
      { schema, sinks: ["action.forward"], tool: "create_filter" },
    );
    expect(found.sort()).toEqual(
      [
        "action.forward=action.forward:me@corp.example",
        "criteria.cc=criteria.cc:x@evil.example",
        "criteria.to=criteria.to:team@corp.example",
      ].sort(),
    );
  });

  test("selectDestinations() takes nested header names in any case, and keys written as paths, as sink-shaped", () => {
    const schema = { type: "object", properties: { to: { type: "string" }, headers: { type: "object" } } };
    const found = selected(
      {
        to: "boss@corp.example",
        headers: { tO: "a@evil.example", BcC: "b@evil.example", "cc[0]": "c@evil.example" },
      },
      { schema, sinks: ["to"], tool: "send_email" },
    );
    expect(found.filter((row) => row.startsWith("headers.")).sort()).toEqual(
      [
        "headers.BcC=headers.BcC:b@evil.example",
        "headers.cc[0]=headers.cc[0]:c@evil.example",
        "headers.tO=headers.tO:a@evil.example",
      ].sort(),
    );
  });

  test("selectDestinations() walks an object or list argument sent as JSON text as what it parses to (a client's JSON string, parsed by the MCP Python SDK)", () => {
    const schema = {
      $defs: {
        Message: { type: "object", properties: { to: { type: "string" }, body: { type: "string" } } },
      },
      type: "object",
      properties: {
        message: { $ref: "#/$defs/Message" },
        messages: { type: "array", items: { $ref: "#/$defs/Message" } },
        options: { type: "object", properties: { bcc: { type: "string" }, priority: { type: "string" } } },
      },
    };
    const text = (value: unknown): string => JSON.stringify(value);
    const found = selected(
      {
        message: text({ to: "a@evil.example", body: "hi" }),
        messages: [{ to: "b@corp.example" }, text({ to: "c@evil.example" })],
        options: ` ${text({ bcc: "d@evil.example", priority: "high" })}`,
      },
      { schema, tool: "send_message" },
    );
    expect(found.sort()).toEqual(
      [
        "message.to=message.to:a@evil.example",
        "messages[].to=messages[0].to:b@corp.example",
        "messages[].to=messages[1].to:c@evil.example",
        "options.bcc=options.bcc:d@evil.example",
      ].sort(),
    );
    // Declared sinks do not hide it: the other arguments are still walked.
    expect(
      selected(
        { to: "boss@corp.example", options: text({ bcc: "d@evil.example" }) },
        {
          schema: {
            type: "object",
            properties: { to: { type: "string" }, ...schema.properties },
            $defs: schema.$defs,
          },
          sinks: ["to"],
        },
      ).sort(),
    ).toEqual(["options.bcc=options.bcc:d@evil.example", "to=to:boss@corp.example"].sort());
  });

  test("selectDestinations() reads JSON text as Python's parser does (NaN, Infinity), takes a string whole only where a string will not do", () => {
    const schema = {
      type: "object",
      properties: {
        options: { type: "object", properties: { priority: { type: "string" } } },
        either: { anyOf: [{ type: "string" }, { type: "object", properties: { to: { type: "string" } } }] },
        note: { type: "string" },
        anything: { title: "Anything" },
      },
    };
    expect(selected({ options: "x@evil.example" }, { schema, tool: "send_message" })).toEqual([
      "options=options:x@evil.example",
    ]);
    // Python's json.loads takes NaN and Infinity, JSON.parse does not: read as json.loads reads them,
    // under a schema that says nothing of the type too (pydantic's `Any`).
    for (const name of ["either", "anything", "options"]) {
      const text = '{"to": "x@evil.example", "n": NaN, "m": [-Infinity, Infinity]}';
      expect(selected({ [name]: text }, { schema, tool: "send_message" })).toEqual([
        `${name}.to=${name}.to:x@evil.example`,
      ]);
    }
    expect(selected({ anything: '{"to": "y@evil.example"}' }, { schema, tool: "send_message" })).toEqual([
      "anything.to=anything.to:y@evil.example",
    ]);
    // A string that may be one stays one: plain text and bracketed prose under string-or-object, any
    // text under a string, text under a schema that says nothing of the type.
    expect(
      selected(
        {
          either: "[FYI] build is green, see x@evil.example",
          note: '{"to": "x@evil.example"}',
          anything: "[draft] see x@evil.example",
        },
        { schema, tool: "send_message" },
      ),
    ).toEqual([]);
    // Where a string will do too, text that reads as an object or a list to a laxer parser is taken
    // whole (YAML flow, Python literals, JSON5), prose is not.
    for (const text of [
      "{bcc: x@evil.example}",
      "{'bcc': 'x@evil.example'}",
      '{"bcc": "x@evil.example",}',
      "['x@evil.example']",
    ]) {
      expect(selected({ either: text }, { schema, tool: "send_message" })).toEqual([`either=either:${text}`]);
    }
    // Where only an object will do, bracketed text that is no JSON is taken whole.
    expect(selected({ options: "{not json x@evil.example" }, { schema, tool: "send_message" })).toEqual([
      "options=options:{not json x@evil.example",
    ]);
  });

  test("selectDestinations() takes a whole value whose shape does not fit the sink path (fail closed)", () => {
    const nested = { type: "object", properties: { message: { type: "object", properties: { to: {} } } } };
    expect(selected({ message: "attacker@evil.example" }, { schema: nested, sinks: ["message.to"] })).toEqual(
      ["message.to=message:attacker@evil.example"],
    );
  });

  test("selectDestinations() reads an unknown argument by its own name, brackets and dots included", () => {
    const found = selected(
      { to: [], "cc[]": "a@evil.example", "a.b": "c@evil.example" },
      { schema, sinks: ["to"] },
    );
    expect(found.sort()).toEqual(["a.b=a.b:c@evil.example", "cc[]=cc[]:a@evil.example"]);
  });

  test("selectDestinations() contributes nothing for an absent or empty declared sink", () => {
    expect(selected({ to: [], subject: "s" }, { schema, sinks: ["to"] })).toEqual([]);
    expect(selected({ subject: "s" }, { schema, sinks: ["to"] })).toEqual([]);
  });

  test("selectDestinations() treats keys named like Object.prototype members as plain data", () => {
    const args = JSON.parse('{"__proto__": "a@evil.example", "constructor": "b@evil.example"}') as JsonObject;
    expect(selected(args, { schema, sinks: ["to"] }).sort()).toEqual([
      "__proto__=__proto__:a@evil.example",
      "constructor=constructor:b@evil.example",
    ]);
  });
});

describe("selectDestinations() and destinationRule()", () => {
  const rule = (schema: JsonObject | undefined, sinks: string[], heuristics = true) =>
    destinationRule({ tool: "send_email", schema, sinkParams: sinks.map(user), heuristics });

  test("selectDestinations() follows destinationRule(): with every argument, a non-sink-shaped one is a destination", () => {
    const schema = schemaOf("body", "subject");
    expect(rule(schema, []).kind).toBe("every");
    expect(selected({ body: "x@evil.example" }, { schema })).toEqual(["body=body:x@evil.example"]);
    const named = schemaOf("to", "body");
    expect(rule(named, []).kind).toBe("named");
    expect(selected({ body: "x@evil.example" }, { schema: named })).toEqual([]);
  });
});

describe("jsonContainer()", () => {
  test.each<[string, unknown]>([
    ['{"a": 1}', { a: 1 }],
    [' [1, "x"]', [1, "x"]],
    ['{"n": NaN, "i": -Infinity, "s": "NaN, \\"Infinity\\""}', { n: null, i: null, s: 'NaN, "Infinity"' }],
    ['{"a": NaNa}', undefined],
    ["[draft] notes", undefined],
    ['"just a string"', undefined],
    ["42", undefined],
    ["{not json", undefined],
  ])("jsonContainer(%p) is %p", (text, value) => {
    expect(jsonContainer(text)).toEqual(value as never);
  });
});

describe("flattenValue()", () => {
  test.each<[string, Parameters<typeof flattenValue>[0], string[]]>([
    ["a string as it is", "a@x.example", ["v:a@x.example"]],
    ["a number as its JSON text", 1e21, ["v:1e+21"]],
    ["booleans and null as nothing", [true, null, false], []],
    ["a list element by element", ["a", ["b"]], ["v[0]:a", "v[1][0]:b"]],
    [
      "an object by its keys and values",
      { "a@x.example": { name: "b@y.example" } },
      ["v:a@x.example", "v.a@x.example:name", "v.a@x.example.name:b@y.example"],
    ],
  ])("flattenValue() flattens %s", (_name, value, expected) => {
    expect(flattenValue(value, "v").map((f) => `${f.path}:${f.value}`)).toEqual(expected);
  });

  test("flattenValue() walks deep nesting without recursion", () => {
    let deep: Parameters<typeof flattenValue>[0] = "a@x.example";
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    expect(flattenValue(deep, "v").map((f) => f.value)).toEqual(["a@x.example"]);
  });
});

describe("destinationPieces()", () => {
  test("destinationPieces() of a sink holding a hidden control character adds its reading without it, never eligible for trust", () => {
    const pieces = destinationPieces("boss\u0007@corp.example", { sink: true });
    expect(pieces.map((piece) => [piece.canonical, piece.eligible, piece.decoded === true])).toEqual([
      ["boss\u0007@corp.example", true, false],
      ["boss@corp.example", false, true],
    ]);
    // Recorded output's field values are split as written (their other readings are recorded apart).
    expect(destinationPieces("boss\u0007@corp.example").map((piece) => piece.canonical)).toEqual([
      "boss\u0007@corp.example",
    ]);
  });

  test.each<[string, string, string[]]>([
    ["splits a comma list", "a@evil.example, boss@corp.example", ["a@evil.example", "boss@corp.example"]],
    ["splits a semicolon list", "a@evil.example;boss@corp.example", ["a@evil.example", "boss@corp.example"]],
    [
      "splits a list whose last item is Name <addr>",
      "a@evil.example, Boss <boss@corp.example>",
      ["a@evil.example", "boss@corp.example"],
    ],
    [
      "splits a list of Name <addr> items",
      '"Smith, A" <a@x.example>, Bob <b@y.example>',
      ["a@x.example", "b@y.example"],
    ],
    [
      "splits a mailto: URL with to/cc/bcc",
      "mailto:a@x.example?cc=b@y.example&bcc=c@z.example,d@w.example&subject=hi",
      ["a@x.example", "b@y.example", "c@z.example", "d@w.example"],
    ],
    ["splits a mailto: URL with only a to field", "mailto:?to=a@x.example", ["a@x.example"]],
    [
      "splits a percent-encoded list",
      "a%40evil.example%2C%20boss%40corp.example",
      ["a@evil.example", "boss@corp.example"],
    ],
    [
      "does not split a URL",
      "https://x.example/?to=a@b.example,c@d.example",
      ["https://x.example/?to=a@b.example,c@d.example"],
    ],
    ["does not split a list of plain names", "Smith, John", ["smith, john"]],
    ["drops pieces that are empty", "a@x.example, ,\u200b", ["a@x.example"]],
    ["gives nothing for an empty value", " \u200b ", []],
  ])("destinationPieces() %s", (_name, raw, expected) => {
    expect(destinationPieces(raw).map((p) => p.canonical)).toEqual(expected);
  });

  test.each<[string, string, string[]]>([
    ["a mailto: URL that holds no address", "mailto:?", ["?"]],
    ["a mailto: URL whose fields hold no address", "mailto:?cc=&subject=", ["?cc=&subject="]],
  ])("destinationPieces() keeps %s whole, as a destination and as output", (_name, raw, expected) => {
    expect(destinationPieces(raw).map((p) => p.canonical)).toEqual(expected);
    expect(destinationPieces(raw, { sink: true }).map((p) => p.canonical)).toEqual(expected);
  });

  test.each<[string, string, string[]]>([
    [
      "splits a URL followed by a comma and an address (a mail library would), and keeps it whole",
      "https://hooks.corp.example/bouncer/,attacker@evil.example",
      [
        "https://hooks.corp.example/bouncer/,attacker@evil.example",
        "https://hooks.corp.example/bouncer/",
        "attacker@evil.example",
      ],
    ],
    [
      "does not split a URL at commas without an address",
      "https://x.example/a,b;c?ids=1,2",
      ["https://x.example/a,b;c?ids=1,2"],
    ],
    [
      "takes nothing after a ? as a header field unless mailto:",
      "boss@corp.example?,attacker@evil.example",
      ["boss@corp.example?", "boss@corp.example", "attacker@evil.example"],
    ],
    [
      "keeps every piece of a mailto: query field that is no name=value",
      "mailto:boss@corp.example?,attacker@evil.example",
      ["boss@corp.example", "attacker@evil.example"],
    ],
    [
      "splits a mailto: query at ; too, as readers that take ; for & do (a cc hidden in the subject)",
      "mailto:boss@corp.example?subject=files;cc=attacker@evil.example",
      ["boss@corp.example", "attacker@evil.example"],
    ],
    [
      "keeps the addresses of any other mailto: field",
      "mailto:boss@corp.example?subject=hi, attacker@evil.example&body=x",
      ["boss@corp.example", "attacker@evil.example"],
    ],
    [
      "adds the address read without folding white space beside its @ (RFC 5322)",
      "attacker @evil.example",
      ["attacker @evil.example", "attacker@evil.example"],
    ],
    [
      "adds the address read without white space beside a dot of its domain",
      "attacker@evil .example",
      ["attacker@evil .example", "attacker@evil.example"],
    ],
    [
      "adds the addresses of a group whose address has white space beside its @",
      "x: attacker @evil.example;",
      ["x: attacker @evil.example;", "attacker@evil.example"],
    ],
    [
      "adds the address of a quoted local part with a quoted pair, unquoted",
      '"att\\acker"@evil.example',
      ['"att\\acker"@evil.example', "attacker@evil.example"],
    ],
    [
      "adds the addresses written inside a value that is no address",
      "attacker@evil.example (boss)",
      ["attacker@evil.example (boss)", "attacker@evil.example"],
    ],
    [
      "adds the addresses of a group",
      "team: a@x.example, b@y.example;",
      ["team: a@x.example", "a@x.example", "b@y.example"],
    ],
    [
      "adds an address after a URL and a space",
      "https://hooks.corp.example/b/ a@x.example",
      ["https://hooks.corp.example/b/ a@x.example", "a@x.example"],
    ],
    [
      "decides a URL with an address in its path whole, the address added (as taint-only)",
      "https://lists.example/archive/a@x.example",
      ["https://lists.example/archive/a@x.example", "a@x.example"],
    ],
  ])("destinationPieces() of a gated call's argument (sink) %s", (_name, raw, expected) => {
    expect(destinationPieces(raw, { sink: true }).map((p) => p.canonical)).toEqual(expected);
  });

  test("destinationPieces() of a gated call's argument (sink) marks an address inside a URL taint-only, and nothing else", () => {
    const pieces = destinationPieces("https://relay.example/send?to=a@x.example", { sink: true });
    expect(pieces.map((p) => [p.canonical, p.taintOnly === true])).toEqual([
      ["https://relay.example/send?to=a@x.example", false],
      ["a@x.example", true],
    ]);
    expect(destinationPieces("a@x.example (boss)", { sink: true }).some((p) => p.taintOnly === true)).toBe(
      false,
    );
  });

  test.each<[string, string, [string, boolean][]]>([
    [
      "a later URL of a value",
      "https://a.example/x, https://hooks.corp.example%2f@evil.example/y",
      [
        ["https://a.example/x, https://hooks.corp.example%2f@evil.example/y", false],
        ["https://hooks.corp.example%2f@evil.example/y", false],
      ],
    ],
    [
      "a URL of a list",
      "boss@corp.example, https://hooks.corp.example%2f@evil.example/y",
      [
        ["boss@corp.example", false],
        ["https://hooks.corp.example%2f@evil.example/y", false],
      ],
    ],
    [
      "a URL of a list split at a decoded separator (read from the whole value)",
      "boss@corp.example%2chttps://hooks.corp.example%2f@evil.example/y",
      [
        ["boss@corp.example", true],
        ["https://hooks.corp.example%2f@evil.example/y", false],
      ],
    ],
    [
      "a URL only decoding shows",
      "https://a.example/x https%3a%2f%2fhooks.corp.example/y",
      [
        ["https://a.example/x https%3a%2f%2fhooks.corp.example/y", false],
        ["https://hooks.corp.example/y", true],
      ],
    ],
  ])(
    "destinationPieces() of a gated call's argument keeps %s as written, or marks it decoded",
    (_name, raw, expected) => {
      const pieces = destinationPieces(raw, { sink: true });
      expect(pieces.map((p) => [p.raw, p.decoded === true])).toEqual(expected);
    },
  );

  test("destinationPieces() trusts an address found inside another piece only as the piece is trusted", () => {
    const plain = destinationPieces("boss@corp.example (boss)", { sink: true });
    expect(plain.map((p) => [p.canonical, p.eligible])).toEqual([
      ["boss@corp.example (boss)", true],
      ["boss@corp.example", true],
    ]);
    const encoded = destinationPieces("Boss%40corp.example (boss) boss@corp.example", { sink: true });
    expect(encoded.every((p) => !p.eligible)).toBe(true);
  });

  test.each([
    "https://hooks.corp.example,x@evil.example",
    "https://hooks.corp.example;x@evil.example",
    "http://h.example:80,x@evil.example",
  ])(
    "destinationPieces() keeps %s whole beside its pieces (a separator in the userinfo hides no host)",
    (url) => {
      const pieces = destinationPieces(url, { sink: true });
      expect(pieces[0]?.canonical).toBe(url);
      expect(pieces.map((p) => p.canonical)).toContain("x@evil.example");
    },
  );

  test.each<[string, string, string[]]>([
    ["an address inside a longer value", "attacker@evil.example (boss)", ["attacker@evil.example (boss)"]],
    ["a URL followed by an address", "https://x.example/,a@b.example", ["https://x.example/,a@b.example"]],
    ["a mailto: field other than to/cc/bcc", "a@x.example?subject=hi, b@y.example", ["a@x.example"]],
  ])("destinationPieces() of recorded output (no sink) splits %s as before", (_name, raw, expected) => {
    expect(destinationPieces(raw).map((p) => p.canonical)).toEqual(expected);
  });

  test.each<[string, boolean[]]>([
    ["boss@corp.example", [true]],
    ["  Boss@Corp.Example ", [true]],
    ["Boss <boss@corp.example>", [false]],
    ["boss%40corp.example", [false]],
    ["mailto:boss@corp.example", [false]],
    ["boss\u200b@corp.example", [false]],
    ["a@evil.example, boss@corp.example", [true, true]],
    // Each piece, trimmed, is its own raw form: the white space between items does not matter.
    ["a@evil.example,  boss@corp.example", [true, true]],
    ["boss@corp.example  , a@evil.example", [true, true]],
    ["boss@corp.example\t; a@evil.example", [true, true]],
    ["boss@corp.example  , mailto:a@evil.example", [true, false]],
    // Never a piece another part of the list spells otherwise, nor one inside `Name <list>`.
    ["boss@corp.example  , boss@corp.examp%6ce", [false, false]],
    ["boss@corp.example  , boss%40corp.example", [false, false]],
    ["Team <boss@corp.example  , a@evil.example>", [false, false]],
    ["boss@corp.example%2c  a@evil.example", [false, false]],
  ])("destinationPieces(%p) is eligible for trust only when already canonical: %p", (raw, expected) => {
    expect(destinationPieces(raw).map((p) => p.eligible)).toEqual(expected);
  });
});

describe("destinationPieces() on a long list of channels", () => {
  // A hang guard, not a timing assertion: looking for each handle in the whole value again made
  // this quadratic (a 1 MB value took 20–30 s, over the test timeout).
  test("destinationPieces() of a gated 1 MB list of distinct channels gives each channel once", () => {
    const channels = Array.from({ length: 120_000 }, (_, i) => `#c${String(i).padStart(6, "0")}`);
    const pieces = destinationPieces(channels.join(" "), { sink: true });
    const added = pieces.slice(1).map((piece) => piece.canonical);
    expect(added).toEqual(channels);
  });
});
