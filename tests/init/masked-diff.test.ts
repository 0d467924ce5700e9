import { describe, expect, test } from "bun:test";
import { clientInfo } from "../../src/init/client-table.ts";
import { colorDiff, maskedDiff } from "../../src/init/masked-diff.ts";
import { planInit } from "../../src/init/plan.ts";
import { BREW_LAUNCHER, SAMPLES, sampleClient, sampleText } from "./samples.ts";

describe("maskedDiff()", () => {
  test.each(SAMPLES.map((sample) => [sample.file, sample] as const))(
    "maskedDiff() of %s shows no env value that is not also in the command line",
    (_, sample) => {
      const client = sampleClient(sample);
      const plan = planInit(sampleText(sample.file), { client, mode: "wrap", launcher: BREW_LAUNCHER });
      const diff = maskedDiff(plan, { file: sample.file, client });
      for (const entry of plan.config.entries) {
        const commandLine = JSON.stringify([entry.command, ...(entry.args ?? [])]);
        for (const [, value] of entry.env)
          if (value.length > 3 && !commandLine.includes(value)) expect(diff).not.toContain(value);
      }
      expect(diff).not.toContain("ghp_FAKE");
      expect(diff).not.toContain("sk-FAKE");
      if (plan.changed) expect(diff).toContain(BREW_LAUNCHER.command);
    },
  );

  test("maskedDiff() shows the new launcher and masks the unchanged env lines", () => {
    const sample = { file: "claude-code.mcp.json", kind: "claude-code" } as const;
    const client = sampleClient(sample);
    const plan = planInit(sampleText(sample.file), { client, mode: "wrap", launcher: BREW_LAUNCHER });
    const diff = maskedDiff(plan, { file: sample.file, client });
    expect(diff).toStartWith("--- claude-code.mcp.json\n+++ claude-code.mcp.json\n");
    expect(diff).toContain('+      "command": "/opt/homebrew/bin/bouncer",\n');
    expect(diff).toContain('         "KALI_API_KEY": "********"\n');
    expect(diff).not.toContain("[REDACTED_API_KEY]");
  });

  test.each([
    ["claude-code", ".mcp.json"],
    ["codex", "config.toml"],
  ] as const)(
    "maskedDiff() of a %s config masks, and the plan does not stash, a JSON-valued argument's secret and -k's value, and masks a value under oauth",
    (kind, file) => {
      const json = '{"apiKey":"plainvalue95"}';
      const text =
        kind === "codex"
          ? `[oauth]\nrefresh = "plainvalue80"\n\n[mcp_servers.j]\ncommand = "srv"\nargs = ["srv", ${JSON.stringify(json)}]\n\n[mcp_servers.k]\ncommand = "srv"\nargs = ["-k", "plainvalue98"]\n`
          : `{\n  "oauth": {"refresh": "plainvalue80"},\n  "note": ${JSON.stringify(json)},\n  "mcpServers": {\n    "j": {"command": "srv", "args": ["srv", ${JSON.stringify(json)}]},\n    "k": {"command": "srv", "args": ["-k", "plainvalue98"]}\n  }\n}\n`;
      const client = clientInfo(kind);
      const plan = planInit(text, { client, mode: "wrap", launcher: BREW_LAUNCHER });
      const diff = maskedDiff(plan, { file, client });
      expect(diff).toContain("+");
      expect(diff).not.toContain("plainvalue");
      expect(plan.after).not.toContain("x-bouncer-upstream");
      if (client.stash) {
        expect(plan.actions.map((action) => action.message)).toEqual([
          'wrap "j" (no x-bouncer-upstream: its arguments hold a secret)',
          'wrap "k" (no x-bouncer-upstream: its arguments hold a secret)',
        ]);
      }
    },
  );

  test("maskedDiff() masks, and the plan does not stash, a quoted secret assignment inside sh -c", () => {
    const text = `${JSON.stringify(
      {
        mcpServers: {
          sh1: { command: "bash", args: ["-c", "GITHUB_TOKEN='S3cretSingleQ' exec npx -y srv"] },
          sh2: { command: "sh", args: ["-c", 'export API_KEY="S3cret\\"DoubleQ"; exec npx srv'] },
        },
      },
      null,
      2,
    )}\n`;
    const client = clientInfo("claude-code");
    const plan = planInit(text, { client, mode: "wrap", launcher: BREW_LAUNCHER });
    const diff = maskedDiff(plan, { file: ".mcp.json", client });
    expect(diff).toContain("+");
    expect(diff).not.toContain("S3cret");
    expect(plan.after).not.toContain("x-bouncer-upstream");
    expect(plan.actions.map((action) => action.message)).toEqual([
      'wrap "sh1" (no x-bouncer-upstream: its arguments hold a secret)',
      'wrap "sh2" (no x-bouncer-upstream: its arguments hold a secret)',
    ]);
    expect(plan.warnings).toHaveLength(2);
  });

  test("maskedDiff() masks, and the plan does not stash, a labelled pair in a JSON argument, an XML secret element and a password no secret name precedes", () => {
    const servers = {
      pair: { command: "srv", args: ["--headers", '[{"name":"Authorization","value":"S3cretPairA1"}]'] },
      prefixed: {
        command: "srv",
        args: ['{"headers":[{"headerName":"X-Api-Key","headerValue":"S3cretPairA2"}]}'],
      },
      xml: { command: "srv", args: ["--config", "<config><apiKey>S3cretXmlA3</apiKey></config>"] },
      user: { command: "srv", args: ["--fetch", "curl -u bob:S3cretCurlA4 https://api.example"] },
      argv: { command: "mysql", args: ["-uroot", "-pS3cretGluedA5", "db"] },
      header: { command: "srv", args: ["--header=Authorization: token S3cretHdrA6"] },
      curl: { command: "curl", args: ["-s", "-u", "bob:S3cretCurlA7", "https://api.example/mcp"] },
    };
    const text = `${JSON.stringify({ mcpServers: { ...servers, port: { command: "srv", args: ["-p", "3000"] } } }, null, 2)}\n`;
    const client = clientInfo("claude-code");
    const plan = planInit(text, { client, mode: "wrap", launcher: BREW_LAUNCHER });
    const diff = maskedDiff(plan, { file: ".mcp.json", client });
    expect(diff).toContain("+");
    expect(diff).not.toContain("S3cret");
    expect(plan.actions.map((action) => action.message)).toEqual([
      ...Object.keys(servers).map(
        (name) => `wrap "${name}" (no x-bouncer-upstream: its arguments hold a secret)`,
      ),
      'wrap "port"',
    ]);
    expect(plan.warnings).toHaveLength(Object.keys(servers).length);
  });

  test("maskedDiff() is empty when nothing changes", () => {
    const sample = { file: "edge/cursor-remote-url-only.mcp.json", kind: "cursor" } as const;
    const client = sampleClient(sample);
    const plan = planInit(sampleText(sample.file), { client, mode: "wrap", launcher: BREW_LAUNCHER });
    expect(maskedDiff(plan, { file: sample.file, client })).toBe("");
  });

  test("colorDiff() colours added, removed and hunk lines but not the file headers", () => {
    const mark = (tag: string) => (s: string) => `<${tag}>${s}`;
    const colored = colorDiff("--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n z", {
      red: mark("r"),
      green: mark("g"),
      cyan: mark("c"),
    });
    expect(colored).toBe("--- a\n+++ a\n<c>@@ -1 +1 @@\n<r>-x\n<g>+y\n z");
  });
});
